/**
 * Bridge delivery (`--tunnel none`, and the fallback when no tunnel works): no public URL and no
 * webhook. `bot dev` long-polls getUpdates and POSTs each update to the relay the way Telegram
 * would (UpdateBridge in ./bridge.ts); the bot runs in webhook mode, unchanged.
 */
import {pollerCutOffText} from '../../poller-check.js'
import {joinUrl} from '../../webhook/operations.js'
import {UpdateBridge} from './bridge.js'
import type {Delivery, DeliveryContext} from '../types.js'

export class BridgeDelivery implements Delivery {
  readonly name = 'bridge'
  readonly botMode = 'webhook'
  readonly url = undefined
  readonly #context: DeliveryContext
  #bridge: UpdateBridge | undefined
  #stopping: Promise<void> | undefined

  constructor(context: DeliveryContext) {
    if (!context.relay) throw new Error('the bridge delivery needs the relay')
    this.#context = context
  }

  /** The bridge was started (it is not when the bot turned out to poll by itself). */
  get started(): boolean {
    return this.#bridge !== undefined
  }

  onLost(): void {
    // The bridge is the last resort: it reports trouble but is never replaced.
  }

  async start(): Promise<void> {
    const c = this.#context
    const relay = c.relay!
    await c.step(
      'webhook',
      'Starting the polling bridge (no webhook, no public URL)…',
      async () => {
        await c.webhook.clearForPolling(c.signal)
        const found = await c.pollers()
        // The bot polls by itself: the session switches to polling delivery next, so no bridge.
        if (c.botPolls?.()) return
        const bridge = new UpdateBridge({
          api: c.api,
          target: {url: joinUrl(`http://127.0.0.1:${relay.port}`, c.webhookPath), secret: c.webhookSecret},
          maxConnections: c.maxConnections,
          allowedUpdates: c.allowedUpdates,
          signal: c.signal,
          onEvent: (e) => {
            if (e.type === 'delivered') return // the relay logs each update
            if (e.type === 'recovered') c.emit({type: 'info', text: e.text})
            else c.emit({type: 'warn', text: e.text, ...('fix' in e && e.fix ? {fix: e.fix} : {})})
          },
        })
        this.#bridge = bridge
        await bridge.start()
        if (found) c.emit({type: 'warn', ...pollerCutOffText(found, 'bridge')})
      },
      () =>
        this.#bridge
          ? 'Polling bridge running: `bot dev` takes the updates with getUpdates and posts them to the bot (no webhook is set)'
          : 'Polling bridge not started: the bot polls for updates itself',
    )
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const result = await this.#bridge?.stop()
      if (result?.pending)
        this.#context.emit({
          type: 'info',
          text: `${result.pending} update${result.pending === 1 ? '' : 's'} not acknowledged by the bot stay pending at Telegram.`,
        })
    })()
    return this.#stopping
  }

  async close(): Promise<void> {
    await this.stop()
  }
}
