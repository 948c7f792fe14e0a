/**
 * The bot's answers by update_id, so Telegram's retries of an update the bot already answered
 * (its copy of our answer was lost: a dropped tunnel, a read timeout) get the same answer back
 * without the bot seeing the update twice. A retry of an update still being delivered (held, or at
 * the bot) waits for that delivery's answer. Only 2xx answers are kept (a failure must reach the bot
 * again); the oldest go first.
 */
import type {BotAnswer} from './upstream.js'

/** How many answered updates are remembered, and at most how many bytes of answers in all. */
export const REMEMBERED = 2000
export const REMEMBERED_BYTES = 16 * 1024 * 1024

/** Told how a delivery it waited for ended: its answer, or undefined when it got none. */
export type AnswerWaiter = (answer: BotAnswer | undefined) => void

/** A delivery under way; retries of its update wait on it. */
export class Attempt {
  waiters: AnswerWaiter[] | undefined

  wait(waiter: AnswerWaiter): void {
    ;(this.waiters ??= []).push(waiter)
  }
}

export class AnswerCache {
  /** update_id → the bot's 2xx answer (insertion order = age). */
  #answered = new Map<number, BotAnswer>()
  #inflight = new Map<number, Attempt>()
  #limit: number
  #maxBytes: number
  #bytes = 0

  constructor(limit = REMEMBERED, maxBytes = REMEMBERED_BYTES) {
    this.#limit = limit
    this.#maxBytes = maxBytes
  }

  /** The answer already given for this update, or the delivery giving it now, if any. */
  lookup(updateId: number): BotAnswer | Attempt | undefined {
    return this.#answered.get(updateId) ?? this.#inflight.get(updateId)
  }

  /** `attempt` delivers `updateId`: a retry meanwhile waits for it. */
  track(updateId: number, attempt: Attempt): void {
    this.#inflight.set(updateId, attempt)
  }

  /** `attempt` ended with `answer` (undefined: none): remember a 2xx answer, tell the waiters. */
  settle(updateId: number, attempt: Attempt, answer: BotAnswer | undefined): void {
    if (this.#inflight.get(updateId) === attempt) this.#inflight.delete(updateId)
    if (answer && answer.status >= 200 && answer.status < 300 && answer.text.length <= this.#maxBytes / 4) {
      this.#forget(updateId)
      this.#answered.set(updateId, answer)
      this.#bytes += answer.text.length
      while (this.#answered.size > this.#limit || this.#bytes > this.#maxBytes)
        this.#forget(this.#answered.keys().next().value as number)
    }
    const waiters = attempt.waiters
    if (!waiters) return
    attempt.waiters = undefined
    for (const waiter of waiters) {
      try {
        waiter(answer)
      } catch {
        // one waiter's bug must not keep the others (or the delivery itself) from ending
      }
    }
  }

  #forget(updateId: number): void {
    const answer = this.#answered.get(updateId)
    if (!answer) return
    this.#answered.delete(updateId)
    this.#bytes -= answer.text.length
  }
}
