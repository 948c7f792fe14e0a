/**
 * Polling delivery (`--mode polling`): no relay, no webhook; the bot calls getUpdates itself with
 * BOT_MODE=polling. A webhook replaced with --force is deleted for the session (pending kept)
 * and put back after the bot stopped polling.
 */
import {deleteDevWebhook} from '../webhook/operations.js'
import type {Delivery, DeliveryContext} from './types.js'

export class PollingDelivery implements Delivery {
  readonly name = 'polling'
  readonly botMode = 'polling'
  readonly url = undefined
  readonly #c: DeliveryContext

  constructor(context: DeliveryContext) {
    this.#c = context
  }

  async start(): Promise<void> {
    const c = this.#c
    if (c.webhook.replaced) {
      await c.step(
        'webhook',
        'Deleting the webhook (pending updates kept)…',
        () => deleteDevWebhook(c.api, {signal: c.signal}),
        () => 'Webhook deleted for this session (restored on exit)',
      )
    } else if (c.dropPendingUpdates) {
      await c.api.deleteWebhook({drop_pending_updates: true}, {signal: c.signal})
      c.emit({type: 'info', text: 'Pending updates dropped, as asked (--drop-pending-updates).'})
    }
  }

  async stop(): Promise<void> {}
  async close(): Promise<void> {}
  onLost(): void {}
}
