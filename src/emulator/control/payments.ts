/**
 * The control API's payment routes (docs/emulator.md, "Payments"):
 *
 *   POST /_emulator/bots/{token}/invoices/{message_id | slug}/pay   {user_id?, chat_id?, order_info?, shipping_address?,
 *                                                                   shipping_option_id?, tip_amount?}
 *   GET  /_emulator/bots/{token}/payments                           every attempt, the Star transactions, the balance
 *   POST /_emulator/bots/{token}/subscriptions/{charge_id}/renew    the next period of a Stars subscription
 *   POST /_emulator/bots/{token}/chats/{chat_id}/messages/{message_id}/purchase   {user_id?}: paid media bought
 *
 * `pay` answers once the payment is settled (paid, refused, timed out…), so it may take the bot's whole 10-second
 * window (times timeScale).
 */
import type {PaymentAttempt} from '../state/payments.js'
import {type Ctx, type Route, bad, int, obj, only, pathInt, str} from './route.js'

/** An attempt as the control API shows it (snake_case, as the Bot API). */
export function attemptJson(a: PaymentAttempt): Record<string, unknown> {
  return {
    id: a.id,
    user_id: a.userId,
    invoice: a.invoice,
    currency: a.currency,
    total_amount: a.totalAmount,
    status: a.status,
    ...(a.errorMessage !== undefined ? {error_message: a.errorMessage} : {}),
    ...(a.shippingQueryId ? {shipping_query_id: a.shippingQueryId} : {}),
    ...(a.preCheckoutQueryId ? {pre_checkout_query_id: a.preCheckoutQueryId} : {}),
    ...(a.chargeId ? {telegram_payment_charge_id: a.chargeId} : {}),
    ...(a.successfulPayment ? {successful_payment: a.successfulPayment} : {}),
    ...(a.message ? {message: a.message} : {}),
  }
}

async function postPay({emu, bot, body, path}: Ctx): Promise<unknown> {
  only(body, [
    'user_id',
    'chat_id',
    'first_name',
    'username',
    'order_info',
    'shipping_address',
    'shipping_option_id',
    'tip_amount',
  ])
  const which = path.invoice
  const byMessage = /^\d+$/.test(which)
  if (byMessage && Number(which) < 1) throw bad(`message_id "${which}" in the path must be ≥ 1`)
  const attempt = await emu.payInvoice(bot.token, {
    ...(byMessage ? {messageId: Number(which)} : {slug: which}),
    userId: int(body, 'user_id', {min: 1}),
    chatId: int(body, 'chat_id', {nonZero: true}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    orderInfo: obj(body, 'order_info'),
    shippingAddress: obj(body, 'shipping_address'),
    shippingOptionId: str(body, 'shipping_option_id'),
    tipAmount: int(body, 'tip_amount', {min: 0}),
  })
  return attemptJson(attempt)
}

function getPayments({emu, bot}: Ctx): unknown {
  return {
    attempts: emu.payments(bot.token).map(attemptJson),
    transactions: bot.payments.transactions,
    balance: bot.payments.balance(),
  }
}

function postRenew({emu, bot, body, path}: Ctx): unknown {
  only(body, [])
  const renewed = emu.renewSubscription(bot.token, path.charge_id)
  return {telegram_payment_charge_id: renewed.chargeId, message: renewed.message}
}

function postPurchase(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, ['user_id'])
  return emu.buyPaidMedia(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    messageId: pathInt(ctx, 'message_id', {min: 1}),
    userId: int(body, 'user_id', {min: 1}),
  })
}

export const PAYMENT_ROUTES: Record<string, Route> = {
  'invoices/:invoice/pay': {method: 'POST', handler: postPay},
  payments: {method: 'GET', handler: getPayments},
  'subscriptions/:charge_id/renew': {method: 'POST', handler: postRenew},
  'chats/:chat_id/messages/:message_id/purchase': {method: 'POST', handler: postPurchase},
}
