/**
 * The relay's way to the bot: where to send (the target, undefined while the bot restarts), holding
 * an update until there is a bot to send to (up to holdTimeoutMs), trying again while the bot is
 * going down or coming up, and sharing a delivery with Telegram's retries through the answer cache
 * (answers.ts). Callbacks, not promises: a delivery is one object from the request to the answer.
 */
import {AnswerCache, Attempt} from './answers.js'
import {isRetryable, Upstream, type AnswerHandler, type BotAnswer} from './upstream.js'

import type {RelayTarget} from './types.js'
import {codeOf} from '../../lib/errors.js'

/** (Said of whoever sent the update: Telegram, the emulator offline, `bot dev`'s own polling bridge.) */
const GONE = 'the sender closed the connection while the update was held; it will retry'

/** What a delivery got: the bot's answer, or why the relay answers by itself; and how long it was held. */
export interface Delivered {
  answer?: BotAnswer
  error?: string
  heldMs: number
  /** A bug in the relay (it answers 500). */
  bug?: unknown
}

/** Told how a delivery ended, exactly once. */
export interface DeliveryDone {
  delivered(result: Delivered): void
}

/**
 * How a delivery learns that its requester went away (Telegram closed the connection): `gone`;
 * `watch()` is called once the delivery waits (holding, backing off), and from then on a close calls
 * `hold.cancel`. A webhook request's connection is its link (server.ts).
 */
export interface Link {
  gone: boolean
  hold: {cancel?: () => void}
  watching: boolean
  watch(): void
}

/** The link of a delivery nobody waits on over HTTP (inject): never gone. */
export function detachedLink(): Link {
  return {gone: false, hold: {}, watching: true, watch() {}}
}

export class Deliverer {
  readonly answers = new AnswerCache()
  readonly upstream: Upstream
  readonly holdTimeoutMs: number
  #target: RelayTarget | undefined
  readonly waiting = new Set<InFlightUpdate>()
  closed = false

  constructor(secret: string, holdTimeoutMs: number) {
    this.upstream = new Upstream(secret)
    this.holdTimeoutMs = holdTimeoutMs
  }

  get target(): RelayTarget | undefined {
    return this.#target
  }

  /** Deliveries waiting for a target right now. */
  get held(): number {
    return this.waiting.size
  }

  /** Where to send; undefined holds deliveries until a target is set again. */
  setTarget(target: RelayTarget | undefined): void {
    if (target !== this.#target) this.upstream.retire()
    this.#target = target
    if (target) for (const d of [...this.waiting]) d.unhold(target)
  }

  /** No more holding: deliveries waiting for a target end at once (503), later ones are not held. */
  close(): void {
    this.closed = true
    for (const d of [...this.waiting]) d.unhold(undefined)
  }

  /** Close the connections to the bot. */
  destroy(): Promise<void> {
    return this.upstream.destroy()
  }

  /**
   * Send the body to the bot: held while there is no bot to send to (up to holdTimeoutMs), sent
   * again while the bot is going down or coming up. With an updateId the delivery is shared with
   * Telegram's retries through the answer cache; without one (inject) the cache is not touched.
   * `done` hears the outcome once (it may be before this returns).
   */
  deliver(
    body: Buffer,
    contentType: string | undefined,
    started: number,
    updateId: number | undefined,
    link: Link,
    done: DeliveryDone,
  ): void {
    const d = new InFlightUpdate(this, body, contentType, started + this.holdTimeoutMs, updateId, link, done)
    if (updateId !== undefined) this.answers.track(updateId, d)
    d.run()
  }
}

/** One update on its way to the bot; retries of it wait on it (an Attempt). */
class InFlightUpdate extends Attempt implements AnswerHandler {
  #heldMs = 0
  #backoff = 20
  #since = 0
  #timer: NodeJS.Timeout | undefined
  #ended = false

  constructor(
    readonly deliverer: Deliverer,
    readonly body: Buffer,
    readonly contentType: string | undefined,
    readonly deadline: number,
    readonly updateId: number | undefined,
    readonly link: Link,
    readonly done: DeliveryDone,
  ) {
    super()
  }

  run(): void {
    const d = this.deliverer
    const link = this.link
    if (link.gone) return this.#end({heldMs: this.#heldMs, error: GONE})
    if (d.closed) return this.#end({heldMs: this.#heldMs, error: 'dev session is stopping'})
    const target = d.target
    if (!target) return this.#hold()
    try {
      d.upstream.send(target, this.body, this.contentType, this)
    } catch (bug) {
      // A throw here is a bug (the relay answers 500); only a failed send is the bot's connection failing.
      this.#end({heldMs: this.#heldMs, bug})
    }
  }

  /** A target came (or undefined: the relay closes, the hold ended). */
  unhold(target: RelayTarget | undefined): void {
    const d = this.deliverer
    if (!d.waiting.delete(this)) return
    clearTimeout(this.#timer)
    this.link.hold.cancel = undefined
    this.#heldMs += performance.now() - this.#since
    if (target && !this.link.gone) return this.run()
    this.#end({
      heldMs: this.#heldMs,
      error: this.link.gone
        ? GONE
        : d.closed
          ? 'dev session is stopping'
          : `the bot was not listening within ${Math.round(d.holdTimeoutMs / 1000)}s`,
    })
  }

  onAnswer(answer: BotAnswer): void {
    this.#end({answer, heldMs: this.#heldMs})
  }

  onError(error: Error): void {
    const d = this.deliverer
    if (!isRetryable(error) || d.closed || performance.now() + this.#backoff >= this.deadline)
      return this.#end({
        heldMs: this.#heldMs,
        error: `bot connection failed: ${codeOf(error) || error.message}`,
      })
    // The bot is going down or coming up: wait for it (or for a new target) and try again.
    this.link.watch()
    this.#since = performance.now()
    this.#timer = setTimeout(() => {
      this.#heldMs += performance.now() - this.#since
      this.run()
    }, this.#backoff)
    this.#backoff = Math.min(this.#backoff * 2, 250)
  }

  #hold(): void {
    const left = this.deadline - performance.now()
    this.link.watch()
    if (this.link.gone) return this.#end({heldMs: this.#heldMs, error: GONE})
    if (left <= 0)
      return this.#end({
        heldMs: this.#heldMs,
        error: `the bot was not listening within ${Math.round(this.deliverer.holdTimeoutMs / 1000)}s`,
      })
    this.#since = performance.now()
    this.deliverer.waiting.add(this)
    this.#timer = setTimeout(() => this.unhold(undefined), left)
    this.link.hold.cancel = () => this.unhold(undefined)
  }

  #end(result: Delivered): void {
    if (this.#ended) return
    this.#ended = true
    if (this.updateId !== undefined) this.deliverer.answers.settle(this.updateId, this, result.answer)
    this.done.delivered(result)
  }
}

/** What went back: the bot's body (utf-8), or the relay's own text when the bot never answered. */
export function answerText(answer: BotAnswer | undefined, error: string | undefined): string {
  return answer ? utf8OfLatin1(answer.text) : error ? `bot dev: ${error}\n` : ''
}

/** The UTF-8 text of bytes held as a latin1 string: the same string when they are all ASCII (the usual answer). */
function utf8OfLatin1(text: string): string {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'latin1').toString('utf8')
  return text
}
