/**
 * How updates get from Telegram to the bot. A session runs exactly one delivery at a time; a
 * fallback swaps it (tunnel → bridge) without touching the bot.
 *
 * - tunnel/delivery.ts: open a tunnel, prove it reaches the relay, setWebhook; keep the tunnel alive.
 * - bridge/delivery.ts: no public URL; `bot dev` long-polls and POSTs each update to the relay.
 * - polling.ts: no relay; the bot polls by itself (BOT_MODE=polling).
 */
import type {BotApi} from '../../telegram/index.js'
import type {BotMode} from '../bot/process.js'
import type {DevEventSink, StepId} from '../events.js'
import type {Relay} from '../relay/relay.js'
import type {PollerFound} from '../poller-check.js'
import type {SessionWebhook} from '../webhook/session-webhook.js'

export type DeliveryName = 'tunnel' | 'bridge' | 'polling'

export interface Delivery {
  readonly name: DeliveryName
  /** How the bot runs under this delivery. */
  readonly botMode: BotMode
  /** The public base URL (tunnel), for the Ready line and WEBHOOK_URL. */
  readonly url: string | undefined
  /** Start taking updates; rejects when that cannot happen (a DeliveryStartError for a tunnel that can be replaced by the bridge). */
  start(): Promise<void>
  /** Stop taking updates (before the webhook is cleaned and the bot stopped). Idempotent, bounded. */
  stop(): Promise<void>
  /** Release what is left (the tunnel itself). Idempotent. */
  close(): Promise<void>
  /** This delivery cannot go on (the tunnel is gone for good). At most once. */
  onLost(listener: (reason: string) => void): void
  /** The bot listens again: a good moment to check the webhook (optional). */
  nudge?(): void
}

/** What every delivery may use from its session. */
export interface DeliveryContext {
  api: BotApi
  token: string
  signal: AbortSignal
  emit: DevEventSink
  /** Our hold on the webhook at Telegram (set / delete / restore). */
  webhook: SessionWebhook
  /** Absent in polling mode. */
  relay?: Relay
  /** The webhook's path and secret_token, which the relay checks. */
  webhookPath: string
  webhookSecret: string
  maxConnections?: number
  allowedUpdates?: string[]
  dropPendingUpdates?: boolean
  /** The bot polls for updates itself: the session is switching to polling, so set no webhook and start no bridge. */
  botPolls?: () => boolean
  /** Another program polling this bot, seen by the check the session started early (once: later calls give undefined). */
  pollers: () => Promise<PollerFound | undefined>
  step<T>(id: StepId, startText: string, fn: () => Promise<T>, okText: (value: T) => string): Promise<T>
}

/** The tunnel could not be opened or proved: the session may fall back to the bridge. */
export class DeliveryStartError extends Error {
  constructor(message: string, options?: {cause?: unknown}) {
    super(message, options)
    this.name = 'DeliveryStartError'
  }
}
