/**
 * The relay's way to the bot: where to send (the target, undefined while the bot restarts), holding
 * an update until there is a bot to send to (up to holdTimeoutMs), trying again while the bot is
 * going down or coming up, and sharing an attempt with Telegram's retries through the answer cache
 * (relay-answers.ts). The HTTP side (relay.ts) hands it a body and writes back what comes out.
 */
import type http from 'node:http'

import {AnswerCache} from './answers.js'
import {isRetryable, Upstream, type BotAnswer} from './upstream.js'

import type {RelayTarget} from './types.js'

const GONE = 'Telegram closed the connection while the update was held; it will retry'

/** What a delivery got: the bot's answer, or why the relay answers by itself; and how long it was held. */
export interface Delivered {
  answer?: BotAnswer
  error?: string
  heldMs: number
}

/** How a delivery learns that its requester went away (Telegram closed the connection). */
export interface Link {
  gone: boolean
  hold: {cancel?: () => void}
  watching: boolean
  watch(): void
}

/**
 * The link of a webhook request: Telegram gave up on it (read timeout, dropped tunnel) when the
 * response closes unfinished; it will send the update again, so a request still held is not
 * forwarded (that would process the update twice). Watched only once the relay waits (holding or
 * backing off), not on the hot path.
 */
export function responseLink(res: http.ServerResponse): Link {
  const link: Link = {
    gone: false,
    hold: {},
    watching: false,
    watch() {
      if (link.watching) return
      link.watching = true
      res.once('close', () => {
        if (res.writableFinished) return
        link.gone = true
        link.hold.cancel?.()
      })
      if (res.destroyed) link.gone = true
    },
  }
  return link
}

/** The link of a delivery nobody waits on over HTTP (inject): never gone. */
export function detachedLink(): Link {
  return {gone: false, hold: {}, watching: true, watch() {}}
}

export class Deliverer {
  readonly answers = new AnswerCache()
  #upstream: Upstream
  #holdTimeoutMs: number
  #target: RelayTarget | undefined
  #waiters = new Set<(target: RelayTarget | undefined) => void>()
  #closed = false

  constructor(secret: string, holdTimeoutMs: number) {
    this.#upstream = new Upstream(secret)
    this.#holdTimeoutMs = holdTimeoutMs
  }

  get target(): RelayTarget | undefined {
    return this.#target
  }

  /** Deliveries waiting for a target right now. */
  get held(): number {
    return this.#waiters.size
  }

  /** Where to send; undefined holds deliveries until a target is set again. */
  setTarget(target: RelayTarget | undefined): void {
    if (target !== this.#target) this.#upstream.retire()
    this.#target = target
    if (target) {
      const waiters = [...this.#waiters]
      this.#waiters.clear()
      for (const w of waiters) w(target)
    }
  }

  /** No more holding: deliveries waiting for a target end at once (503), later ones are not held. */
  close(): void {
    this.#closed = true
    const waiters = [...this.#waiters]
    this.#waiters.clear()
    for (const w of waiters) w(undefined)
  }

  /** Close the connections to the bot. */
  destroy(): Promise<void> {
    return this.#upstream.destroy()
  }

  /**
   * Send the body to the bot: hold it while there is no bot to send to (up to holdTimeoutMs), try
   * again while the bot is going down or coming up. With an updateId the attempt is shared with
   * Telegram's retries through the answer cache; without one (inject) the cache is not touched.
   */
  async deliver(
    body: Buffer,
    contentType: string | undefined,
    started: number,
    updateId: number | undefined,
    link: Link,
  ): Promise<Delivered> {
    const deadline = started + this.#holdTimeoutMs
    let heldMs = 0
    let backoff = 20
    for (;;) {
      let target = this.#target
      if (!target) {
        link.watch()
        const holdStart = performance.now()
        target = link.gone ? undefined : await this.#waitTarget(deadline, link.hold)
        heldMs += performance.now() - holdStart
        if (!target && !link.gone)
          return {
            heldMs,
            error: this.#closed
              ? 'dev session is stopping'
              : `the bot was not listening within ${Math.round(this.#holdTimeoutMs / 1000)}s`,
          }
      }
      if (link.gone) return {heldMs, error: GONE}
      // A throw here is a bug (the relay answers 500); only a failed send is the bot's connection failing.
      const sending = this.#upstream.send(target!, body, contentType)
      if (updateId !== undefined) this.answers.track(updateId, sending)
      try {
        const answer = await sending
        if (updateId !== undefined) this.answers.settle(updateId, sending, answer)
        return {answer, heldMs}
      } catch (e) {
        if (updateId !== undefined) this.answers.settle(updateId, sending, undefined)
        if (!isRetryable(e) || this.#closed || performance.now() + backoff >= deadline)
          return {heldMs, error: `bot connection failed: ${(e as NodeJS.ErrnoException).code || (e as Error).message}`}
        // The bot is going down or coming up: wait for it (or for a new target) and try again.
        link.watch()
        const holdStart = performance.now()
        await new Promise((r) => setTimeout(r, backoff))
        heldMs += performance.now() - holdStart
        backoff = Math.min(backoff * 2, 250)
      }
    }
  }

  #waitTarget(deadline: number, hold: {cancel?: () => void}): Promise<RelayTarget | undefined> {
    if (this.#closed) return Promise.resolve(undefined)
    const left = deadline - performance.now()
    if (left <= 0) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (t: RelayTarget | undefined) => {
        clearTimeout(timer)
        this.#waiters.delete(done)
        hold.cancel = undefined
        resolve(t)
      }
      const timer = setTimeout(() => done(undefined), left)
      this.#waiters.add(done)
      hold.cancel = () => done(undefined)
    })
  }
}

/** What went back: the bot's body (utf-8), or the relay's own text when the bot never answered. */
export function answerText(answer: BotAnswer | undefined, error: string | undefined): string {
  return answer ? Buffer.from(answer.text, 'latin1').toString('utf8') : error ? `bot dev: ${error}\n` : ''
}
