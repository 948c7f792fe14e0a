/**
 * The bot's shop: one product sold for Telegram Stars (currency XTR: no payment provider, no
 * provider token). /buy sends its invoice; Telegram asks the bot to confirm each payment at the last
 * moment (a pre_checkout_query, to answer within 10 seconds); then the bot gets a successful_payment
 * message whose telegram_payment_charge_id it keeps: it is what a refund (refundStarPayment) needs.
 *
 * Test it without spending a Star: `bot dev --offline` and `bot trigger payment`, or the emulator's
 * `user.pay()` in a test (test/bot.test.ts).
 */

/** What /buy sells. `payload` comes back in the pre-checkout query and the payment: it names the order. */
export const PRODUCT = {
  title: 'Supporter pass',
  description: 'Say thanks for this bot with 1 Telegram Star.',
  payload: 'supporter-pass',
  currency: 'XTR',
  /** In Stars (XTR has no smaller unit). */
  price: 1,
} as const

/** The invoice's parameters (sendInvoice), the same for every framework. */
export const INVOICE = {
  title: PRODUCT.title,
  description: PRODUCT.description,
  payload: PRODUCT.payload,
  currency: PRODUCT.currency,
  prices: [{label: PRODUCT.title, amount: PRODUCT.price}],
}

/**
 * Whether to accept a pre-checkout query: the order must still be one the bot sells, at its price.
 * Returns the message Telegram shows the user when it is not (answerPreCheckoutQuery's error_message).
 */
export function checkOrder(order: {invoicePayload: string; currency: string; totalAmount: number}): string | undefined {
  if (order.invoicePayload !== PRODUCT.payload) return 'Sorry, this item is no longer sold.'
  if (order.currency !== PRODUCT.currency || order.totalAmount !== PRODUCT.price)
    return 'Sorry, the price has changed: send /buy again.'
  return undefined
}

export const THANKS = 'Thank you for your support! Your supporter pass is active. (/refund gives your Star back.)'
export const NOTHING_TO_REFUND = 'You have no purchase to refund.'
export const REFUNDED = 'Refunded: your Star is back.'

/** The charge ids a chat's session keeps (newest last, at most 20). */
export function remember(charges: string[] | undefined, chargeId: string): string[] {
  return [...(charges ?? []), chargeId].slice(-20)
}
