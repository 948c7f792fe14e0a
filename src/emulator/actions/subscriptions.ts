/** A user's payment subscription to the bot changes (Bot API 10.2): the subscription update (../user/subscriptions.ts). */
import type {Update} from '../types.js'
import {SUBSCRIPTION_STATES, type SubscriptionOptions, subscriptionUpdate} from '../user/subscriptions.js'
import {defineAction} from './action.js'
import {oneOf, text, who} from './fields.js'

export const updateSubscription = defineAction({
  name: 'update_subscription',
  description: "the user's subscription to the bot is canceled, active again or failed: a subscription update",
  params: {
    invoice_payload: text("the payload of the subscription's invoice", {required: true}),
    state: oneOf('the new state', SUBSCRIPTION_STATES, {required: true}),
    ...who,
  },
  result: '{update_id, subscription}',
  route: 'subscriptions',
  read: (f): SubscriptionOptions => ({
    invoicePayload: f.invoice_payload,
    state: f.state,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: SubscriptionOptions): Update => inject(subscriptionUpdate(bot, options)),
  json: (update) => update,
})
