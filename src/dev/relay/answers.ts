/**
 * The bot's answers by update_id, so Telegram's retries of an update the bot already answered
 * (its copy of our answer was lost: a dropped tunnel, a read timeout) get the same answer back
 * without the bot seeing the update twice. Answers still being produced are shared too.
 * Only 2xx answers are kept (a failure must reach the bot again); the oldest go first.
 */
import type {BotAnswer} from './upstream.js'

/** How many answered updates are remembered, and at most how many bytes of answers in all. */
export const REMEMBERED = 2000
export const REMEMBERED_BYTES = 16 * 1024 * 1024

export class AnswerCache {
  /** update_id → the bot's 2xx answer (insertion order = age). */
  #answered = new Map<number, BotAnswer>()
  #inflight = new Map<number, Promise<BotAnswer>>()
  #limit: number
  #maxBytes: number
  #bytes = 0

  constructor(limit = REMEMBERED, maxBytes = REMEMBERED_BYTES) {
    this.#limit = limit
    this.#maxBytes = maxBytes
  }

  /** The answer already given (or being given) for this update, if any. */
  lookup(updateId: number): BotAnswer | Promise<BotAnswer> | undefined {
    return this.#answered.get(updateId) ?? this.#inflight.get(updateId)
  }

  /** `sending` is the answer being produced for `updateId`: a retry meanwhile waits for it. */
  track(updateId: number, sending: Promise<BotAnswer>): void {
    this.#inflight.set(updateId, sending)
  }

  /** `sending` settled with `answer` (undefined: it failed): remember a 2xx answer, forget the attempt. */
  settle(updateId: number, sending: Promise<BotAnswer>, answer: BotAnswer | undefined): void {
    if (this.#inflight.get(updateId) === sending) this.#inflight.delete(updateId)
    if (!answer || answer.status < 200 || answer.status >= 300 || answer.text.length > this.#maxBytes / 4) return
    this.#forget(updateId)
    this.#answered.set(updateId, answer)
    this.#bytes += answer.text.length
    while (this.#answered.size > this.#limit || this.#bytes > this.#maxBytes)
      this.#forget(this.#answered.keys().next().value as number)
  }

  #forget(updateId: number): void {
    const answer = this.#answered.get(updateId)
    if (!answer) return
    this.#answered.delete(updateId)
    this.#bytes -= answer.text.length
  }
}
