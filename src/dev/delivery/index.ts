/**
 * Which delivery a session starts with (chosen here, once), and the one swap there is: a tunnel
 * that is gone for good gives way to the polling bridge, the bot untouched.
 */
import type {DevSessionOptions} from '../session-options.js'
import {errorMessage} from '../render.js'
import {BridgeDelivery} from './bridge/delivery.js'
import {PollingDelivery} from './polling.js'
import {TunnelWebhookDelivery} from './tunnel/delivery.js'
import type {Delivery, DeliveryContext} from './types.js'

export {DeliveryStartError, type Delivery, type DeliveryContext, type DeliveryName} from './types.js'

export function createDelivery(o: DevSessionOptions, context: DeliveryContext): Delivery {
  if (o.mode === 'polling') return new PollingDelivery(context)
  if (o.bridge) return new BridgeDelivery(context)
  if (!o.tunnel) throw new Error('webhook mode needs a tunnel provider or the bridge')
  return new TunnelWebhookDelivery(context, {
    provider: o.tunnel,
    monitor: o.monitorTunnel,
    probeIntervalMs: o.probeIntervalMs,
    retries: o.tunnelRetries,
    backoffMs: o.tunnelBackoffMs,
    openTimeoutMs: o.tunnelOpenTimeoutMs,
    webhookCheckMs: o.webhookCheckMs,
  })
}

/**
 * Close the lost tunnel, delete our webhook (pending updates kept) and start the bridge in its
 * place. Returns the bridge, or undefined when the session must stop (it has been told why).
 */
export async function swapToBridge(
  context: DeliveryContext,
  from: Delivery,
  reason: string,
  stopped: () => boolean,
): Promise<Delivery | undefined> {
  const {webhook, emit} = context
  await from.close().catch(() => {})
  for (let attempt = 0; attempt < 3 && webhook.url !== undefined && !stopped(); attempt++) {
    try {
      await webhook.deleteOurs({timeoutMs: 5000})
    } catch (e) {
      emit({type: 'warn', text: `deleteWebhook failed: ${errorMessage(e)}`})
    }
  }
  if (stopped()) return undefined
  if (webhook.url !== undefined) {
    emit({
      type: 'warn',
      text: 'The webhook could not be deleted, so polling would get 409; stopping.',
      fix: 'Run `bot webhook delete`, then `bot dev --tunnel none`.',
    })
    return undefined
  }
  emit({
    type: 'fallback',
    mode: 'bridge',
    error: reason,
    text: `! No tunnel works (${reason}). Updates now arrive by polling through \`bot dev\` (webhook deleted, pending updates kept); the bot keeps running in webhook mode, same process.`,
  })
  return new BridgeDelivery(context)
}
