/**
 * A restart in webhook mode that starts the new bot first (runner.ts): the new bot on a fresh PORT
 * beside the old one, the relay switched to it once it listens, then the old one stopped (its
 * updates in flight finish there; those that came meanwhile were held and go to the new one). A
 * save meanwhile supersedes a new bot that does not listen yet; a new bot that does not listen on
 * its fresh port in time makes the runner stop, then start, from then on; one that exits before
 * it listens crashed at start. The fresh port is picked ahead, soon after the bot serves.
 *
 * What it does to the runner's bots it asks of the runner (StartFirstRunner): the runner owns the
 * current bot, the others still running, the relay and the session's events.
 */
import {linked} from '../../lib/deadline.js'
import {freePort, probePort} from '../../lib/free-port.js'
import type {BotExit, BotMode, BotProcess} from './process.js'
import type {DevEventSink} from '../events.js'

/** How long after the bot serves the next restart's fresh port is picked (see PortAhead). */
const PICK_AHEAD_DELAY_MS = 200

/** What a restart did: the new bot started beside the old one, or the old one stopped first. */
export type RestartWay = 'start-first' | 'stop-first'

/** A restart asked for while one ran. */
export interface Queued {
  files: string[]
  why: string | undefined
  sameSave: boolean
}

/** The old bot's stop after a restart started first, still under way when the new bot serves. */
export interface Retiring {
  retiring: Promise<void>
}

/** What the start-first restart asks of the runner (its bots, its relay, its events). */
export interface StartFirstRunner {
  readonly emit: DevEventSink
  readonly stopGraceMs: number
  /** The session's end. */
  readonly signal: AbortSignal
  /** How long a new bot gets to listen on its fresh port (at least; see newBotListens). */
  readonly overlapTimeoutMs: number | undefined
  /** No more restarts (teardown). */
  closed(): boolean
  mode(): BotMode
  /** The current bot, and how long it took from spawn to listening. */
  current(): BotProcess | undefined
  lastStartMs(): number
  /** Bots other than the current one still running (a new one starting beside it, old ones stopping). */
  readonly others: Set<BotProcess>
  /** The relay holds new updates (and the wait for the current bot to listen ends). */
  hold(): void
  /** This wait for a bot to listen is the runner's current one (a switch to polling ends it). */
  waitingFor(wait: AbortController): void
  /** Start a bot on `port` (not yet the current one). */
  spawn(port: number): BotProcess
  /** The host once `bot`'s own process tree listens on `port`; undefined when it exits first or `signal` aborts. */
  listening(bot: BotProcess, port: number, signal: AbortSignal): Promise<string | undefined>
  /** `bot`, listening on `port`, is the current bot from now on. */
  adopt(bot: BotProcess, port: number): void
  /** The current bot listens on `host`: the relay sends to it. */
  serve(bot: BotProcess, host: string): void
  /** The current bot is up without listening (it polls by itself). */
  isUp(): void
  /** The current bot exited: said as the runner says an exit. */
  exited(bot: BotProcess, exit: BotExit): void
  /** What was asked for while a restart ran, taken (to be done by the restart under way). */
  takeQueued(): Queued | undefined
  /** The restart line. */
  announce(files: string[], why: string | undefined, order: RestartWay): void
  /** Stop every bot; launch one the usual way. */
  stop(): Promise<void>
  launch(): BotProcess
}

type NewBotOutcome =
  | {kind: 'listening'; host: string}
  | {kind: 'exited' | 'superseded' | 'polling' | 'closed'}
  | {kind: 'timeout'; ms: number}

/**
 * The next start-first restart's fresh port, picked soon after the bot serves: a pick probes every
 * local address (lib/free-port.ts), tens of ms on a loaded machine, which would otherwise come before
 * the new bot's spawn. Checked again (one bind on loopback) when it is used.
 */
class PortAhead {
  #next: Promise<number | undefined> | undefined
  /** The pick ahead waits this long after the bot serves: the held updates go to it first. */
  #timer: NodeJS.Timeout | undefined

  constructor(readonly pick: () => Promise<number>) {}

  /** The bot serves: pick the next port in a moment, when `wanted()` then. */
  schedule(wanted: () => boolean): void {
    // Once the held updates are on their way: the pick's probes would otherwise run beside their delivery.
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      try {
        if (!this.#next && wanted()) this.#next = this.pick().catch(() => undefined)
      } catch {
        // picked at the next restart instead
      }
    }, PICK_AHEAD_DELAY_MS)
    this.#timer.unref()
  }

  /** A fresh port for a new bot (not `current`): the one picked ahead when it is still free, else a new pick. */
  async take(current: number): Promise<number> {
    if (this.#timer) {
      // Restarted before the pick ahead: picked now.
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    const ahead = this.#next
    this.#next = undefined
    const port = await ahead
    if (port !== undefined && port !== current && (await probePort(port)) === undefined) return port
    return this.pick()
  }

  close(): void {
    clearTimeout(this.#timer)
  }
}

export class StartFirst {
  readonly #r: StartFirstRunner
  readonly #ports: PortAhead
  /** The bot a restart under way replaces (its exit then is no news). */
  #replacing: BotProcess | undefined
  /** A later save that supersedes the new bot of the restart under way. */
  #superseded: AbortController | undefined
  /** A restart started first did not work out (the bot did not listen on a fresh port): stop first from now on. */
  #stopFirst = false

  /** `freshPort`: a fresh port for a new bot started beside the old one (default: lib/free-port.ts freePort). */
  constructor(runner: StartFirstRunner, freshPort?: () => Promise<number>) {
    this.#r = runner
    this.#ports = new PortAhead(freshPort ?? freePort)
  }

  /** A restart started first did not work out: restarts stop the old bot first from now on. */
  get stopFirst(): boolean {
    return this.#stopFirst
  }

  /** The bot the restart under way replaces. */
  get replacing(): BotProcess | undefined {
    return this.#replacing
  }

  /** A save came while the new bot starts: it runs outdated code, the next takes its place. */
  supersede(): void {
    this.#superseded?.abort()
  }

  /** The current bot serves: the next restart's fresh port is picked in a moment, when `wanted()` then. */
  served(wanted: () => boolean): void {
    this.#ports.schedule(() => wanted() && !this.#stopFirst)
  }

  close(): void {
    this.#ports.close()
  }

  /**
   * The new bot on a fresh PORT beside the old one (`old`, `port`: the current bot and its PORT); the
   * relay holds new updates until it listens (those in flight at the old bot finish there), then sends
   * to it, and the old one is stopped: resolves once the new bot serves, with the old one's stop (which
   * a next restart does not wait for: it takes the template's shutdown, a second or more).
   */
  async run(old: BotProcess, port: number): Promise<Retiring | undefined> {
    const r = this.#r
    this.#replacing = old
    r.hold()
    try {
      for (;;) {
        const fresh = await this.#ports.take(port)
        if (r.closed()) return
        const superseded = new AbortController()
        this.#superseded = superseded
        // Asked for while the port was picked: the bot spawned now has those files already.
        const asked = r.takeQueued()
        if (asked && !asked.sameSave) r.announce(asked.files, asked.why, 'start-first')
        const bot = r.spawn(fresh)
        r.others.add(bot)
        const outcome = await this.#newBotListens(bot, fresh, superseded.signal)
        this.#superseded = undefined
        if (r.closed() || outcome.kind === 'closed') return // stop() stops it with the old one
        if (outcome.kind === 'superseded') {
          // Saved again before it listened: that one runs outdated code; the next takes its place
          // at once (its stop goes on beside, as an old bot's does; a session's stop reaches it).
          const queued = r.takeQueued()
          if (queued && !queued.sameSave) r.announce(queued.files, queued.why, 'start-first')
          r.others.add(bot)
          void bot.stop(r.stopGraceMs).then(() => {
            r.others.delete(bot)
          })
          if (r.closed()) return
          continue
        }
        if (outcome.kind === 'timeout') {
          // Not on the port it was given: it ignores PORT, or starts slowly. Stop, then start, from now on.
          this.#stopFirst = true
          r.emit({
            type: 'warn',
            text: `The new bot did not listen on its PORT ${fresh} within ${Math.round(outcome.ms / 1000)}s beside the old one; restarting it the usual way (the old one stopped first), now and from now on.`,
            fix: 'A bot that listens on process.env.PORT restarts without waiting for the old one to stop.',
          })
          await bot.stop(r.stopGraceMs)
          this.#replacing = undefined
          await r.stop()
          if (r.closed()) return
          r.launch()
          return
        }
        r.adopt(bot, fresh)
        if (outcome.kind === 'listening' && bot.alive) r.serve(bot, outcome.host)
        else if (outcome.kind === 'polling') r.isUp()
        // The old bot goes (its updates in flight finish there first), within the stop's grace; it
        // stays among the others until it is gone (a session's stop or kill reaches it too).
        this.#replacing = undefined
        r.others.add(old)
        const retiring = old.stop(r.stopGraceMs).then(() => {
          r.others.delete(old)
        })
        // (In an object: an async function's promise would wait for a promise it returns.)
        if (bot.alive && outcome.kind !== 'exited') return {retiring}
        // A new bot that exited before it listened crashed at start: the bot is down until a fix, as
        // after a stop-then-start (said once the old one is gone).
        await retiring
        if (!bot.alive && r.current() === bot) r.exited(bot, await bot.exited)
        return undefined
      }
    } finally {
      this.#replacing = undefined
      this.#superseded = undefined
    }
  }

  /** How a new bot started beside the old one came up: listening on its port, or why not. */
  async #newBotListens(bot: BotProcess, port: number, superseded: AbortSignal): Promise<NewBotOutcome> {
    const r = this.#r
    const ms = Math.max(r.overlapTimeoutMs ?? 10_000, 3 * r.lastStartMs())
    const wait = new AbortController()
    r.waitingFor(wait)
    const timer = new AbortController()
    const timeout = setTimeout(() => timer.abort(), ms)
    const link = linked(r.signal, superseded, wait.signal, timer.signal)
    try {
      const host = await r.listening(bot, port, link.signal)
      if (host && bot.alive && !link.signal.aborted) return {kind: 'listening', host}
      if (!bot.alive) return {kind: 'exited'}
      if (superseded.aborted && !r.closed()) return {kind: 'superseded'}
      if (r.mode() === 'polling') return {kind: 'polling'}
      if (timer.signal.aborted && !r.closed()) return {kind: 'timeout', ms}
      return {kind: 'closed'}
    } finally {
      clearTimeout(timeout)
      link.clear()
    }
  }
}
