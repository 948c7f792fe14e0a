/**
 * The bridge's window: the updates received with getUpdates and not yet confirmed, in update_id
 * order, each acknowledged by the bot or not. It says which offset may be confirmed (the first
 * unacknowledged update, else one past the last received) and which updates of a getUpdates answer
 * are new (the Bot API returns every unconfirmed update again until the offset passes it).
 */
import type {Update} from '../../../telegram/types.js'
import {queueKeyOf} from './queues.js'

export interface WindowItem {
  readonly id: number
  /** Its delivery queue (chat, user, poll, or its own). */
  readonly key: string
  /** The JSON POSTed to the bot. */
  readonly body: string
  attempts: number
  acked: boolean
  /** The failure last reported in a `failing` event. */
  reported?: string
}

/** Most updates remembered (getUpdates returns at most 100 from the offset, so this is never reached normally). */
export const MAX_WINDOW = 1000

export class UpdateWindow {
  #items = new Map<number, WindowItem>()
  #lastReceived?: number
  /** The offset of the last getUpdates the Bot API answered: everything below it is confirmed. */
  #confirmedOffset = 0
  #confirmed = 0

  /** How many updates this window saw confirmed. */
  get confirmed(): number {
    return this.#confirmed
  }

  get confirmedOffset(): number {
    return this.#confirmedOffset
  }

  /** The offset that confirms exactly the acknowledged prefix. */
  offset(): number {
    for (const item of this.#items.values()) if (!item.acked) return item.id
    return this.#lastReceived !== undefined
      ? Math.max(this.#lastReceived + 1, this.#confirmedOffset)
      : this.#confirmedOffset
  }

  /** Updates received and not acknowledged. */
  unacked(): number {
    let n = 0
    for (const item of this.#items.values()) if (!item.acked) n += 1
    return n
  }

  hasUnacked(): boolean {
    for (const item of this.#items.values()) if (!item.acked) return true
    return false
  }

  /** A getUpdates with `offset` was answered: everything below it is confirmed and forgotten. */
  confirm(offset: number): void {
    if (offset <= this.#confirmedOffset) return
    this.#confirmedOffset = offset
    for (const [id, item] of this.#items) {
      if (id >= offset) break
      if (item.acked) this.#confirmed += 1
      this.#items.delete(id)
    }
  }

  /** The updates of a getUpdates answer (asked with `offset`) not seen before, now remembered. */
  take(updates: Update[], offset: number): WindowItem[] {
    const fresh: WindowItem[] = []
    let unordered = false
    for (const update of updates) {
      const id = update?.update_id
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) continue
      if (offset > 0 && id < offset) continue // confirmed already
      if (this.#items.has(id)) continue // delivered, in flight or waiting: not again
      if (this.#items.size >= MAX_WINDOW) break // stays at the Bot API; a later poll brings it
      if (this.#lastReceived !== undefined && id < this.#lastReceived) unordered = true
      const item: WindowItem = {id, key: queueKeyOf(update), body: JSON.stringify(update), attempts: 0, acked: false}
      this.#items.set(id, item)
      this.#lastReceived = Math.max(id, this.#lastReceived ?? id)
      fresh.push(item)
    }
    if (unordered) this.#items = new Map([...this.#items].sort(([a], [b]) => a - b))
    return fresh
  }
}
