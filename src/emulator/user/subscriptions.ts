/**
 * A user's payment subscription to the bot changes (Bot API 10.2, BotSubscriptionUpdated): the `subscription`
 * update with the user, the subscription invoice's payload and the new state: `canceled` (the user canceled it),
 * `active` (re-enabled after a cancel) or `failed` (a payment for it failed).
 */
import type {BotState} from '../state/bot.js'
import type {User} from '../telegram.js'
import {userOf} from './actions.js'

export const SUBSCRIPTION_STATES = ['canceled', 'active', 'failed'] as const

export interface SubscriptionOptions {
  /** The payload of the subscription's invoice (sendInvoice/createInvoiceLink with subscription_period). */
  invoicePayload: string
  state: (typeof SUBSCRIPTION_STATES)[number]
  userId?: number
  firstName?: string
  username?: string
}

/** The `subscription` update body (without update_id). */
export function subscriptionUpdate(
  bot: BotState,
  options: SubscriptionOptions,
): {subscription: {user: User; invoice_payload: string; state: SubscriptionOptions['state']}} {
  if (typeof options.invoicePayload !== 'string' || options.invoicePayload === '')
    throw new Error('invoicePayload must be a non-empty string')
  if (!SUBSCRIPTION_STATES.includes(options.state))
    throw new Error(`state must be one of ${SUBSCRIPTION_STATES.join(', ')}`)
  const user = userOf(bot, options)
  return {subscription: {user, invoice_payload: options.invoicePayload, state: options.state}}
}
