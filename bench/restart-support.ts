/**
 * What the restart benches share (bench/restart.ts, bench/restart-order.ts): a child process whose
 * output lines can be awaited, an update POSTed to a bot as the relay would, a "save" of a file, and
 * the measured round of a `bot dev --json` session: save → the restart event → a chat line sent (the
 * relay holds it) → the new bot spawned → listening → the reply, each stage timed.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import http from 'node:http'
import {createInterface} from 'node:readline'
import {setTimeout as sleep} from 'node:timers/promises'

import {groupAlive} from '../src/session-store/processes.js'

/** How long any one step may take before the bench gives up. */
export const STEP_DEADLINE_MS = 60_000

/** A child (in its own process group) whose output lines can be awaited (stdout, or both streams). */
export class Child {
  readonly proc: ChildProcess
  #waiters: Array<{test: (line: string) => boolean; resolve: (at: number) => void}> = []
  #exited = false

  constructor(file: string, args: string[], options: {cwd: string; env: NodeJS.ProcessEnv; stderr?: boolean}) {
    this.proc = spawn(file, args, {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true})
    this.proc.once('exit', () => (this.#exited = true))
    const onLine = (line: string) => {
      const at = performance.now()
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.test(line)) return true
        w.resolve(at)
        return false
      })
    }
    createInterface({input: this.proc.stdout!}).on('line', onLine)
    if (options.stderr) createInterface({input: this.proc.stderr!}).on('line', onLine)
    else this.proc.stderr!.resume()
  }

  /** The time (performance.now()) the next line matching `test` arrives. */
  next(test: (line: string) => boolean, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${STEP_DEADLINE_MS} ms`)), STEP_DEADLINE_MS)
      this.#waiters.push({
        test,
        resolve: (at) => {
          clearTimeout(timer)
          resolve(at)
        },
      })
    })
  }

  write(line: string): void {
    this.proc.stdin!.write(`${line}\n`)
  }

  /** SIGTERM to its process group (SIGKILL after 10 s); resolves once it exited. */
  stop(): Promise<void> {
    if (this.#exited) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-this.proc.pid!, 'SIGKILL')
        } catch {}
        resolve()
      }, 10_000)
      this.proc.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      try {
        process.kill(-this.proc.pid!, 'SIGTERM')
      } catch {
        resolve()
      }
    })
  }
}

/** POST a text message to a bot as the relay would; resolves (performance.now()) when it answered 200. */
export function post(
  target: {port: number; path: string; secret: string},
  updateId: number,
  text = `u${updateId}`,
): Promise<number> {
  const body = JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: {id: 1111, type: 'private', first_name: 'T'},
      from: {id: 1111, is_bot: false, first_name: 'T'},
      text,
    },
  })
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-telegram-bot-api-secret-token': target.secret,
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now()) : reject(new Error(`bot answered ${res.statusCode}`)),
        )
      },
    )
    req.setTimeout(STEP_DEADLINE_MS, () => req.destroy(new Error('no answer')))
    req.on('error', reject)
    req.end(body)
  })
}

/** A test for a `bot dev --json` event line of this type (and `extra`). */
export const devEvent =
  (type: string, extra: (e: any) => boolean = () => true) =>
  (line: string): boolean => {
    if (!line.startsWith('{')) return false
    try {
      const e = JSON.parse(line)
      return e.type === type && extra(e)
    } catch {
      return false
    }
  }

let seq = 1000
/** A number not used before in this run (update ids, chat lines, saves). */
export const nextSeq = (): number => ++seq

/** "Save" a file: the same code, a new comment line at its end. */
export function save(file: string): void {
  writeFileSync(file, `${readFileSync(file, 'utf8').replace(/\n\/\/ saved \d+\n$/, '\n')}// saved ${nextSeq()}\n`)
}

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * Resolves once no process of the group `pgid` runs (polled; bounded): a bot run through `sh -c` has
 * the shell as its group leader, which is gone long before the bot itself. A zombie does not count:
 * tsx's esbuild child, orphaned when the bot exits, waits up to ~2 s for init to collect it here.
 */
export async function groupGone(pgid: number): Promise<void> {
  const deadline = performance.now() + STEP_DEADLINE_MS
  while (groupAlive(pgid)) {
    if (performance.now() > deadline) throw new Error(`process group ${pgid} still runs after ${STEP_DEADLINE_MS} ms`)
    await sleep(20)
  }
}

/** One restart of a `bot dev --json` session, timed (ms): the whole, and its stages. */
export interface DevRestart {
  /** save → the held chat line's reply printed. */
  total: number
  /** save → the restart event (file watcher + debounce). */
  detect: number
  /** restart event → the new bot spawned (stop-first: the old one stopped meanwhile). */
  spawn: number
  /** spawned → bot dev saw it listening. */
  listen: number
  /** Of which: spawned → the bot's own line that it runs, as bot dev printed it (`running`; NaN without). */
  ownLine: number
  /** listening → the held chat line answered (and printed). */
  answer: number
  /** The new bot's pid (its process group), and its spawn → listening as `bot dev` measured it. */
  pid: number
  listenMs: number
}

/**
 * Save `file` in the project of the session `dev` (`bot dev --offline --json`), send a chat line once
 * it says it restarts (the relay holds it), and wait for the bot's reply (`reply(text)`).
 */
export async function devRestart(
  dev: Child,
  file: string,
  reply: (text: string) => string,
  running?: RegExp,
): Promise<DevRestart> {
  const text = `r${nextSeq()}`
  let pid = 0
  let listenMs = 0
  const spawned = dev.next(
    devEvent('bot-start', (e) => {
      pid = e.pid
      return true
    }),
    'the new bot',
  )
  const restarted = dev.next(devEvent('restart'), 'the restart event')
  const listening = dev.next(
    devEvent('bot-listening', (e) => {
      listenMs = e.ms
      return true
    }),
    'the new bot listening',
  )
  const answered = dev.next(
    devEvent('chat', (e) => e.event?.type === 'bot' && e.event?.rendered?.text === reply(text)),
    'the reply',
  )
  const ownLine = running
    ? dev.next(
        devEvent('bot-output', (e) => running.test(e.line)),
        'the bot saying it runs',
      )
    : undefined
  const t0 = performance.now()
  save(file)
  const tRestart = await restarted
  dev.write(text) // while the bot restarts: the relay holds it
  const [tSpawn, tListen, tAnswer, tOwn] = await Promise.all([spawned, listening, answered, ownLine])
  return {
    total: tAnswer - t0,
    detect: tRestart - t0,
    spawn: tSpawn - tRestart,
    listen: tListen - tSpawn,
    ownLine: tOwn === undefined ? Number.NaN : tOwn - tSpawn,
    answer: tAnswer - tListen,
    pid,
    listenMs,
  }
}

/** Samples of each stage of DevRestart, one per round. */
export type Stages = {[K in keyof DevRestart]: number[]}

export function stages(): Stages {
  return {total: [], detect: [], spawn: [], listen: [], ownLine: [], answer: [], pid: [], listenMs: []}
}

export function record(into: Stages, r: DevRestart): void {
  for (const k of Object.keys(into) as Array<keyof DevRestart>) into[k].push(r[k])
}

export const ms = (x: number): string => `${x.toFixed(0).padStart(5)} ms`

/** The stage lines of a DevRestart's medians. */
export function stageLines(st: Stages, indent = '    '): string[] {
  return [
    `${indent}save → restart event (file watcher + debounce)              ${ms(median(st.detect))}`,
    `${indent}restart → new bot spawned (stop-first: the old one stopped)  ${ms(median(st.spawn))}`,
    `${indent}spawned → seen listening                                    ${ms(median(st.listen))}`,
    ...(st.ownLine.some((x) => !Number.isNaN(x))
      ? [`${indent}  of which spawned → the bot's own "running" line printed     ${ms(median(st.ownLine))}`]
      : []),
    `${indent}listening → held chat line answered (and printed)           ${ms(median(st.answer))}`,
  ]
}
