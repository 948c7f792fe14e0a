/**
 * The control API's payment routes (docs/emulator.md, "Payments"). The user's own (pay an invoice, renew a
 * subscription, buy paid media) are actions of the table (../actions/payments.ts, served by actions.ts):
 *
 *   POST /_emulator/bots/{token}/invoices/{message_id | slug}/pay   {user_id?, chat_id?, order_info?, shipping_address?,
 *                                                                   shipping_option_id?, tip_amount?}
 *   POST /_emulator/bots/{token}/subscriptions/{charge_id}/renew    the next period of a Stars subscription
 *   POST /_emulator/bots/{token}/chats/{chat_id}/messages/{message_id}/purchase   {user_id?}: paid media bought
 *
 * and here what the bot's payments are:
 *
 *   GET  /_emulator/bots/{token}/payments                           every attempt, the Star transactions, the balance
 *
 * `pay` answers once the payment is settled (paid, refused, timed out…), so it may take the bot's whole 10-second
 * window (times timeScale).
 */
import {attemptJson} from '../actions/payments.js'
import type {Ctx, Route} from './route.js'

function getPayments({emu, bot}: Ctx): unknown {
  return {
    attempts: emu.payments(bot.token).map(attemptJson),
    transactions: bot.payments.transactions,
    balance: bot.payments.balance(),
  }
}

export const PAYMENT_ROUTES: Record<string, Route> = {
  payments: {method: 'GET', handler: getPayments},
}
