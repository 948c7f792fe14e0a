/**
 * Tunnel + webhook delivery: open a tunnel to the relay (cloudflared, localtunnel, the user's
 * --public-url, or loopback offline), prove the public URL reaches the relay's health path,
 * then setWebhook. The tunnel keeper reopens a lost tunnel and points the webhook at the new URL;
 * when that keeps failing the delivery is "lost" (the session swaps in the bridge). The webhook
 * watch notices a webhook changed behind our back.
 */
import {FixableError} from '../../../lib/errors.js'
import type {Tunnel, TunnelProvider} from '../../../tunnel/types.js'
import {pollerCutOffText} from '../../poller-check.js'
import {errorMessage} from '../../render.js'
import {proveReachable} from '../../../tunnel/probe.js'
import {TunnelKeeper} from './keeper.js'
import {joinUrl} from '../../webhook/operations.js'
import {WebhookWatch} from './webhook-watch.js'
import {DeliveryStartError, type Delivery, type DeliveryContext} from '../types.js'

export interface TunnelDeliveryOptions {
  provider: TunnelProvider
  monitor?: boolean
  probeIntervalMs?: number
  retries?: number
  backoffMs?: number
  openTimeoutMs?: number
  /** How long the public URL may take to answer the health probe (default: openTimeoutMs, 5 s for --public-url). */
  proveTimeoutMs?: number
  /** getWebhookInfo every this many ms (default 20 s). */
  webhookCheckMs?: number
}

/**
 * Prove `url` reaches this relay (tunnel/probe.ts: public DNS first, then GET <url><healthPath>
 * must answer the relay's nonce). A URL with a path (a proxy that keeps its prefix) may reach the
 * health path at the host's root instead: both are tried at once, the first proof wins.
 */
export async function proveToRelay(
  url: string,
  healthPath: string,
  nonce: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const origin = new URL(url).origin
  const bases = origin === url.replace(/\/+$/, '') ? [url] : [url, origin]
  const done = new AbortController()
  const both = AbortSignal.any([signal, done.signal])
  try {
    await Promise.any(bases.map((base) => proveReachable(base, healthPath, {expect: nonce, timeoutMs, signal: both})))
  } catch (error) {
    if (signal.aborted) throw signal.reason
    throw (error as AggregateError).errors?.[0] ?? error
  } finally {
    done.abort()
  }
}

export class TunnelWebhookDelivery implements Delivery {
  readonly name = 'tunnel'
  readonly botMode = 'webhook'
  readonly #context: DeliveryContext
  readonly #options: TunnelDeliveryOptions
  #keeper: TunnelKeeper | undefined
  #tunnel: Tunnel | undefined
  #watch: WebhookWatch | undefined
  #lost: ((reason: string) => void) | undefined
  #stopped = false

  constructor(context: DeliveryContext, options: TunnelDeliveryOptions) {
    if (!context.relay) throw new Error('the tunnel delivery needs the relay')
    this.#context = context
    this.#options = options
  }

  get url(): string | undefined {
    return this.#tunnel?.url
  }

  onLost(listener: (reason: string) => void): void {
    this.#lost = listener
  }

  nudge(): void {
    this.#watch?.checkNow()
  }

  async start(): Promise<void> {
    const c = this.#context
    const o = this.#options
    const relay = c.relay!
    const name = o.provider.name
    // The proof is a real request through the tunnel: its deadline never goes below 5 s, even when opening a
    // tunnel is given less (a loaded machine can take more than a second to answer through localtunnel).
    const proveMs = o.proveTimeoutMs ?? (name === 'public-url' ? 5000 : Math.max(o.openTimeoutMs ?? 15_000, 5000))
    const keeper = new TunnelKeeper({
      provider: o.provider,
      port: relay.port,
      healthPath: relay.healthPath,
      expect: relay.nonce,
      monitor: o.monitor ?? (name !== 'public-url' && name !== 'loopback'),
      probeIntervalMs: o.probeIntervalMs,
      retries: o.retries,
      backoffMs: o.backoffMs,
      openTimeoutMs: o.openTimeoutMs,
      signal: c.signal,
      onDown: (error) =>
        c.emit({
          type: 'tunnel-down',
          error,
          text: `! The tunnel is down (${error ?? 'no reason given'}); reconnecting…`,
        }),
      onRetry: (attempt, of, delayMs, error) =>
        c.emit({
          type: 'tunnel-retry',
          attempt,
          of,
          delayMs,
          error,
          text: `  tunnel attempt ${attempt}/${of}${delayMs ? ` in ${(delayMs / 1000).toFixed(1)}s` : ''}${error ? ` (last error: ${error})` : ''}`,
        }),
      onReconnected: async (tunnel) => {
        await proveToRelay(tunnel.url, relay.healthPath, relay.nonce, proveMs, c.signal)
        await c.webhook.set(joinUrl(tunnel.url, c.webhookPath), c.signal)
        this.#tunnel = tunnel
        c.emit({type: 'tunnel-reconnected', url: tunnel.url, text: `✓ Tunnel back at ${tunnel.url}; webhook updated`})
      },
      onGiveUp: (error) => {
        if (!this.#stopped) this.#lost?.(error ?? 'the tunnel could not be reopened')
      },
    })
    this.#keeper = keeper

    const opening =
      name === 'loopback'
        ? 'Using loopback (no tunnel)…'
        : name === 'public-url'
          ? 'Using your public URL (no tunnel)…'
          : `Opening a tunnel (${name})…`
    const tunnel = await c.step(
      'tunnel',
      opening,
      async () => {
        let opened: Tunnel
        try {
          opened = await keeper.open()
        } catch (error) {
          if (c.signal.aborted) throw error
          throw new DeliveryStartError(errorMessage(error), {cause: error})
        }
        this.#tunnel = opened
        if (name === 'loopback') return opened
        try {
          await proveToRelay(opened.url, relay.healthPath, relay.nonce, proveMs, c.signal)
        } catch (error) {
          if (c.signal.aborted) throw error
          if (name === 'public-url')
            throw new FixableError(`The public URL ${opened.url} does not reach the relay: ${errorMessage(error)}.`, {
              code: 'public_url_unreachable',
              fix: `Forward it to the relay on 127.0.0.1:${relay.port}, or pass --relay-port with the port your proxy forwards to; then run \`bot dev\` again.`,
            })
          throw new DeliveryStartError(`the tunnel ${opened.url} does not reach the relay (${errorMessage(error)})`, {
            cause: error,
          })
        }
        return opened
      },
      (t) =>
        name === 'loopback'
          ? `Loopback URL ${t.url} (no tunnel)`
          : name === 'public-url'
            ? `Public URL ${t.url} → relay port ${relay.port} (answers)`
            : `Tunnel ${t.url} (answers)`,
    )

    const prefix = new URL(tunnel.url).pathname.replace(/\/+$/, '')
    if (prefix) relay.addAlias(prefix + c.webhookPath)

    // Is someone else long-polling this bot? (setWebhook is about to cut them off.)
    const found = await c.pollers()
    // The bot polls by itself: the session switches to polling delivery next, so no webhook now.
    if (c.botPolls?.()) return
    await c.step(
      'webhook',
      'Setting the webhook…',
      () => c.webhook.set(joinUrl(tunnel.url, c.webhookPath), c.signal),
      () =>
        `Webhook set to ${tunnel.url}/webhook/… with a secret token${c.dropPendingUpdates ? ' (pending updates dropped, as asked)' : ''}`,
    )
    if (found) c.emit({type: 'warn', ...pollerCutOffText(found, 'webhook')})

    if (name !== 'loopback') {
      this.#watch = new WebhookWatch({
        api: c.api,
        webhook: c.webhook,
        intervalMs: o.webhookCheckMs ?? 20_000,
        signal: c.signal,
        emit: c.emit,
      })
      this.#watch.start()
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#watch?.stop()
    this.#keeper?.stop()
  }

  async close(): Promise<void> {
    await this.stop()
    const keeper = this.#keeper
    this.#keeper = undefined
    await keeper?.close()
  }
}
