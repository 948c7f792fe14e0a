/**
 * Bridge delivery (`--tunnel none`, and the fallback when no tunnel works): no public URL and no
 * webhook. `bot dev` long-polls getUpdates and POSTs each update to the relay the way Telegram
 * would (UpdateBridge in ./bridge.ts); the bot runs in webhook mode, unchanged.
 */
import {FixableError} from '../../lib/errors.js'
import {pollerCutOffText} from '../poller-check.js'
import {deleteDevWebhook, joinUrl} from '../webhook.js'
import type {Delivery, DeliveryContext} from './types.js'

/** The part of UpdateBridge (./bridge.ts) this delivery uses. */
interface BridgeEvent {
  type: string
  text: string
  fix?: string
}
interface UpdateBridgeLike {
  start(): Promise<void>
  stop(): Promise<{pending: number}>
}
type UpdateBridgeClass = new (options: {
  api: DeliveryContext['api']
  target: {url: string; secret: string}
  maxConnections?: number
  allowedUpdates?: string[]
  onEvent: (event: BridgeEvent) => void
  signal?: AbortSignal
}) => UpdateBridgeLike

async function loadBridge(): Promise<UpdateBridgeClass> {
  const file = './bridge.js'
  try {
    const mod = (await import(file)) as {UpdateBridge?: UpdateBridgeClass}
    if (mod.UpdateBridge) return mod.UpdateBridge
  } catch {
    // reported below
  }
  throw new FixableError('The polling bridge is not available in this build of `bot`.', {code: 'bridge_missing', fix: 'Use a tunnel (--tunnel localtunnel) or --mode polling.'})
}

export class BridgeDelivery implements Delivery {
  readonly name = 'bridge'
  readonly botMode = 'webhook'
  readonly url = undefined
  readonly #c: DeliveryContext
  #bridge: UpdateBridgeLike | undefined
  #stopping: Promise<void> | undefined

  constructor(context: DeliveryContext) {
    if (!context.relay) throw new Error('the bridge delivery needs the relay')
    this.#c = context
  }

  onLost(): void {
    // The bridge is the last resort: it reports trouble but is never replaced.
  }

  async start(): Promise<void> {
    const c = this.#c
    const relay = c.relay!
    const UpdateBridge = await loadBridge()
    await c.step('webhook', 'Starting the polling bridge (no webhook, no public URL)…', async () => {
      if (c.webhook.replaced) await deleteDevWebhook(c.api, {signal: c.signal})
      else if (c.dropPendingUpdates) await c.api.deleteWebhook({drop_pending_updates: true}, {signal: c.signal})
      const found = await c.pollers()
      const bridge = new UpdateBridge({
        api: c.api,
        target: {url: joinUrl(`http://127.0.0.1:${relay.port}`, c.path), secret: c.secret},
        maxConnections: c.maxConnections,
        allowedUpdates: c.allowedUpdates,
        signal: c.signal,
        onEvent: (e) => {
          if (e.type === 'delivered') return // the relay logs each update
          if (e.type === 'recovered') c.emit({type: 'info', text: e.text})
          else c.emit({type: 'warn', text: e.text, ...(e.fix ? {fix: e.fix} : {})})
        },
      })
      this.#bridge = bridge
      await bridge.start()
      if (found) c.emit({type: 'warn', ...pollerCutOffText(found, 'bridge')})
    }, () => 'Polling bridge running: `bot dev` takes the updates with getUpdates and posts them to the bot (no webhook is set)')
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const result = await this.#bridge?.stop()
      if (result?.pending) this.#c.emit({type: 'info', text: `${result.pending} update${result.pending === 1 ? '' : 's'} not acknowledged by the bot stay pending at Telegram.`})
    })()
    return this.#stopping
  }

  async close(): Promise<void> {
    await this.stop()
  }
}
