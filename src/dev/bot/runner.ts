/**
 * The user's bot within a session: start it with the env contract, point the relay at it once
 * *its* process tree listens on PORT, restart it on file changes (the relay holds updates
 * meanwhile), report its exits, stop it at the end.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import {linked} from '../../lib/deadline.js'
import {maskPath} from '../../lib/mask-url.js'
import {BotProcess, botEnv, type BotExit, type BotMode} from './process.js'
import type {BotCommand} from './command.js'
import type {DevEventSink} from '../events.js'
import {commandOf, listenerOwner} from '../../session-store/proc-net.js'
import type {Relay} from '../relay/relay.js'
import type {SessionState} from '../../session-store/state.js'

/** Output lines of the bot kept (the last ones), and how many of them are shown again when it ends a session early. */
const KEPT_LINES = 60
const LAST_LINES = 8

/** Output lines kept for `bot mcp`'s bot_output, across restarts (the newest). */
const OUTPUT_KEPT = 500

/** Lines of a crash that say nothing about its cause: stack frames, Node's version footer, blank lines. */
const NOISE = /^\s*$|^\s+at\s|^Node\.js v\d/

export interface BotRunnerOptions {
  command: BotCommand
  cwd: string
  token: string
  /** BOT_API_ROOT, or undefined for the default. */
  apiRoot?: string
  env?: Record<string, string>
  mode: BotMode
  port: number
  path: string
  secret: string
  marker: string
  relay?: Relay
  stopGraceMs: number
  slowStartMs?: number
  signal: AbortSignal
  emit: DevEventSink
  saveState: (patch: Partial<SessionState>) => void
  /** The public webhook URL to show the bot (WEBHOOK_URL). */
  webhookUrl: () => string | undefined
  /** The bot listens (webhook mode) or was started (polling). */
  onUp: () => void
  /** An unexpected exit (not one we asked for). */
  onExit: (exit: BotExit) => void
}

export class BotRunner {
  readonly #options: BotRunnerOptions
  #bot: BotProcess | undefined
  lastExit: BotExit | undefined
  crashed = false
  restarts = 0
  #restarting: Promise<void> | undefined
  #queued: string[] | undefined
  #closed = false
  /** How the bot runs now: a webhook session switches to polling when the bot polls by itself. */
  #mode: BotMode
  /** Ends the wait for the current bot to listen on PORT. */
  #listenWait: AbortController | undefined
  /** When the current bot was started (performance.now()), and whether it was up since. */
  #launchedAt = 0
  #up = false
  /** The bot's last output lines (shown again when it ends the session early). */
  readonly #lastLines: string[] = []
  /** Every output line of every run of the bot, the newest OUTPUT_KEPT (stack frames too). */
  readonly #output: Array<{time: string; stream: 'stdout' | 'stderr'; line: string; pid?: number}> = []

  constructor(options: BotRunnerOptions) {
    this.#options = options
    this.#mode = options.mode
  }

  /**
   * The bot polls for updates itself: it is up without listening on PORT, and a restart starts it
   * as in polling mode (the contract of `--mode polling`).
   */
  switchToPolling(): void {
    if (this.#mode === 'polling') return
    this.#mode = 'polling'
    this.#listenWait?.abort()
    this.#options.relay?.setTarget(undefined)
    if (this.#bot?.alive && !this.#bot.stopping) this.#isUp()
  }

  #isUp(): void {
    this.#up = true
    this.#options.onUp()
  }

  get bot(): BotProcess | undefined {
    return this.#bot
  }

  /**
   * Why no bot is there to take an update, when it exited by itself and waits for a fix (a file
   * change or `r`): "The bot exited with code 3". Undefined while it runs, (re)starts or stops.
   */
  downReason(): string | undefined {
    const bot = this.#bot
    const exit = this.lastExit
    if (!bot || bot.alive || this.#restarting || this.#closed || !exit || exit.expected) return undefined
    if (exit.spawnError) return `The bot could not start (${exit.spawnError})`
    return `The bot ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}`
  }

  /** The current bot exited before it was up, or within `ms` of its (re)start. */
  exitedEarly(ms: number): boolean {
    return !this.#up || performance.now() - this.#launchedAt < ms
  }

  /** The bot's last telling output lines, oldest first (stack frames left out; at most LAST_LINES). */
  get lastLines(): string[] {
    return this.#lastLines.filter((l) => !NOISE.test(l)).slice(-LAST_LINES)
  }

  /** The bot's newest `limit` output lines of all its runs, oldest first, with their time, stream and process. */
  output(limit: number): Array<{time: string; stream: 'stdout' | 'stderr'; line: string; pid?: number}> {
    return this.#output.slice(-limit)
  }

  launch(): BotProcess {
    const o = this.#options
    const mode = this.#mode
    const env = {
      ...botEnv({
        token: o.token,
        apiRoot: o.apiRoot,
        mode,
        port: o.port,
        webhookPath: o.path,
        webhookSecret: o.secret,
        webhookUrl: o.webhookUrl(),
        marker: o.marker,
      }),
      ...o.env,
    }
    const bot = new BotProcess({
      command: o.command,
      cwd: o.cwd,
      env,
      onOutput: (stream, raw) => {
        const line = hideSessionSecrets(raw, o.secret, o.path)
        this.#lastLines.push(line)
        if (this.#lastLines.length > KEPT_LINES) this.#lastLines.shift()
        const pid = this.#bot?.pid
        this.#output.push({time: new Date().toISOString(), stream, line, ...(pid && pid > 0 ? {pid} : {})})
        if (this.#output.length > OUTPUT_KEPT) this.#output.shift()
        o.emit({type: 'bot-output', stream, line, text: line})
      },
    })
    this.#bot = bot
    this.#launchedAt = performance.now()
    this.#up = false
    this.#lastLines.length = 0
    this.crashed = false
    o.saveState({bot: bot.pid > 0 ? {pid: bot.pid, marker: o.marker} : undefined})
    o.emit({
      type: 'bot-start',
      pid: bot.pid,
      mode,
      command: o.command.display,
      text: `▶ ${o.command.display} (${bot.pid > 0 ? `pid ${bot.pid}, ` : ''}${mode === 'webhook' ? `webhook mode, PORT=${o.port}` : 'long polling'})`,
    })
    void bot.exited.then((exit) => this.#exited(bot, exit))
    if (mode === 'webhook') void this.#waitListening(bot)
    else this.#isUp()
    return bot
  }

  /** Wait until the bot's own process tree listens on PORT, then point the relay at it. */
  async #waitListening(bot: BotProcess): Promise<void> {
    const started = performance.now()
    this.#listenWait?.abort()
    const wait = new AbortController()
    this.#listenWait = wait
    // (AbortSignal.any holds its sources weakly on Node 20: see lib/deadline.ts.)
    const link = linked(this.#options.signal, wait.signal)
    try {
      await this.#listenLoop(bot, link.signal, wait.signal, started)
    } finally {
      link.clear()
    }
  }

  async #listenLoop(bot: BotProcess, signal: AbortSignal, ended: AbortSignal, started: number): Promise<void> {
    const o = this.#options
    let warnedForeign = false
    for (;;) {
      const host = await bot.waitListening(o.port, {
        signal,
        slowAfterMs: o.slowStartMs,
        onSlow: () =>
          o.emit({
            type: 'warn',
            text: `The bot has not opened port ${o.port} after ${Math.round((o.slowStartMs ?? 30_000) / 1000)}s; updates are being held.`,
            fix: 'In webhook mode the bot must serve POST process.env.WEBHOOK_PATH on process.env.PORT (see `bot dev --help`).',
          }),
      })
      if (!host || this.#bot !== bot || !bot.alive || bot.stopping || ended.aborted) return
      const {owner, pids} = listenerOwner(o.port, bot.pid)
      if (owner !== 'foreign') {
        o.relay?.setTarget({host, port: o.port, path: o.path})
        const ms = Math.round(performance.now() - started)
        o.emit({type: 'bot-listening', port: o.port, host, ms, text: `✓ Bot listening on port ${o.port} (${ms} ms)`})
        this.#isUp()
        return
      }
      if (!warnedForeign) {
        warnedForeign = true
        const who = pids.map((pid) => `pid ${pid}${commandOf(pid) ? ` (${commandOf(pid)})` : ''}`).join(', ')
        o.emit({
          type: 'warn',
          text: `Port ${o.port} is answered by another program (${who}), not by your bot; updates are held and never sent there.`,
          fix: `Stop that program or run \`bot dev\` without --port (a free port is chosen).`,
        })
      }
      await sleep(200)
      if (signal.aborted) return
    }
  }

  #exited(bot: BotProcess, exit: BotExit): void {
    if (bot !== this.#bot) return
    this.#options.relay?.setTarget(undefined)
    this.lastExit = exit
    if (exit.expected) return
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`
    this.crashed = exit.code !== 0
    const text = exit.spawnError
      ? `✗ Could not start the bot (${this.#options.command.display}): ${exit.spawnError}.`
      : `${this.crashed ? '✗' : '■'} The bot ${how}${exit.code === 127 ? ' (command not found?)' : ''}.`
    this.#options.emit({type: 'bot-exit', code: exit.code, signal: exit.signal, crashed: this.crashed, text})
    this.#options.onExit(exit)
  }

  async stop(): Promise<void> {
    const bot = this.#bot
    if (!bot) return
    this.#options.relay?.setTarget(undefined)
    const exit = await bot.stop(this.#options.stopGraceMs)
    if (bot === this.#bot) this.lastExit = this.lastExit && !bot.alive && !exit.expected ? this.lastExit : exit
  }

  /** No more restarts (teardown). */
  close(): void {
    this.#closed = true
  }

  async restart(files: string[], why?: string): Promise<void> {
    if (this.#closed) return
    if (this.#restarting) {
      this.#queued = [...(this.#queued ?? []), ...files]
      return this.#restarting
    }
    this.#restarting = (async () => {
      const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '')
      this.#options.emit({
        type: 'restart',
        files,
        text: why ?? `↻ ${shown} changed; restarting the bot (updates are held meanwhile)`,
      })
      this.restarts++
      await this.stop()
      if (this.#closed) return
      this.launch()
    })()
    try {
      await this.#restarting
    } finally {
      this.#restarting = undefined
    }
    const queued = this.#queued
    this.#queued = undefined
    if (queued && !this.#closed) await this.restart(queued)
  }

  kill(): void {
    this.#bot?.kill()
  }
}

/** What stands for the session's webhook secret in the bot's output lines. */
export const SECRET_BLANK = '<secret>'

/**
 * A line of the bot's output with the session's webhook secret blanked and its webhook path masked
 * (`/webhook/DYQg…`, as every webhook URL is shown): a bot that logs its WEBHOOK_SECRET or
 * WEBHOOK_PATH (or the URL built from them) would otherwise put them in the session's log and
 * `--json` for anyone the output is pasted to. The token is blanked where the line is printed.
 */
export function hideSessionSecrets(line: string, secret: string, path: string): string {
  let out = line
  if (secret.length >= 8) out = out.split(secret).join(SECRET_BLANK)
  const random = path.slice(path.lastIndexOf('/') + 1)
  if (random.length >= 8) {
    const masked = maskPath(path)
    out = out
      .split(path)
      .join(masked)
      .split(random)
      .join(masked.slice(masked.lastIndexOf('/') + 1))
  }
  return out
}
