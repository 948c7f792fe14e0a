/** Payments: a user pays an invoice, a subscription renews, paid media is bought (../user/payments.ts). */
import type {PaymentAttempt} from '../state/payments.js'
import type {TgObject, Update} from '../types.js'
import {type PayOptions, buyPaidMedia as buy, pay, renewSubscription as renew} from '../user/payments.js'
import {defineAction} from './action.js'
import {InputError, field, int, object, text, who} from './fields.js'

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

/** The invoice: its message's id (digits), or an invoice link's slug (or the whole link). */
const invoice = field(
  {
    json: {type: ['integer', 'string']},
    description: "the invoice message's id, or an invoice link (or its slug)",
    missing: () => 'invoice is required: the message_id of the invoice, or an invoice link',
  },
  (value, _name, source): Pick<PayOptions, 'messageId' | 'slug'> => {
    const which = String(value)
    if (/^\d+$/.test(which)) {
      if (Number(which) < 1)
        throw new InputError(`message_id "${which}" ${source === 'path' ? 'in the path ' : ''}must be ≥ 1`)
      return {messageId: Number(which)}
    }
    if (typeof value !== 'string' || value === '')
      throw new InputError('invoice must be the message_id of the invoice, or an invoice link')
    return {slug: value}
  },
)

/** What the conversation API adds: where the successful_payment goes (so the user can wait on the bot's answer). */
export type PayInput = PayOptions & {injectPaid?: (body: TgObject) => Update}

export const payInvoice = defineAction({
  name: 'pay_invoice',
  description: 'the user pays an invoice: shipping_query (flexible), pre_checkout_query, then on ok successful_payment',
  params: {
    invoice,
    user_id: who.user_id,
    chat_id: int("the invoice message's chat (default: the user's private chat)", {nonZero: true}),
    first_name: who.first_name,
    username: who.username,
    order_info: object('what the user fills in when the invoice asks (need_name, need_email…)'),
    shipping_address: object('the shipping address of a flexible invoice (default: a made-up one)'),
    shipping_option_id: text("the shipping option picked among the bot's (default: the first)"),
    tip_amount: int('a tip in the smallest units of the currency (not for Stars)', {min: 0}),
  },
  result: "the attempt once settled: {id, status ('paid', 'refused', 'timeout'…), error_message?, message?…}",
  route: 'invoices/:invoice/pay',
  read: (f): PayInput => ({
    ...f.invoice,
    userId: f.user_id,
    chatId: f.chat_id,
    firstName: f.first_name,
    username: f.username,
    orderInfo: f.order_info,
    shippingAddress: f.shipping_address,
    shippingOptionId: f.shipping_option_id,
    tipAmount: f.tip_amount,
  }),
  run: ({payments}, {injectPaid, ...options}: PayInput): Promise<PaymentAttempt> => pay(payments(injectPaid), options),
  json: attemptJson,
})

export const renewSubscription = defineAction({
  name: 'renew_subscription',
  description: 'the next period of a Stars subscription is paid: a successful_payment with is_recurring',
  params: {charge_id: text("the subscription's telegram_payment_charge_id", {required: true})},
  result: '{telegram_payment_charge_id, message}: the new charge and its message',
  route: 'subscriptions/:charge_id/renew',
  read: (f): {chargeId: string} => ({chargeId: f.charge_id}),
  run: ({payments}, {chargeId}: {chargeId: string}) => renew(payments(), chargeId),
  json: (renewed) => ({telegram_payment_charge_id: renewed.chargeId, message: renewed.message}),
})

export interface PurchaseInput {
  chatId: number
  messageId: number
  userId?: number
}

export const buyPaidMedia = defineAction({
  name: 'buy_paid_media',
  description: "the user buys the paid media of the bot's message: a Star transaction and purchased_paid_media",
  params: {
    chat_id: int("the message's chat", {required: true, nonZero: true}),
    message_id: int("the bot's message with paid media", {required: true, min: 1}),
    user_id: who.user_id,
  },
  result: '{update_id, transaction?}',
  route: 'chats/:chat_id/messages/:message_id/purchase',
  read: (f): PurchaseInput => ({chatId: f.chat_id, messageId: f.message_id, userId: f.user_id}),
  run: ({payments}, options: PurchaseInput) => buy(payments(), options),
  json: (result) => result,
})
