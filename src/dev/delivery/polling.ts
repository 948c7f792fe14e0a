/**
 * Polling delivery (`--mode polling`): no relay, no webhook; the bot calls getUpdates itself with
 * BOT_MODE=polling. The session's webhook clears the way (webhook/session-webhook.ts): a webhook
 * replaced with --force is deleted for the session (pending kept) and put back after the bot stopped
 * polling (parts/webhook.ts).
 */
import type {Delivery, DeliveryContext} from './types.js'

export class PollingDelivery implements Delivery {
  readonly name = 'polling'
  readonly botMode = 'polling'
  readonly url = undefined
  readonly #context: DeliveryContext

  constructor(context: DeliveryContext) {
    this.#context = context
  }

  async start(): Promise<void> {
    const c = this.#context
    // The webhook --force took over is deleted as a step of its own; dropping pending updates is said after.
    if (c.webhook.replaced)
      await c.step(
        'webhook',
        'Deleting the webhook (pending updates kept)…',
        () => c.webhook.clearForPolling(c.signal),
        () => 'Webhook deleted for this session (restored on exit)',
      )
    else if ((await c.webhook.clearForPolling(c.signal)) === 'dropped')
      c.emit({type: 'info', text: 'Pending updates dropped, as asked (--drop-pending-updates).'})
  }

  async stop(): Promise<void> {}
  async close(): Promise<void> {}
  onLost(): void {}
}
