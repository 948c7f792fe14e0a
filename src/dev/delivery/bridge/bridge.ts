/**
 * The bridge: webhook mode without a public URL. `bot dev` takes the updates with getUpdates and
 * POSTs each one to the relay the way Telegram's webhook would (WebhookActor.cpp): the same JSON,
 * the secret header, one update in flight per chat, up to maxConnections chats at once, a 2xx
 * acknowledges, a webhook reply is executed, anything else is retried with backoff.
 *
 * Nothing is lost: an offset is confirmed (getUpdates offset = id + 1) only once that update and
 * every earlier one were acknowledged, so after a crash, a Ctrl-C or a poison update the Bot API
 * still holds every update the bot did not acknowledge. Updates already acknowledged but not yet
 * confirmable are remembered (the window) and not delivered again when getUpdates returns them.
 *
 * While something is unacknowledged the Bot API answers getUpdates at once (there is an update at
 * the offset), so polls are then paced: a new poll goes out when the confirmable offset moved, or
 * PACE_MS after the previous one (never sooner: the server forces limit=1 on the same offset
 * within 0.5 s).
 */
import {waitAtMost} from '../../../lib/deadline.js'
import {FixableError} from '../../../lib/errors.js'
import {explainApiError} from '../../../telegram/explain.js'
import type {BotApi} from '../../../telegram/client.js'
import {BotApiError} from '../../../telegram/errors.js'
import {WebhookPoster, type PostResult} from './post.js'
import {ChatQueues, describeQueue} from './queues.js'
import {executeReply, type ReplyOutcome} from './reply.js'
import {UpdateWindow, type WindowItem as Item} from './window.js'
import {conflictText, deliveredText, failingText, pollErrorText, recoveredText} from './text.js'

export interface BridgeOptions {
  api: BotApi
  /** Where to POST: the relay, e.g. http://127.0.0.1:<relayPort>/webhook/xyz */
  target: {url: string; secret: string}
  /** Chats in parallel, default 40 (1..100). */
  maxConnections?: number
  allowedUpdates?: string[]
  /** getUpdates timeout, default 25 (1..50). */
  pollTimeoutSec?: number
  /** One POST's deadline, default 60000 (the relay holds during restarts up to --hold-timeout). */
  requestTimeoutMs?: number
  onEvent: (e: BridgeEvent) => void
  signal?: AbortSignal
}

export type BridgeEvent =
  | {type: 'delivered'; updateId: number; status: number; ms: number; text: string; reply?: ReplyOutcome}
  | {type: 'failing'; updateId: number; attempts: number; status?: number; error?: string; text: string}
  | {type: 'recovered'; updateId: number; text: string}
  | {type: 'conflict'; text: string; fix: string}
  | {type: 'poll-error'; text: string}

/** Between two polls while an update is unacknowledged and the offset did not move (> the server's 0.5 s). */
const PACE_MS = 600
const RETRY_BASE_MS = 500
const RETRY_MAX_MS = 10_000
/** A failing update is reported once it failed this many times in a row. */
const REPORT_AFTER = 2
/** start() resolves by then even if the first poll still waits (the server holds a poll repeating the previous offset up to 3 s). */
const START_GRACE_MS = 500
const STOP_POLL_MS = 1000
const STOP_IN_FLIGHT_MS = 2000
const STOP_CONFIRM_MS = 1500
const REPLY_TIMEOUT_MS = 10_000

const clamp = (value: number | undefined, fallback: number, min: number, max: number): number =>
  value === undefined || !Number.isFinite(value) ? fallback : Math.min(max, Math.max(min, Math.round(value)))

export class UpdateBridge {
  readonly stats = {delivered: 0, failing: 0, inFlight: 0}

  readonly #api: BotApi
  readonly #allowed?: string[]
  readonly #pollTimeoutSec: number
  readonly #emit: (e: BridgeEvent) => void
  readonly #poster: WebhookPoster
  readonly #queues: ChatQueues<Item>
  readonly #signal?: AbortSignal
  /** Received and not yet confirmed. */
  readonly #window = new UpdateWindow()
  #lastPoll?: {offset: number; at: number}
  #emptyPolls = 0
  #pollAbort = new AbortController()
  #replyAbort = new AbortController()
  #work = new Set<Promise<void>>()
  #wake?: () => void
  #started = false
  #stopped = false
  #stopping?: Promise<{pending: number; confirmed: number}>
  #loop?: Promise<void>
  #errorText?: string
  #conflictSince?: number

  constructor(options: BridgeOptions) {
    this.#api = options.api
    this.#allowed = options.allowedUpdates
    this.#pollTimeoutSec = clamp(options.pollTimeoutSec, 25, 1, 50)
    this.#signal = options.signal
    this.#emit = (e) => {
      try {
        options.onEvent(e)
      } catch {
        // a listener's bug must not stop the deliveries
      }
    }
    const maxConnections = clamp(options.maxConnections, 40, 1, 100)
    this.#poster = new WebhookPoster(options.target, {
      maxSockets: maxConnections,
      timeoutMs: clamp(options.requestTimeoutMs, 60_000, 100, 3_600_000),
    })
    this.#queues = new ChatQueues<Item>(maxConnections, (item) => this.#track(this.#deliver(item)))
  }

  /**
   * Resolves once the first getUpdates is answered (or is still waiting after a short grace).
   * Rejects with a FixableError when the token is refused (401/404) or a webhook is set (409).
   */
  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error('UpdateBridge.start() was already called'))
    this.#started = true
    if (this.#signal?.aborted) return Promise.reject(new FixableError('The bridge was cancelled before it started.'))
    this.#signal?.addEventListener('abort', () => void this.stop(), {once: true})
    return new Promise<void>((resolve, reject) => {
      let settled = false
      const grace = setTimeout(() => first(), START_GRACE_MS)
      /** Settles start() once; false when it had settled already (the grace passed). */
      const first = (error?: unknown): boolean => {
        if (settled) return false
        settled = true
        clearTimeout(grace)
        if (error) reject(error)
        else resolve()
        return true
      }
      this.#loop = this.#run(first).catch(() => undefined)
    })
  }

  /**
   * Stop polling (the long poll is aborted), give POSTs in flight a moment, then confirm what was
   * acknowledged. An update that was not acknowledged is never confirmed: it stays pending at
   * the Bot API. `pending` counts those; `confirmed` counts the updates this bridge confirmed.
   * Idempotent; bounded (about 5 s at most).
   */
  stop(): Promise<{pending: number; confirmed: number}> {
    this.#stopping ??= this.#stop()
    return this.#stopping
  }

  async #stop(): Promise<{pending: number; confirmed: number}> {
    this.#stopped = true
    this.#queues.stop()
    this.#pollAbort.abort()
    this.#wake?.()
    if (this.#loop) await waitAtMost(this.#loop, STOP_POLL_MS)
    if (this.#work.size > 0) await waitAtMost(Promise.allSettled([...this.#work]), STOP_IN_FLIGHT_MS)
    this.#replyAbort.abort()
    this.#poster.destroy()
    await this.#finalConfirm()
    return {pending: this.#window.unacked(), confirmed: this.#window.confirmed}
  }

  /** One short getUpdates that confirms what was acknowledged since the last poll. */
  async #finalConfirm(): Promise<void> {
    const offset = this.#window.offset()
    if (offset <= this.#window.confirmedOffset) return
    if (this.#lastPoll?.offset === offset) {
      // The last poll (usually the long poll just aborted) carried this offset, and the server applies
      // an offset on receipt; asking again with the same offset and timeout 0 within 3 s would only
      // make it wait 3 s. (Had that poll not arrived, those updates come again: duplicates, never a loss.)
      this.#window.confirm(offset)
      return
    }
    try {
      await this.#api.getUpdates({offset, limit: 1, timeout: 0}, {timeoutMs: STOP_CONFIRM_MS})
      this.#window.confirm(offset)
    } catch {
      // left unconfirmed: the Bot API delivers those again, which is safe
    }
  }

  // ---------------------------------------------------------------- polling

  async #run(first: (error?: unknown) => boolean): Promise<void> {
    let isFirst = true
    let backoffMs = 0
    let backoffUntil = 0
    while (!this.#stopped) {
      await this.#waitForTurn(backoffUntil)
      if (this.#stopped) break
      const offset = this.#window.offset()
      // when it was sent: the server's throttles count from there, and it applies the offset on receipt
      this.#lastPoll = {offset, at: performance.now()}
      try {
        const updates = await this.#api.getUpdates(
          {
            ...(offset > 0 ? {offset} : {}),
            limit: 100,
            timeout: isFirst ? 0 : this.#pollTimeoutSec,
            ...(this.#allowed ? {allowed_updates: this.#allowed} : {}),
          },
          {signal: this.#pollAbort.signal},
        )
        if (offset > 0) this.#window.confirm(offset)
        const fresh = this.#window.take(Array.isArray(updates) ? updates : [], offset)
        for (const item of fresh) this.#queues.add(item)
        this.#emptyPolls = fresh.length > 0 ? 0 : this.#emptyPolls + 1
        backoffMs = 0
        this.#errorText = undefined
        this.#conflictSince = undefined
        if (isFirst) first()
      } catch (error) {
        if (this.#stopped) break
        if (isFirst && error instanceof BotApiError && isFatalAtStart(error)) {
          const {message, fix} = explainApiError(error, this.#api.apiRoot)
          if (first(new FixableError(`The bridge cannot poll: ${message}`, {fix, code: 'bridge_poll'}))) {
            void this.stop()
            break
          } // start() resolved already: reported below like any later error, and retried
        }
        backoffMs = this.#report(error, backoffMs)
        backoffUntil = performance.now() + backoffMs
        if (isFirst) first()
      }
      isFirst = false
    }
  }

  /** Emit the error (once per kind in a row) and return the next backoff in ms. */
  #report(error: unknown, previousMs: number): number {
    if (error instanceof BotApiError && error.isPollerConflict) {
      const next = Math.min(30_000, Math.max(2000, previousMs * 2))
      if (this.#conflictSince === undefined) {
        this.#conflictSince = Date.now()
        this.#emit({type: 'conflict', ...conflictText(next)})
      }
      return next
    }
    const text = pollErrorText(error, this.#api)
    const retryAfterMs = error instanceof BotApiError && error.retryAfter ? error.retryAfter * 1000 : 0
    const next = Math.max(retryAfterMs, Math.min(30_000, Math.max(1000, previousMs * 2)))
    if (text !== this.#errorText) {
      this.#errorText = text
      this.#emit({type: 'poll-error', text: `${text} Retrying in ${Math.round(next / 1000)} s.`})
    }
    return next
  }

  /** Wait until the next poll may go out (see the header), or the bridge stops. */
  async #waitForTurn(backoffUntil: number): Promise<void> {
    for (;;) {
      if (this.#stopped) return
      const now = performance.now()
      let earliest = backoffUntil
      const last = this.#lastPoll
      // A poll would be answered at once with what we hold already; and many polls in a row that
      // brought nothing new (a server that ignores the timeout) must not become a busy loop either.
      if (last && ((this.#window.hasUnacked() && this.#window.offset() === last.offset) || this.#emptyPolls >= 3)) {
        earliest = Math.max(earliest, last.at + PACE_MS)
      }
      if (earliest <= now) return
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, earliest - now)
        function done(): void {
          clearTimeout(timer)
          resolve()
        }
        this.#wake = done
      })
      this.#wake = undefined
    }
  }

  // ---------------------------------------------------------------- delivering

  #track(work: Promise<void>): void {
    this.#work.add(work)
    void work.finally(() => this.#work.delete(work))
  }

  async #deliver(item: Item): Promise<void> {
    item.attempts += 1
    this.stats.inFlight += 1
    let result: PostResult
    try {
      result = await this.#poster.post(item.body)
    } catch (error) {
      result = {ok: false, error: String(error), ms: 0}
    } finally {
      this.stats.inFlight -= 1
    }
    try {
      if (result.ok) await this.#acknowledged(item, result)
      else this.#failed(item, result)
    } catch {
      // reporting failed: the queue still moves on below
    }
    if (result.ok) this.#queues.done(item, {ack: true})
    else this.#queues.done(item, {retryInMs: retryDelay(item.attempts, result)})
    this.#wake?.()
  }

  async #acknowledged(item: Item, result: PostResult): Promise<void> {
    item.acked = true
    this.stats.delivered += 1
    this.#wake?.() // the confirmable offset may have moved
    let reply: ReplyOutcome | undefined
    if (result.replyTooLarge) reply = {method: '?', error: 'not run: the answer was too large to be a webhook reply'}
    else if (result.reply)
      reply = await executeReply(this.#api, result.reply, {
        timeoutMs: REPLY_TIMEOUT_MS,
        signal: this.#replyAbort.signal,
      })
    const status = result.status ?? 200
    this.#emit({
      type: 'delivered',
      updateId: item.id,
      status,
      ms: result.ms,
      text: deliveredText(item.id, describeQueue(item.key), status, result.ms, reply),
      ...(reply ? {reply} : {}),
    })
    if (item.reported !== undefined) {
      this.stats.failing -= 1
      this.#emit({
        type: 'recovered',
        updateId: item.id,
        text: recoveredText(item.id, describeQueue(item.key), item.attempts),
      })
    }
  }

  #failed(item: Item, result: PostResult): void {
    if (this.#stopped || item.attempts < REPORT_AFTER) return
    const what = result.error ?? `status ${result.status ?? '?'}`
    if (item.reported === what) return
    if (item.reported === undefined) this.stats.failing += 1
    item.reported = what
    this.#emit({
      type: 'failing',
      updateId: item.id,
      attempts: item.attempts,
      ...(result.status !== undefined ? {status: result.status} : {}),
      ...(result.error ? {error: result.error} : {}),
      text: failingText(item.id, describeQueue(item.key), what, item.attempts),
    })
  }
}

/**
 * A Retry-After from the bot is honoured up to a minute. Otherwise 0.5 s doubling to 10 s, except
 * that a first failure without an answer is retried at once, as Telegram does (a kept-alive
 * connection the server closed just as we reused it).
 */
function retryDelay(attempts: number, result: PostResult): number {
  if (result.retryAfter !== undefined) return Math.min(60_000, result.retryAfter * 1000)
  if (attempts === 1 && result.status === undefined) return 0
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1))
}

/** 401/404: the token; 409 "webhook is active": a webhook is set. The bridge cannot work. */
function isFatalAtStart(error: BotApiError): boolean {
  return error.kind === 'api' && (error.code === 401 || error.code === 404 || error.isWebhookActiveConflict)
}
