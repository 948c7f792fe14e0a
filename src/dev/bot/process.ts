/**
 * The user's bot as a child process (execa): the env contract (README, "The contract between `bot dev` and your bot"),
 * its output as lines, "listening" detection by polling a TCP connect to PORT (a poll at once when the bot's preload
 * says a server listens there, imports/listens.ts), and a stop that sends SIGTERM to the
 * whole process tree and SIGKILL after a grace period.
 *
 * The child runs in its own process group (detached), so a wrapper (sh, npm, tsx) and what it
 * starts are stopped together, and a terminal's Ctrl-C reaches the CLI only: the CLI decides the
 * order of teardown.
 */
import {createConnection} from 'node:net'
import {createInterface} from 'node:readline'
import {setTimeout as sleep} from 'node:timers/promises'

import {execa, type ResultPromise} from 'execa'

import {pathWith, type BotCommand} from './command.js'
import type {ListenSignals} from '../imports/listens.js'
import {BOT_MARKER_ENV, groupAlive} from '../../session-store/processes.js'

export type BotMode = 'webhook' | 'polling'

export interface BotEnvOptions {
  token: string
  apiRoot?: string // undefined when it is the default
  mode: BotMode
  port?: number
  webhookPath?: string
  webhookSecret?: string
  webhookUrl?: string
  marker?: string
}

const CONTRACT_VARS = ['BOT_TOKEN', 'BOT_API_ROOT', 'BOT_MODE', 'PORT', 'WEBHOOK_PATH', 'WEBHOOK_SECRET', 'WEBHOOK_URL']

/**
 * Settings of `bot` itself, not of the bot: never passed on. BOT_RESTORE_SECRET is a production
 * webhook's secret; the others are `bot dev`'s and `bot emulator`'s own settings.
 */
export const DEV_ONLY_VARS = [
  'BOT_RESTORE_SECRET',
  'BOT_EMULATOR_TOKEN',
  'BOT_EMULATOR_HOST',
  'BOT_EMULATOR_PORT',
  'BOT_TUNNEL',
  'BOT_TUNNEL_HOST',
  'BOT_TUNNEL_SUBDOMAIN',
  'BOT_PUBLIC_URL',
  'BOT_STATE_DIR',
  'BOT_NO_FAST_START',
  'BOT_DEV_RESTART',
]

/** The environment a bot gets from `bot dev` (README, "The contract between `bot dev` and your bot"). */
export function botEnv(options: BotEnvOptions, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...base}
  // Stale contract values from the shell or .env must not leak in (a PORT of the user's own is kept in polling mode).
  for (const name of CONTRACT_VARS) if (!(name === 'PORT' && options.mode === 'polling')) delete env[name]
  for (const name of DEV_ONLY_VARS) delete env[name]
  // tsx keeps its transpile cache in $TMPDIR/tsx-<uid>, a folder every user can read (0755): the
  // bot's code is not cached there (unless the user said otherwise).
  env.TSX_DISABLE_CACHE ??= '1'
  env.BOT_TOKEN = options.token
  if (options.apiRoot) env.BOT_API_ROOT = options.apiRoot
  env.BOT_MODE = options.mode
  if (options.mode === 'webhook') {
    if (options.port !== undefined) env.PORT = String(options.port)
    if (options.webhookPath) env.WEBHOOK_PATH = options.webhookPath
    if (options.webhookSecret) env.WEBHOOK_SECRET = options.webhookSecret
    if (options.webhookUrl) env.WEBHOOK_URL = options.webhookUrl
  }
  if (options.marker) env[BOT_MARKER_ENV] = options.marker
  keepLoopbackDirect(env)
  return env
}

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy']
const LOOPBACK = ['localhost', '127.0.0.1', '::1']

/**
 * With a proxy in the environment, the bot's calls to loopback (the relay, the emulator, the api
 * proxy of `bot dev`) must not go through it: a library that honours HTTPS_PROXY would otherwise
 * send them to the proxy. Loopback is added to NO_PROXY / no_proxy; nothing changes without a proxy.
 */
function keepLoopbackDirect(env: NodeJS.ProcessEnv): void {
  if (!PROXY_VARS.some((name) => env[name])) return
  for (const name of ['NO_PROXY', 'no_proxy']) {
    const have = (env[name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    if (have.includes('*')) continue
    env[name] = [...have, ...LOOPBACK.filter((host) => !have.includes(host))].join(',')
  }
}

export interface BotExit {
  code: number | null
  signal: string | null
  /** True when we asked it to stop. */
  expected: boolean
  /** How long it ran, ms. */
  ms: number
  /** Why it could not start at all (command not found…). */
  spawnError?: string
}

/** Is something accepting TCP connections on host:port? */
export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({host, port})
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

export interface StartOptions {
  command: BotCommand
  cwd: string
  env: NodeJS.ProcessEnv
  onOutput?: (stream: 'stdout' | 'stderr', line: string) => void
}

const isWindows = process.platform === 'win32'

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(isWindows ? pid : -pid, signal)
    return true
  } catch {
    return false
  }
}

/** "command not found: x" for ENOENT, else the last line of execa's message. */
function spawnFailure(message: string, file: string): string {
  if (/\bENOENT\b/.test(message)) return `command not found: ${file}`
  if (/\bEACCES\b/.test(message)) return `permission denied: ${file}`
  return message.trim().split('\n').at(-1) ?? message
}

/**
 * The pause between a wait's connect polls: `intervalMs` (20), or where the bot's servers are
 * reported (`signals` heard in this session) `reportedIntervalMs` (250). A bot starts for a second
 * or more beside this process on the same cores: a connect every 20 ms (refused, on both loopback
 * addresses) is CPU taken from that start; the report ends the wait, the polls only stand in for
 * one that does not come.
 */
export function pollPause(o: {intervalMs?: number; reportedIntervalMs?: number; signals?: ListenSignals}): number {
  const interval = o.intervalMs ?? 20
  return o.signals?.heard ? Math.max(interval, o.reportedIntervalMs ?? 250) : interval
}

/** One run of the bot. Create a new one for each (re)start. */
export class BotProcess {
  readonly pid: number
  readonly exited: Promise<BotExit>
  #child: ResultPromise
  #stopping = false
  #alive = true
  #started = performance.now()
  #onParentExit = () => {
    killGroup(this.pid, 'SIGKILL')
  }

  constructor(options: StartOptions) {
    const {command} = options
    const env = {...options.env, PATH: pathWith(command.pathPrepend, options.env.PATH)}
    this.#child = execa(command.file, command.args, {
      cwd: options.cwd,
      env,
      extendEnv: false,
      shell: command.shell,
      detached: !isWindows,
      stdin: 'ignore',
      buffer: false,
      reject: false,
      cleanup: true,
      windowsHide: true,
    })
    if (this.#child.pid === undefined) {
      // Spawn failed synchronously (e.g. ENOENT is reported through the promise); keep a fake pid.
      this.pid = -1
    } else this.pid = this.#child.pid
    process.once('exit', this.#onParentExit)

    for (const stream of ['stdout', 'stderr'] as const) {
      const readable = this.#child[stream]
      if (!readable) continue
      const rl = createInterface({input: readable, crlfDelay: Infinity})
      rl.on('line', (line) => options.onOutput?.(stream, line))
    }

    this.exited = this.#child.then(
      (result) =>
        this.#finish(
          result.exitCode ?? null,
          result.signal ?? null,
          result.failed && result.exitCode === undefined && !result.signal
            ? spawnFailure(result.shortMessage ?? '', command.file)
            : undefined,
        ),
      (error: Error) => this.#finish(null, null, error.message),
    )
  }

  #finish(code: number | null, signal: string | null, spawnError?: string): BotExit {
    this.#alive = false
    process.off('exit', this.#onParentExit)
    if (spawnError && code === null && signal === null) {
      // Could not start at all (command not found…): report as exit code 127 like a shell.
      return {
        code: 127,
        signal: null,
        expected: this.#stopping,
        ms: Math.round(performance.now() - this.#started),
        spawnError,
      }
    }
    return {code, signal, expected: this.#stopping, ms: Math.round(performance.now() - this.#started)}
  }

  get alive(): boolean {
    return this.#alive
  }

  get stopping(): boolean {
    return this.#stopping
  }

  /**
   * Resolve with the host that accepts connections on `port` once the bot listens (127.0.0.1 or
   * ::1), or undefined when the bot exits first or `signal` aborts. Polls a TCP connect (at once on a report in `signals`).
   */
  async waitListening(
    port: number,
    options: {
      signal?: AbortSignal
      intervalMs?: number
      /** The pause between polls once `signals` were heard in this session (pollPause). */
      reportedIntervalMs?: number
      slowAfterMs?: number
      onSlow?: () => void
      /** Reports of a server listening on a port (the bot's preload): one for `port` ends the pause between polls. */
      signals?: ListenSignals
    } = {},
  ): Promise<string | undefined> {
    const interval = pollPause(options)
    const slowAt = performance.now() + (options.slowAfterMs ?? 30_000)
    let warned = false
    let exited = false
    void this.exited.then(() => {
      exited = true
    })
    let reported = false
    let wake: (() => void) | undefined
    const off = options.signals?.on(port, () => {
      reported = true
      wake?.()
    })
    try {
      while (!exited && !options.signal?.aborted) {
        reported = false
        for (const host of ['127.0.0.1', '::1']) {
          if (await canConnect(host, port, 300)) return exited ? undefined : host
        }
        if (!warned && performance.now() > slowAt) {
          warned = true
          options.onSlow?.()
        }
        // A report that came during the connects: poll again at once.
        if (reported) continue
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, warned ? interval * 10 : interval)
          function done() {
            clearTimeout(timer)
            wake = undefined
            resolve()
          }
          wake = done
        })
      }
      return undefined
    } finally {
      off?.()
    }
  }

  /** SIGTERM to the process tree, SIGKILL after graceMs; resolves when it is gone. Idempotent. */
  async stop(graceMs = 3000): Promise<BotExit> {
    if (!this.#alive) return this.exited
    this.#stopping = true
    if (this.pid > 0) killGroup(this.pid, 'SIGTERM')
    const deadline = performance.now() + graceMs
    let timer: NodeJS.Timeout | undefined
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), graceMs)
      }),
    ])
    clearTimeout(timer)
    if (timedOut) killGroup(this.pid, 'SIGKILL')
    const result = await this.exited
    // Children left behind by a wrapper that exited first get the rest of the grace period.
    while (this.pid > 0 && groupAlive(this.pid) && performance.now() < deadline) await sleep(20)
    if (this.pid > 0 && groupAlive(this.pid)) killGroup(this.pid, 'SIGKILL')
    return result
  }

  /** Immediate SIGKILL of the tree (second Ctrl-C). */
  kill(): void {
    this.#stopping = true
    if (this.pid > 0) killGroup(this.pid, 'SIGKILL')
  }
}
