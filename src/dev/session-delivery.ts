/**
 * The session's one delivery (tunnel + webhook, the polling bridge, or the bot's own polling) and
 * what happens when it is lost: with --fallback the bridge takes its place (delivery/index.ts does
 * the swap), the bot untouched; without it the session stops, saying why.
 */
import {swapToBridge, type Delivery, type DeliveryContext} from './delivery/index.js'
import type {DevEventSink} from './events.js'
import {errorMessage} from './render.js'

export interface SessionDeliveryOptions {
  /** Swap a lost tunnel for the bridge (else stop). */
  fallback: boolean
  context: () => DeliveryContext
  emit: DevEventSink
  /** The session is ending: no swap. */
  stopped: () => boolean
  stop: (reason: 'error') => void
  /** The bridge took over and started. */
  onSwapped: () => void
}

export class SessionDelivery {
  #o: SessionDeliveryOptions
  #current: Delivery | undefined

  constructor(options: SessionDeliveryOptions) {
    this.#o = options
  }

  get current(): Delivery | undefined {
    return this.#current
  }

  /** Make `delivery` the current one; when it is lost, fall back. */
  use(delivery: Delivery): void {
    this.#current = delivery
    delivery.onLost((reason) => void this.fallBack(delivery, reason).catch((error) => this.#failed(error)))
  }

  /** The tunnel is gone (or never came): swap in the bridge; the bot keeps running. */
  async fallBack(from: Delivery, reason: string): Promise<void> {
    const o = this.#o
    if (o.stopped() || this.#current !== from) return
    if (!o.fallback) {
      o.emit({
        type: 'warn',
        text: `The tunnel could not be reopened (${reason}); stopping (--no-fallback).`,
        fix: 'Run `bot dev` again, or without --no-fallback to let updates arrive through the polling bridge.',
      })
      return o.stop('error')
    }
    const bridge = await swapToBridge(o.context(), from, reason, o.stopped)
    if (!bridge) return o.stop('error')
    this.use(bridge)
    await bridge.start()
    o.onSwapped()
  }

  #failed(error: unknown): void {
    this.#o.emit({type: 'warn', text: errorMessage(error)})
    this.#o.stop('error')
  }
}
