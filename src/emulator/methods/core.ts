/** What method handlers need from the emulator (implemented by BotApiEmulator). */
import type {BotState} from '../state/bot.js'
import type {ApiError} from '../errors.js'
import type {Params} from '../http/params.js'
import type {Answer} from '../http/server.js'

export type {Answer}
import type {DeliveryEvent, TgObject, Update} from '../types.js'

export interface CallContext {
  /** Lower-cased method name. */
  method: string
  source: 'http' | 'webhook-reply'
  /**
   * Run `fn` if the caller goes away (its connection closes, e.g. when the emulator stops) before the answer is
   * sent; returns a function that unregisters it.
   */
  onAbort(fn: () => void): () => void
}

/** A caller that never goes away (webhook replies). */
export const NEVER_ABORTED = (): (() => void) => () => undefined

export type Handler = (bot: BotState, params: Params, core: Core, ctx: CallContext) => Answer | Promise<Answer>

export interface Core {
  /** --local behaviour (http webhooks, any port and IP, max_connections up to 100000). */
  readonly local: boolean
  /** Names resolved in local mode (lower case, no trailing dot → IP): EmulatorOptions.hosts. */
  readonly hosts: ReadonlyMap<string, string>
  /** Epoch ms when the emulator started. */
  readonly startedAt: number
  /** Webhook read (inactivity) timeout in ms, already scaled. */
  readonly readTimeoutMs: number
  /**
   * The emulator's clock for flood control, in ms (real time divided by timeScale), or undefined when flood control
   * is off (EmulatorOptions.floodControl false, or timeScale 0: no time passes between calls, nothing is limited).
   */
  floodClock(): number | undefined
  /** A delay of the real server, multiplied by timeScale. */
  scale(ms: number): number
  /** A timer that stop() clears; returns a function cancelling it. */
  later(fn: () => void, ms: number): () => void
  /** The 409 to send, after the 3-second hold when another 409 went out within the last 3 seconds. */
  conflict(bot: BotState, description: string): Promise<ApiError>
  /** Start / stop the delivery worker of the bot's current webhook. */
  openWebhook(bot: BotState): void
  closeWebhook(bot: BotState): void
  /** Run a method returned in a webhook response (result discarded, call recorded); false when there was none to run. */
  executeReply(bot: BotState, params: Params): Promise<boolean>
  delivered(event: DeliveryEvent): void
  /** A getUpdates offset confirmed (removed) queued updates. */
  confirmed(bot: BotState): void
  /**
   * The webhook answered an update with a 2xx and the method in its answer (if any) has run; `replied` says whether
   * there was one (then the bot's handler may still be running: frameworks answer the webhook early for it).
   */
  handled(bot: BotState, updateId: number, replied: boolean): void
  /** Queue an update a method causes (a refunded_payment message, a chat_member change…), as injectUpdate does. */
  inject(bot: BotState, body: TgObject): Update
}
