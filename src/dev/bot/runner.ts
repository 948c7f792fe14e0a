/**
 * The user's bot within a session: start it with the env contract, point the relay at it once
 * *its* process tree listens on PORT, restart it on file changes (the relay holds updates
 * meanwhile), report its exits, stop it at the end.
 *
 * A restart in webhook mode starts the new bot first (start-first.ts), on a fresh PORT, while the
 * old one still runs; once the new one listens the relay switches to it and the old one is stopped
 * (its updates in flight finish there; those that came meanwhile were held and go to the new
 * one). The bot's own shutdown is then no longer part of the wait. Stop, then start (the order
 * before) stays for polling mode, a PORT given with --port (a bot may listen there whatever PORT says), a bot that
 * was not listening on its PORT (it ignores PORT, or is not up), a new bot that does not listen on
 * the fresh port in time, and when asked (BOT_DEV_RESTART=stop-first). A new bot that exits
 * before it listens is the bot's crash, as after a stop-then-start: the old one is stopped too
 * (no older code keeps answering after a save) and the session waits for a fix.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import {linked} from '../../lib/deadline.js'
import {maskPath} from '../../lib/mask-url.js'
import {BotProcess, botEnv, type BotExit, type BotMode} from './process.js'
import {otherPortText, watchOtherPort} from './other-port.js'
import {StartFirst, type Queued, type Retiring, type RestartWay} from './start-first.js'
import type {BotCommand} from './command.js'
import type {LoadReports} from '../imports/imports.js'
import type {ListenSignals} from '../imports/listens.js'
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
  /**
   * The bot's own reports that a server of it listens (imports/listens.ts, through its preload):
   * the wait for PORT ends at the report instead of the next connect poll. Without: polls only.
   */
  listenSignals?: ListenSignals
  /**
   * Which project files each bot process loaded since its start (imports/imports.ts, through its
   * preload): more files of the same save that the newest bot has not loaded yet need no restart
   * (it reads them as they are now). Without: such files replace it, as any change.
   */
  loads?: LoadReports
  /**
   * How a restart in webhook mode goes: 'start-first' (the new bot on a fresh PORT, then the old one
   * stopped) unless the port is fixed (--port) or this is 'stop-first'. Default 'start-first'.
   */
  restartOrder?: RestartOrder
  /** The port was given (--port): restarts keep it, so they stop the old bot first. */
  portFixed?: boolean
  /** A fresh port for a new bot started beside the old one (default: lib/free-port.ts freePort). */
  freshPort?: () => Promise<number>
  /**
   * How long a new bot started beside the old one gets to listen on its fresh port before the
   * restart falls back to stop, then start (at least this; longer when the bot's last start was
   * slow: 3 times that). Default 10000.
   */
  overlapTimeoutMs?: number
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

export type RestartOrder = 'start-first' | 'stop-first'

export type {RestartWay} from './start-first.js'

export class BotRunner {
  readonly #options: BotRunnerOptions
  #bot: BotProcess | undefined
  lastExit: BotExit | undefined
  crashed = false
  restarts = 0
  #restarting: Promise<void> | undefined
  /**
   * What asked for a restart while one ran: done next (coalesced). `sameSave`: only files of the
   * save being restarted for, changed after its first file (a bot started after them has them).
   */
  #queued: Queued | undefined
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
  /** The current bot's PORT (webhook mode): a restart started first gets a fresh one. */
  #port: number
  /** Bots other than the current one still running: a new one starting beside it, old ones stopping. */
  readonly #others = new Set<BotProcess>()
  /** Every bot process started and not exited yet, oldest first (recorded in the session state). */
  readonly #running = new Set<BotProcess>()
  /** The restart under way: when it began (performance.now()). */
  #restartStarted: number | undefined
  /** The newest bot started (its output lines are the ones kept), and when each was started. */
  #newest: BotProcess | undefined
  readonly #spawnedAt = new WeakMap<BotProcess, number>()
  /** Where the report of loaded files stood when each bot was started (LoadReports.mark). */
  readonly #loadMarks = new WeakMap<BotProcess, number>()
  /** Bots whose exit was handled (a restart started first may come to one's exit after it was told). */
  readonly #reported = new WeakSet<BotProcess>()
  /** How long the current bot took from spawn to listening (the new bot's deadline scales with it). */
  #lastStartMs = 0
  /** The restart that starts the new bot first (start-first.ts). */
  readonly #startFirst: StartFirst
  /** Every output line of every run of the bot, the newest OUTPUT_KEPT (stack frames too). */
  readonly #output: Array<{time: string; stream: 'stdout' | 'stderr'; line: string; pid?: number}> = []

  constructor(options: BotRunnerOptions) {
    this.#options = options
    this.#mode = options.mode
    this.#port = options.port
    this.#startFirst = new StartFirst(
      {
        emit: options.emit,
        stopGraceMs: options.stopGraceMs,
        signal: options.signal,
        overlapTimeoutMs: options.overlapTimeoutMs,
        closed: () => this.#closed,
        mode: () => this.#mode,
        current: () => this.#bot,
        lastStartMs: () => this.#lastStartMs,
        others: this.#others,
        hold: () => {
          this.#listenWait?.abort()
          options.relay?.setTarget(undefined)
        },
        waitingFor: (wait) => {
          this.#listenWait = wait
        },
        spawn: (port) => this.#spawn(port),
        listening: (bot, port, signal) => this.#listening(bot, port, signal, false),
        adopt: (bot, port) => this.#adopt(bot, port),
        serve: (bot, host) => this.#serve(bot, host),
        isUp: () => this.#isUp(),
        exited: (bot, exit) => this.#exited(bot, exit),
        takeQueued: () => this.#takeQueued(),
        announce: (files, why, order) => this.#announce(files, why, order),
        stop: () => this.stop(),
        launch: () => this.launch(),
      },
      options.freshPort,
    )
  }

  /** The current bot's PORT (webhook mode). */
  get port(): number {
    return this.#port
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
    const bot = this.#spawn(this.#port)
    this.#adopt(bot, this.#port)
    if (this.#mode === 'webhook') void this.#waitListening(bot)
    else this.#isUp()
    return bot
  }

  /** Start a bot process (on `port` in webhook mode) and say so; `#adopt` makes it the current one. */
  #spawn(port: number): BotProcess {
    const o = this.#options
    const mode = this.#mode
    const env = {
      ...botEnv({
        token: o.token,
        apiRoot: o.apiRoot,
        mode,
        port,
        webhookPath: o.path,
        webhookSecret: o.secret,
        webhookUrl: o.webhookUrl(),
        marker: o.marker,
      }),
      ...o.env,
    }
    let self: BotProcess | undefined
    // Before the spawn: whatever is reported from now on may come from this bot.
    const mark = o.loads?.mark()
    const bot = new BotProcess({
      command: o.command,
      cwd: o.cwd,
      env,
      onOutput: (stream, raw) => {
        const line = hideSessionSecrets(raw, o.secret, o.path)
        // The last lines kept are the newest bot's (not an old one's shutdown after a restart).
        if (self === this.#newest) {
          this.#lastLines.push(line)
          if (this.#lastLines.length > KEPT_LINES) this.#lastLines.shift()
        }
        const pid = self?.pid
        this.#output.push({time: new Date().toISOString(), stream, line, ...(pid && pid > 0 ? {pid} : {})})
        if (this.#output.length > OUTPUT_KEPT) this.#output.shift()
        o.emit({type: 'bot-output', stream, line, text: line})
      },
    })
    self = bot
    this.#newest = bot
    this.#spawnedAt.set(bot, performance.now())
    if (mark !== undefined) this.#loadMarks.set(bot, mark)
    this.#lastLines.length = 0
    this.#running.add(bot)
    this.#recordRunning()
    o.emit({
      type: 'bot-start',
      pid: bot.pid,
      mode,
      command: o.command.display,
      text: `▶ ${o.command.display} (${bot.pid > 0 ? `pid ${bot.pid}, ` : ''}${mode === 'webhook' ? `webhook mode, PORT=${port}` : 'long polling'})`,
    })
    void bot.exited.then((exit) => {
      this.#running.delete(bot)
      // Once the session is stopping its state file is removed at the end: a late write would bring it back.
      if (!o.signal.aborted && !this.#closed) {
        try {
          this.#recordRunning()
        } catch {
          // The state folder went bad meanwhile: the record stays as it was (a repair checks each pid's marker).
        }
      }
      this.#exited(bot, exit)
    })
    return bot
  }

  /**
   * Record every bot process still running in the session state: the newest as `bot`, the rest as
   * `others` (an old one stopping, or a new one starting beside it), so the next `bot dev` stops
   * each when this one is killed with SIGKILL meanwhile.
   */
  #recordRunning(): void {
    const o = this.#options
    const procs = [...this.#running].filter((b) => b.pid > 0).map((b) => ({pid: b.pid, marker: o.marker}))
    o.saveState({bot: procs.at(-1), others: procs.length > 1 ? procs.slice(0, -1) : undefined})
  }

  /** `bot`, listening (or to listen) on `port`, is the current bot from now on. */
  #adopt(bot: BotProcess, port: number): void {
    this.#bot = bot
    this.#port = port
    this.#others.delete(bot)
    this.#launchedAt = this.#spawnedAt.get(bot) ?? performance.now()
    this.#up = false
    this.crashed = false
  }

  /** Wait until the bot's own process tree listens on PORT, then point the relay at it. */
  async #waitListening(bot: BotProcess): Promise<void> {
    this.#listenWait?.abort()
    const wait = new AbortController()
    this.#listenWait = wait
    // (AbortSignal.any holds its sources weakly on Node 20: see lib/deadline.ts.)
    const link = linked(this.#options.signal, wait.signal)
    // Meanwhile: does it listen on another port than PORT? (other-port.ts)
    const other = new AbortController()
    const o = this.#options
    if (bot.pid > 0)
      void watchOtherPort({
        pgid: bot.pid,
        port: this.#port,
        signal: other.signal,
        onOtherPort: (ports) => {
          if (this.#bot === bot && bot.alive && !link.signal.aborted)
            o.emit({type: 'warn', ...otherPortText(ports, this.#port)})
        },
      })
    try {
      const host = await this.#listening(bot, this.#port, link.signal, true)
      if (!host || this.#bot !== bot || !bot.alive || bot.stopping || wait.signal.aborted) return
      this.#serve(bot, host)
    } finally {
      other.abort()
      link.clear()
    }
  }

  /**
   * The host once `bot`'s own process tree listens on `port` (127.0.0.1 or ::1); undefined when it
   * exits first or `signal` aborts. Another program answering there is named once; `warnSlow`: a
   * bot slow to open it too.
   */
  async #listening(bot: BotProcess, port: number, signal: AbortSignal, warnSlow: boolean): Promise<string | undefined> {
    const o = this.#options
    // The processes that said they listen on the port: their sockets are looked at first.
    const reporters = new Set<number>()
    const off = o.listenSignals?.on(port, (pid) => {
      if (reporters.size < 16) reporters.add(pid)
    })
    try {
      return await this.#listeningOwned(bot, port, signal, warnSlow, reporters)
    } finally {
      off?.()
    }
  }

  /** #listening's loop: `reporters`, the pids that said they listen on `port`, filled meanwhile. */
  async #listeningOwned(
    bot: BotProcess,
    port: number,
    signal: AbortSignal,
    warnSlow: boolean,
    reporters: Set<number>,
  ): Promise<string | undefined> {
    const o = this.#options
    let warnedForeign = false
    for (;;) {
      const host = await bot.waitListening(port, {
        signal,
        signals: o.listenSignals,
        slowAfterMs: warnSlow ? o.slowStartMs : Number.POSITIVE_INFINITY,
        onSlow: () =>
          o.emit({
            type: 'warn',
            text: `The bot has not opened port ${port} after ${Math.round((o.slowStartMs ?? 30_000) / 1000)}s; updates are being held.`,
            fix: 'In webhook mode the bot must serve POST process.env.WEBHOOK_PATH on process.env.PORT (see `bot dev --help`).',
          }),
      })
      if (!host || !bot.alive || bot.stopping || signal.aborted) return undefined
      const {owner, pids} = listenerOwner(port, bot.pid, [...reporters])
      if (owner !== 'foreign') return host
      if (!warnedForeign) {
        warnedForeign = true
        const who = pids.map((pid) => `pid ${pid}${commandOf(pid) ? ` (${commandOf(pid)})` : ''}`).join(', ')
        o.emit({
          type: 'warn',
          text: `Port ${port} is answered by another program (${who}), not by your bot; updates are held and never sent there.`,
          fix: `Stop that program or run \`bot dev\` without --port (a free port is chosen).`,
        })
      }
      await sleep(200)
      if (signal.aborted) return undefined
    }
  }

  /** The current bot listens: the relay sends to it (held updates first), and the session hears so. */
  #serve(bot: BotProcess, host: string): void {
    const o = this.#options
    const port = this.#port
    o.relay?.setTarget({host, port, path: o.path})
    const now = performance.now()
    const ms = Math.round(now - (this.#spawnedAt.get(bot) ?? now))
    this.#lastStartMs = ms
    this.#startFirst.served(() => this.#mode === 'webhook' && o.restartOrder !== 'stop-first' && !o.portFixed)
    const restartMs = this.#restartStarted === undefined ? undefined : Math.round(now - this.#restartStarted)
    this.#restartStarted = undefined
    o.emit({
      type: 'bot-listening',
      port,
      host,
      ms,
      ...(restartMs === undefined ? {} : {restartMs}),
      text: `✓ Bot listening on port ${port} (${ms} ms${restartMs === undefined ? '' : `; restarted in ${restartMs} ms`})`,
    })
    this.#isUp()
  }

  #exited(bot: BotProcess, exit: BotExit): void {
    this.#others.delete(bot)
    // An old bot that exits while its successor starts beside it is no news: it was on its way out.
    if (bot !== this.#bot || bot === this.#startFirst.replacing || this.#reported.has(bot)) return
    this.#reported.add(bot)
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

  /** Stop the bot, and any other still running (a new one starting beside it, an old one stopping). */
  async stop(): Promise<void> {
    const bot = this.#bot
    this.#options.relay?.setTarget(undefined)
    const grace = this.#options.stopGraceMs
    const others = Promise.all([...this.#others].filter((b) => b !== bot).map((b) => b.stop(grace)))
    if (!bot) {
      await others
      return
    }
    const exit = await bot.stop(grace)
    await others
    if (bot === this.#bot) this.lastExit = this.lastExit && !bot.alive && !exit.expected ? this.lastExit : exit
  }

  /** No more restarts (teardown). */
  close(): void {
    this.#closed = true
    this.#startFirst.close()
  }

  /**
   * Restart the bot: files changed (`files`), or someone asked (`why`, the line to show). A request
   * while a restart runs is coalesced: it supersedes a new bot that is not listening yet, else it
   * restarts once more when this one is done. `sameSave`: the files changed in the same save as
   * the restart before (watch.ts starts it at the save's first file event): a bot started before
   * them is replaced, without a second restart line, and one started after them already has them.
   */
  async restart(files: string[], why?: string, sameSave = false): Promise<void> {
    if (this.#closed) return
    // More files of the same save that the newest bot has not loaded yet: it reads them as they are now.
    if (sameSave && this.#notLoadedYet(files)) return this.#restarting
    if (this.#restarting) {
      const queued = this.#queued
      this.#queued = {
        files: [...(queued?.files ?? []), ...files],
        why: why ?? queued?.why,
        sameSave: sameSave && (queued?.sameSave ?? true),
      }
      this.#startFirst.supersede()
      return this.#restarting
    }
    // The restart is under way until the new bot serves; the old one's stop after a start-first
    // restart goes on beside whatever comes next (a save meanwhile does not wait for that shutdown).
    let retiring: Promise<void> | undefined
    this.#restarting = this.#restartNow(files, why, sameSave).then((done) => {
      retiring = done?.retiring
    })
    try {
      await this.#restarting
    } finally {
      this.#restarting = undefined
    }
    const queued = this.#queued
    this.#queued = undefined
    const next = queued && !this.#closed ? this.restart(queued.files, queued.why, queued.sameSave) : undefined
    await Promise.all([retiring, next])
  }

  /**
   * Whether the newest bot (started, not stopping) has loaded none of `files` since its start, each
   * a module of the bot (reported before): a file it loads later it reads as it is then.
   */
  #notLoadedYet(files: string[]): boolean {
    const loads = this.#options.loads
    const bot = this.#newest
    const mark = bot && this.#loadMarks.get(bot)
    if (!loads || !bot || mark === undefined || !bot.alive || bot.stopping || files.length === 0) return false
    return files.every((file) => !loads.loadedSince(mark, file))
  }

  /** What was asked for while a restart ran, taken (to be done by the restart under way). */
  #takeQueued(): Queued | undefined {
    const queued = this.#queued
    this.#queued = undefined
    return queued
  }

  /** A bot is spawned now: it reads the files of the save as they are, so changes of that save queued before need nothing more. */
  #spawnCoversQueued(): void {
    if (this.#queued?.sameSave) this.#queued = undefined
  }

  /** A restart may start the new bot first: webhook mode, with a relay, on ports the session picks. */
  #mayStartFirst(): boolean {
    const o = this.#options
    return (
      this.#mode === 'webhook' &&
      o.relay !== undefined &&
      o.restartOrder !== 'stop-first' &&
      !o.portFixed &&
      !this.#startFirst.stopFirst
    )
  }

  /** Start first when the bot honours a PORT the session picks; else stop, then start. */
  #startsFirst(): boolean {
    const bot = this.#bot
    return this.#mayStartFirst() && bot !== undefined && bot.alive && !bot.stopping && this.#up
  }

  #announce(files: string[], why: string | undefined, order: RestartWay): void {
    const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '')
    this.#options.emit({
      type: 'restart',
      files,
      order,
      text:
        files.length > 0
          ? `↻ ${shown} changed; restarting the bot (updates are held meanwhile)`
          : (why ?? '↻ Restarting the bot (updates are held meanwhile)'),
    })
    this.restarts++
    this.#restartStarted = performance.now()
  }

  /**
   * Restart; resolves once the new bot serves (or is down), with the old one's stop when that still
   * runs. `quiet`: the same save as the restart before, said then (no second restart line).
   */
  async #restartNow(files: string[], why: string | undefined, quiet: boolean): Promise<Retiring | undefined> {
    if (this.#startsFirst()) {
      if (!quiet) this.#announce(files, why, 'start-first')
      return this.#startFirst.run(this.#bot!, this.#port)
    }
    if (!quiet) this.#announce(files, why, 'stop-first')
    await this.stop()
    if (this.#closed) return
    this.#spawnCoversQueued()
    this.launch()
    return undefined
  }

  /** Kill every bot process at once (second Ctrl-C). */
  kill(): void {
    this.#bot?.kill()
    for (const bot of this.#others) bot.kill()
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
