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
  /** update_id → the bot's 2xx answer and when it was kept (its place in the age ring). */
  #answered = new Map<number, {answer: BotAnswer; seq: number}>()
  /**
   * Ages, oldest first, as a ring of (update_id, seq): the oldest go first without walking a Map
   * from its front (which steps over every slot deleted before: O(evicted) per eviction).
   */
  #ids: number[] = []
  #seqs: number[] = []
  #head = 0
  #seq = 0
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
    return this.#answered.get(updateId)?.answer ?? this.#inflight.get(updateId)
  }

  /** `attempt` delivers `updateId`: a retry meanwhile waits for it. */
  track(updateId: number, attempt: Attempt): void {
    this.#inflight.set(updateId, attempt)
  }

  /** `attempt` ended with `answer` (undefined: none): remember a 2xx answer, tell the waiters. */
  settle(updateId: number, attempt: Attempt, answer: BotAnswer | undefined): void {
    if (this.#inflight.get(updateId) === attempt) this.#inflight.delete(updateId)
    if (answer && answer.status >= 200 && answer.status < 300 && answer.text.length <= this.#maxBytes / 4)
      this.#remember(updateId, answer)
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

  #remember(updateId: number, answer: BotAnswer): void {
    const known = this.#answered.get(updateId)
    if (known) this.#bytes -= known.answer.text.length
    const seq = ++this.#seq
    this.#answered.set(updateId, {answer, seq})
    this.#bytes += answer.text.length
    this.#ids.push(updateId)
    this.#seqs.push(seq)
    while ((this.#answered.size > this.#limit || this.#bytes > this.#maxBytes) && this.#head < this.#ids.length) {
      const id = this.#ids[this.#head]
      const at = this.#seqs[this.#head++]
      const entry = this.#answered.get(id)
      // A slot whose update was kept again later is stale: that later slot ages it.
      if (entry?.seq !== at) continue
      this.#answered.delete(id)
      this.#bytes -= entry.answer.text.length
    }
    // Drop the ring's used front now and then (amortised: once per `limit` evictions).
    if (this.#head > this.#limit) {
      this.#ids = this.#ids.slice(this.#head)
      this.#seqs = this.#seqs.slice(this.#head)
      this.#head = 0
    }
  }
}
