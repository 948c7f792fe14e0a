/**
 * Per-chat delivery order, as Telegram's webhook keeps it (WebhookActor.cpp load_updates, by the queue id Client.cpp
 * add_update gives): updates are grouped into queues by the emulator's own rule (emulator/webhook-queue.ts: messages
 * by chat, queries by the sending user, polls by poll id, anything else a queue of its own); within a queue one update
 * is in flight at a time, and up to `max` queues send in parallel. A queue whose head failed waits for its retry
 * without holding a connection slot, so the other chats keep flowing. */
import {sharedQueueOf} from '../../../emulator/webhook-queue.js'
import type {Update} from '../../../telegram/types.js'

/** The queue an update belongs to: `chat:<id>`, `user:<id>`, `poll:<id>`, or `update:<update_id>` (its own). */
export function queueKeyOf(update: Update): string {
  return sharedQueueOf(update) ?? `update:${update.update_id}`
}

/** "chat 42", "user 7", "poll 5", or "" for an update that is its own queue. */
export function describeQueue(key: string): string {
  const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)]
  return kind === 'update' ? '' : `${kind} ${id}`
}

export interface Queued {
  readonly key: string
}

/** Ordered queues with one item in flight per queue and at most `max` in flight overall. */
export class ChatQueues<T extends Queued> {
  readonly #max: number
  readonly #send: (item: T) => void
  readonly #queues = new Map<string, T[]>()
  /** Queues whose head may be sent now, oldest first. */
  readonly #ready: string[] = []
  readonly #timers = new Map<string, NodeJS.Timeout>()
  #inFlight = 0
  #stopped = false

  constructor(max: number, send: (item: T) => void) {
    this.#max = max
    this.#send = send
  }

  get inFlight(): number {
    return this.#inFlight
  }

  add(item: T): void {
    if (this.#stopped) return
    const queue = this.#queues.get(item.key)
    if (queue) {
      queue.push(item)
      return
    }
    this.#queues.set(item.key, [item])
    this.#ready.push(item.key)
    this.#pump()
  }

  /** The head of `item`'s queue was answered: acknowledged (next one goes), or to be retried after `retryInMs`. */
  done(item: T, outcome: {ack: true} | {retryInMs: number}): void {
    this.#inFlight -= 1
    if (this.#stopped) return
    const queue = this.#queues.get(item.key)
    if (!queue || queue[0] !== item) return this.#pump()
    if ('ack' in outcome) {
      queue.shift()
      if (queue.length === 0) this.#queues.delete(item.key)
      else this.#ready.push(item.key)
    } else {
      const timer = setTimeout(
        () => {
          this.#timers.delete(item.key)
          if (this.#stopped) return
          this.#ready.push(item.key)
          this.#pump()
        },
        Math.max(0, outcome.retryInMs),
      )
      this.#timers.set(item.key, timer)
    }
    this.#pump()
  }

  /** Send nothing more; pending retries are cancelled. */
  stop(): void {
    this.#stopped = true
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
    this.#ready.length = 0
  }

  #pump(): void {
    while (!this.#stopped && this.#inFlight < this.#max && this.#ready.length > 0) {
      const key = this.#ready.shift()!
      const head = this.#queues.get(key)?.[0]
      if (!head) continue
      this.#inFlight += 1
      try {
        this.#send(head)
      } catch {
        // send() guards itself; should it throw anyway, its queue retries instead of stalling
        this.done(head, {retryInMs: 1000})
      }
    }
  }
}
