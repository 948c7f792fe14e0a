/**
 * `bot mcp --offline`: `bot dev --offline --json` started as a child process in the background, and stopped with
 * the MCP server. Its stdin is a pipe nobody writes to (the offline chat waits on it; when this process dies
 * however it dies, the pipe closes and the session ends by itself); its events come as JSON lines on its stdout,
 * and what a person would read of them goes to our stderr (our stdout is the MCP protocol's alone).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import {listControlRecords} from '../control/record.js'
import type {ControlRecord} from '../control/protocol.js'

/** The CLI's own entry point (bin/run.js of this package). */
const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

/** Lines of the child's output kept, to say why it ended. */
const KEPT = 30

export interface OfflineChildOptions {
  cwd: string
  /** After `bot dev --offline --json`: more flags, and `--` with the bot's command. */
  args?: string[]
  env?: NodeJS.ProcessEnv
  /** Where the child's readable lines go (stderr). */
  log: (line: string) => void
  /** State folder where its control record appears (default: the usual one). */
  stateDir?: string
}

export class OfflineChild {
  readonly #child: ChildProcess
  readonly #o: OfflineChildOptions
  readonly #lines: string[] = []
  #exit: string | undefined
  #ready = false
  readonly #waiters = new Set<() => void>()
  readonly exited: Promise<void>

  constructor(o: OfflineChildOptions) {
    this.#o = o
    this.#child = spawn(process.execPath, [BIN, 'dev', '--offline', '--json', ...(o.args ?? [])], {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.#child.stdin?.on('error', () => {})
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exit = signal ? `it was stopped by ${signal}` : `it exited with code ${code}`
        this.#wake()
        resolve()
      })
      this.#child.once('error', (error) => {
        this.#exit = `it could not start (${error.message})`
        this.#wake()
        resolve()
      })
    })
    let rest = ''
    this.#child.stdout?.setEncoding('utf8')
    this.#child.stdout?.on('data', (chunk: string) => {
      rest += chunk
      let nl = rest.indexOf('\n')
      while (nl >= 0) {
        this.#line(rest.slice(0, nl))
        rest = rest.slice(nl + 1)
        nl = rest.indexOf('\n')
      }
      if (rest.length > 1024 * 1024) rest = ''
    })
    this.#child.stderr?.setEncoding('utf8')
    this.#child.stderr?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line) this.#keep(line)
    })
  }

  get pid(): number | undefined {
    return this.#child.pid
  }

  /** Why the child is gone (with its last lines), or undefined while it runs. */
  get gone(): string | undefined {
    if (this.#exit === undefined) return undefined
    const last = this.#lines.slice(-8)
    return `The \`bot dev --offline\` that \`bot mcp --offline\` started is gone: ${this.#exit}.${
      last.length > 0 ? ` Its last lines:\n${last.map((l) => `  ${l}`).join('\n')}` : ''
    }`
  }

  #keep(line: string): void {
    this.#lines.push(line)
    if (this.#lines.length > KEPT) this.#lines.shift()
    try {
      this.#o.log(`bot dev › ${line}`)
    } catch {
      // a log that fails is no reason to stop
    }
  }

  #line(line: string): void {
    let event: {type?: string; text?: string} | undefined
    try {
      event = JSON.parse(line) as {type?: string; text?: string}
    } catch {
      this.#keep(line)
      return
    }
    if (typeof event?.text === 'string') for (const one of event.text.split('\n')) this.#keep(one)
    if (event?.type === 'ready') {
      this.#ready = true
      this.#wake()
    }
  }

  #wake(): void {
    for (const wake of this.#waiters) wake()
    this.#waiters.clear()
  }

  /** The child's control record once it is ready; rejects with why when it ended first or after `ms`. */
  async session(ms: number): Promise<ControlRecord> {
    const deadline = Date.now() + ms
    for (;;) {
      if (this.#exit !== undefined) throw new Error(this.gone)
      if (this.#ready) {
        const record = listControlRecords(this.#o.stateDir).find((r) => r.pid === this.#child.pid)
        if (record) return record
      }
      const left = deadline - Date.now()
      if (left <= 0)
        throw new Error(
          `The \`bot dev --offline\` that \`bot mcp --offline\` started is not ready after ${Math.round(ms / 1000)} s.`,
        )
      // Woken by its next event (ready, exit), or after a short look again (the record is written just before Ready).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, this.#ready ? 50 : 1000))
        function done() {
          clearTimeout(timer)
          resolve()
        }
        this.#waiters.add(done)
      })
    }
  }

  /** Stop it as Ctrl-C would (its teardown), then for good after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.#exit !== undefined || this.#child.exitCode !== null) return
    try {
      this.#child.kill('SIGTERM')
    } catch {
      // gone already
    }
    const timer = setTimeout(() => {
      try {
        this.#child.kill('SIGKILL')
      } catch {
        // gone already
      }
    }, graceMs)
    timer.unref()
    await this.exited
    clearTimeout(timer)
  }
}
