/**
 * delivery: how updates reach the bot, one at a time (docs/architecture.md, "The session's parts"):
 * - tunnel: open a tunnel to the relay (cloudflared, localtunnel, --public-url; loopback offline),
 *   prove it reaches the relay, setWebhook; lost for good → the bridge takes its place (fallback);
 * - bridge: no public URL; `bot dev` long-polls and POSTs each update to the relay;
 * - polling: the bot long-polls by itself (BOT_MODE=polling).
 * Stopping: stop taking updates, then release what is left (the tunnel), each step within its own
 * bound; the webhook part, just before this one, then deletes our webhook (or restores the one
 * --force replaced).
 */
import {waitAtMost} from '../../lib/deadline.js'
import type {SessionContext} from '../part.js'
import {BridgeDelivery} from '../delivery/bridge/delivery.js'
import {PollingDelivery} from '../delivery/polling.js'
import {TunnelWebhookDelivery} from '../delivery/tunnel/delivery.js'
import {DeliveryStartError, type Delivery} from '../delivery/types.js'
import {ReplaceablePartError, type SessionPart} from '../part.js'
import {recordTunnelProcess} from '../orphan.js'
import {errorMessage, fallbackText, switchedText} from '../render.js'

type Kind = 'tunnel' | 'bridge' | 'polling'

function create(kind: Kind, ctx: SessionContext): Delivery {
  const o = ctx.options
  const context = ctx.deliveryContext()
  if (kind === 'polling') return new PollingDelivery(context)
  if (kind === 'bridge') return new BridgeDelivery(context)
  if (!o.tunnel) throw new Error('webhook mode needs a tunnel provider or the bridge')
  return new TunnelWebhookDelivery(context, {
    // The tunnel program it runs is recorded in the state file, so a later session can stop it.
    provider: recordTunnelProcess(o.tunnel, (patch) => ctx.saveState(patch)),
    monitor: o.monitorTunnel,
    probeIntervalMs: o.probeIntervalMs,
    retries: o.tunnelRetries,
    backoffMs: o.tunnelBackoffMs,
    openTimeoutMs: o.tunnelOpenTimeoutMs,
    webhookCheckMs: o.webhookCheckMs,
  })
}

/** Why a delivery takes another's place: a tunnel lost for good (the bridge), or a bot that polls by itself (polling). */
export type Replacing =
  | {kind: 'fallback'; reason: string; webhookDeleted: () => boolean}
  | {kind: 'bot-polls'; handedOver: () => HandedOver}

/** What the replaced delivery gave back: our webhook (deleted), the bridge's polling (stopped), or nothing. */
type HandedOver = 'webhook' | 'bridge' | 'nothing'

/** The delivery of `kind`; `replacing` says whose place it takes, and why. */
export function deliveryPart(kind: Kind, replacing?: Replacing): SessionPart {
  let ctx: SessionContext | undefined
  let delivery: Delivery | undefined
  /** What this delivery's handOver gave back. */
  let handedOver: HandedOver = 'nothing'
  const part: SessionPart = {
    name: 'delivery',
    // Stopping the bridge confirms what the bot acknowledged (up to ~5 s), then the tunnel closes.
    stopMinMs: 8000,
    async start(c) {
      ctx = c
      if (replacing?.kind === 'fallback')
        c.emit({
          type: 'fallback',
          mode: 'bridge',
          error: replacing.reason,
          text: fallbackText(replacing.reason, replacing.webhookDeleted()),
        })
      delivery = create(kind, c)
      c.delivery = delivery
      delivery.onLost((reason) => {
        if (kind === 'tunnel' && !c.options.fallback)
          c.emit({
            type: 'warn',
            text: `The tunnel could not be reopened (${reason}); stopping (--no-fallback).`,
            fix: 'Run `bot dev` again, or without --no-fallback to let updates arrive through the polling bridge.',
          })
        c.events.emit('lost', part, reason)
      })
      try {
        await delivery.start()
      } catch (error) {
        // A tunnel that cannot be opened or proved: the runner may put the bridge in its place.
        if (error instanceof DeliveryStartError) throw new ReplaceablePartError(error.message, {cause: error})
        throw error
      }
      // A bot still waiting for the webhook URL starts now, with or without one (the bridge has none);
      // when no delivery starts, the session ends without ever starting it.
      c.urlSettled()
      if (replacing?.kind === 'bot-polls')
        c.emit({
          type: 'mode-switch',
          mode: 'polling',
          handedOver: replacing.handedOver(),
          text: switchedText(replacing.handedOver()),
        })
    },
    async stop() {
      if (!delivery) return
      await waitAtMost(delivery.stop(), 6000)
      await waitAtMost(delivery.close(), 2000)
    },
    abandon() {
      void delivery?.stop().catch(() => {})
      void delivery?.close().catch(() => {})
    },
  }
  if (kind === 'polling') return part
  return Object.assign(part, {
    // A tunnel lost for good gives way to the bridge, the bot untouched.
    fallback(reason: string) {
      return kind === 'tunnel' && ctx?.options.fallback
        ? deliveryPart('bridge', {kind: 'fallback', reason, webhookDeleted: () => handedOver === 'webhook'})
        : undefined
    },
    // A bot that polls by itself gets the polling delivery, the bot untouched.
    pollingSuccessor() {
      return deliveryPart('polling', {kind: 'bot-polls', handedOver: () => handedOver})
    },
    async handOver() {
      if (!ctx) return true
      const {webhook, emit} = ctx
      if (ctx.botPolls) {
        // Updates the relay holds for a bot that never listens go back to Telegram at once (503), to be polled.
        await ctx.relay?.close()
        if (kind === 'bridge') {
          if (delivery instanceof BridgeDelivery && delivery.started) handedOver = 'bridge'
          await delivery?.stop().catch(() => {})
          return true
        }
      }
      await delivery?.close().catch(() => {})
      const {deleted, released} = await webhook.handOver(3, ctx.signal, (e) =>
        emit({type: 'warn', text: `deleteWebhook failed: ${errorMessage(e)}`}),
      )
      if (deleted) handedOver = 'webhook'
      if (released) return true
      if (!ctx.signal.aborted)
        emit({
          type: 'warn',
          text: 'The webhook could not be deleted, so polling would get 409; stopping.',
          fix: 'Run `bot webhook delete`, then `bot dev --tunnel none`.',
        })
      return false
    },
  } satisfies Pick<SessionPart, 'fallback' | 'handOver' | 'pollingSuccessor'>)
}
