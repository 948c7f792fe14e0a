/**
 * How a trigger or replay waits for the bot to take what the session put in: by update_id (the recording settles it
 * once the bot answered, or polled past it), by the history's entries of an emulator action's update_ids, all within
 * the session's deadline, failing at once when the bot goes down meanwhile (it exited and waits for a fix). Offline
 * polling without the api proxy nothing sees an update arrive, so it is recorded as it goes in.
 */
import type {UpdateHistory} from '../inspector/history/history.js'
import type {EntrySource, UpdateEntry} from '../inspector/types.js'
import {withTimeout} from '../lib/deadline.js'
import {ActionError} from './protocol.js'

/** How often a trigger or replay waiting for the bot looks whether it went down meanwhile. */
const DOWN_CHECK_MS = 100

export interface BotWaitsOptions {
  timeoutMs: number
  history: () => UpdateHistory | undefined
  /** Nothing will see an update put into the emulator (polling without the api proxy): record it on the way in. */
  recordDirectly: boolean
  /** Why the bot cannot take an update now, else undefined. */
  botDown?: () => string | undefined
}

/** A wait for the bot, and how to give it up (the update is forgotten). */
export interface Wait<T> {
  promise: Promise<T>
  cancel: () => void
}

interface Expected {
  source: EntrySource
  replayOf?: number
  resolve: (entry: UpdateEntry) => void
}

export function botDownError(reason: string): ActionError {
  return new ActionError(
    503,
    `${reason} and is not running: nothing was sent.`,
    'Press r in `bot dev`, or save a file, to restart it; then try again.',
  )
}

export class BotWaits {
  readonly #options: BotWaitsOptions
  /** update_ids put into the emulator, waiting for the bot to get them. */
  readonly #expected = new Map<number, Expected>()

  constructor(options: BotWaitsOptions) {
    this.#options = options
  }

  /** How an update the session sees now was sent, when it was put into the emulator by an action. */
  expected(updateId: number): Pick<Expected, 'source' | 'replayOf'> | undefined {
    return this.#expected.get(updateId)
  }

  /** An entry got its answer (or was seen, in polling mode): an action waiting for it resolves. */
  settled(entry: UpdateEntry): void {
    const waiting = this.#expected.get(entry.updateId)
    if (!waiting || waiting.source !== entry.source) return
    this.#expected.delete(entry.updateId)
    waiting.resolve(entry)
  }

  /** The bot exited and waits for a fix: nothing would take the update (it would wait out the hold). */
  checkBotUp(): void {
    const down = this.#options.botDown?.()
    if (down) throw botDownError(down)
  }

  /** Waits for the entry of an update the emulator queued (settled() resolves it); cancel forgets it. */
  expect(updateId: number, source: 'trigger' | 'replay', replayOf?: number): Wait<UpdateEntry> {
    const promise = new Promise<UpdateEntry>((resolve) =>
      this.#expected.set(updateId, {source, ...(replayOf !== undefined ? {replayOf} : {}), resolve}),
    )
    return {promise, cancel: () => this.#expected.delete(updateId)}
  }

  /** Offline polling without the api proxy: nothing sees the update arrive, so it is recorded as it goes in. */
  recordDirectly(
    update: {update_id: number},
    source: 'trigger' | 'replay',
    replayOf?: number,
  ): UpdateEntry | undefined {
    if (!this.#options.recordDirectly) return undefined
    const history = this.#options.history()
    if (!history) return undefined
    const entry = history.begin(update, source, replayOf)
    history.finish(entry, null, 0)
    return entry
  }

  /** `promise` within the session's deadline (504 naming `who`), or botDownError once the bot goes down. */
  deadline<T>(promise: Promise<T>, who: string): Promise<T> {
    const seconds = Math.round(this.#options.timeoutMs / 1000)
    return withTimeout(
      this.#unlessBotGoesDown(promise),
      this.#options.timeoutMs,
      () =>
        new ActionError(
          504,
          `${who} did not take the update within ${seconds}s.`,
          'Look at the bot’s output in `bot dev`; the inspector shows the update once it is answered.',
        ),
    )
  }

  /** `promise`, or botDownError as soon as the bot exits while the action waits for it. */
  #unlessBotGoesDown<T>(promise: Promise<T>): Promise<T> {
    const botDown = this.#options.botDown
    if (!botDown) return promise
    let timer: NodeJS.Timeout | undefined
    const down = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        try {
          const reason = botDown()
          if (reason) reject(botDownError(reason))
        } catch {
          // a failing check is no reason to fail the action
        }
      }, DOWN_CHECK_MS)
      timer.unref()
    })
    down.catch(() => {})
    return Promise.race([promise, down]).finally(() => clearInterval(timer))
  }
}

/**
 * The history's entries of these update_ids recorded after `since` (a seq), once none is in flight any more (the
 * bot answered it, or polled past it), in the order of `ids`.
 */
export function handled(history: UpdateHistory, ids: number[], since: number): Wait<UpdateEntry[]> {
  let unsubscribe: () => void = () => {}
  const promise = new Promise<UpdateEntry[]>((resolve) => {
    const done = new Map<number, UpdateEntry>()
    let finished = false
    const look = (entry: UpdateEntry) => {
      if (finished || entry.seq <= since || !ids.includes(entry.updateId) || history.inFlight(entry)) return
      done.set(entry.updateId, entry)
      if (done.size < ids.length) return
      finished = true
      resolve(ids.flatMap((id) => done.get(id) ?? []))
    }
    unsubscribe = history.subscribe((entry) => look(entry))
    for (const entry of history.list()) {
      if (entry.seq <= since) break
      look(entry)
    }
  })
  return {promise, cancel: () => unsubscribe()}
}
