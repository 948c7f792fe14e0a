/**
 * A user pays an invoice, as Telegram runs it (core.telegram.org/bots/payments): for a flexible invoice paid with a
 * provider, a shipping_query first (the bot answers it with answerShippingQuery); then a pre_checkout_query, which the
 * bot must answer with answerPreCheckoutQuery within 10 seconds (times timeScale); on `ok: true` the payment is made: a
 * charge, a Star transaction for `XTR`, and the `successful_payment` service message in the user's private chat with
 * the bot. No answer, or `ok: false`, and the payment fails with what the user is shown, recorded on the attempt. Also:
 * a Stars subscription's next period (a renewal) and a purchase of paid media.
 */
import type {BotState} from '../state/bot.js'
import {
  type Charge,
  type Invoice,
  type PaymentAttempt,
  type QueryAnswer,
  type Subscription,
  newChargeId,
} from '../state/payments.js'
import type {TgObject, Update} from '../types.js'
import {
  type Message,
  type ShippingAddress,
  type StarTransaction,
  type SuccessfulPayment,
  type User,
  isObject,
} from '../telegram.js'
import {randomBytes} from 'node:crypto'
import {privateChat, userFor} from './users.js'

export interface PayOptions {
  /** The invoice message of the bot (in `chatId`, default: the user's private chat)… */
  messageId?: number
  chatId?: number
  /** …or an invoice link: its slug (the part after `t.me/$`) or the whole link. */
  slug?: string
  /** The payer (default: the user of the private chat the invoice is in, else 1111). */
  userId?: number
  firstName?: string
  username?: string
  /** What the user fills in when the invoice asks for it (need_name, need_email…): defaults are made up otherwise. */
  orderInfo?: TgObject
  /** The shipping address given for a flexible invoice (default: a made-up one). */
  shippingAddress?: TgObject
  /** The shipping option the user picks among those the bot offered (default: the first). */
  shippingOptionId?: string
  /** A tip, in the smallest units of the currency (up to the invoice's max_tip_amount; not for Stars). */
  tipAmount?: number
}

/** What the payment flow needs from the emulator. */
export interface PaymentHost {
  bot: BotState
  /** Queue an update for the bot (the emulator's injectUpdate). */
  inject(body: TgObject): Update
  /** Queue the successful_payment message (default: inject); the conversation API waits on it. */
  injectPaid?(body: TgObject): Update
  /** A timer cleared when the emulator stops. */
  later(fn: () => void, ms: number): () => void
  /** How long the bot has to answer a shipping or pre-checkout query, in ms (10 s times timeScale). */
  windowMs: number
  /** Register a function called when the emulator stops; returns its unregistration. */
  onStop(fail: (err: Error) => void): () => void
}

/** What the user is shown when the bot does not answer in time (the emulator's words: the docs give none). */
export const PRE_CHECKOUT_TIMEOUT =
  'The bot did not answer the pre-checkout query within 10 seconds: the payment was canceled and no money was taken.'
export const SHIPPING_TIMEOUT =
  'The bot did not answer the shipping query in time: the order could not be completed and no money was taken.'

const now = (): number => Math.floor(Date.now() / 1000)

/** The invoice the options name, and where it is; throws an Error saying what is missing. */
function findInvoice(bot: BotState, options: PayOptions): {invoice: Invoice; userId: number} {
  if (options.slug !== undefined) {
    const slug = options.slug.replace(/^(https?:\/\/)?t\.me\/\$/, '').replace(/^\$/, '')
    const invoice = bot.payments.linkInvoice(slug)
    if (!invoice)
      throw new Error(`there is no invoice link with slug "${slug}" (the bot makes them with createInvoiceLink)`)
    return {invoice, userId: options.userId ?? 1111}
  }
  if (options.messageId === undefined) throw new Error('name the invoice: its message id, or an invoice link slug')
  const userId = options.userId ?? (options.chatId !== undefined && options.chatId > 0 ? options.chatId : 1111)
  const chatId = options.chatId ?? userId
  const invoice = bot.payments.messageInvoice(chatId, options.messageId)
  if (!invoice || !bot.message(chatId, options.messageId))
    throw new Error(
      `there is no invoice message ${options.messageId} in chat ${chatId} (the bot sends them with sendInvoice)`,
    )
  if (invoice.paidBy.has(userId))
    throw new Error(
      `user ${userId} already paid invoice message ${options.messageId}: a paid invoice shows its receipt, not a Pay button`,
    )
  return {invoice, userId}
}

/** The order information the invoice asks for (provider payments only: Stars ignore need_*). */
function orderInfoFor(
  invoice: Invoice,
  given: TgObject | undefined,
  address: TgObject | undefined,
): TgObject | undefined {
  if (invoice.currency === 'XTR') return undefined
  const info: TgObject = {}
  if (invoice.needName) info.name = given?.name ?? 'Test User'
  if (invoice.needPhoneNumber) info.phone_number = given?.phone_number ?? '+10000000000'
  if (invoice.needEmail) info.email = given?.email ?? 'tester@example.com'
  if (invoice.needShippingAddress) info.shipping_address = address ?? given?.shipping_address ?? defaultAddress()
  return Object.keys(info).length > 0 ? info : undefined
}

/** A ShippingAddress (BA `JsonAddress` order of keys). */
export function defaultAddress(): ShippingAddress {
  return {
    country_code: 'US',
    state: 'NY',
    city: 'New York',
    street_line1: '1 Test Street',
    street_line2: '',
    post_code: '10001',
  }
}

/**
 * Send the bot the attempt's shipping or pre-checkout query from `user` (a new query id, kept in the attempt; the
 * query's other fields in order) and wait for its answer until the window closes (or the emulator stops).
 */
function ask(
  host: PaymentHost,
  attempt: PaymentAttempt,
  kind: 'shipping' | 'pre_checkout',
  user: User,
  fields: Record<string, unknown>,
): Promise<QueryAnswer> {
  const {payments} = host.bot
  const id = payments.newQueryId()
  if (kind === 'shipping') attempt.shippingQueryId = id
  else attempt.preCheckoutQueryId = id
  const body = {[`${kind}_query`]: {id, from: user, ...fields}}
  return new Promise((resolve) => {
    let cancel = (): void => undefined
    let offStop = (): boolean | void => undefined
    const settle = (answer: QueryAnswer): void => {
      if (!payments.queries.delete(id)) return
      cancel()
      offStop()
      resolve(answer)
    }
    const madeAt = Date.now()
    payments.queries.set(id, {kind, madeAt, deadline: madeAt + host.windowMs, settle})
    cancel = host.later(() => settle({timeout: true}), host.windowMs)
    offStop = host.onStop(() => settle({stopped: true}))
    host.inject(body)
  })
}

/**
 * The user pays: resolves with the attempt once it is settled (paid, refused, timed out…). Throws at once (an
 * Error naming the problem) when there is nothing to pay: no such invoice, already paid, a tip not allowed.
 */
export function pay(host: PaymentHost, options: PayOptions): Promise<PaymentAttempt> {
  const {bot} = host
  const {invoice, userId} = findInvoice(bot, options)
  if (!Number.isSafeInteger(userId) || userId <= 0) throw new Error(`user_id ${userId} must be a positive integer`)
  const stars = invoice.currency === 'XTR'
  const tip = options.tipAmount ?? 0
  if (tip !== 0) {
    if (!Number.isSafeInteger(tip) || tip < 0) throw new Error(`tip_amount ${tip} must be a whole amount ≥ 0`)
    if (stars) throw new Error('payments in Telegram Stars take no tips')
    if (tip > invoice.maxTipAmount)
      throw new Error(`tip_amount ${tip} is over the invoice's max_tip_amount (${invoice.maxTipAmount})`)
  }
  const user = userFor(bot, userId, options)
  const attempt = bot.payments.newAttempt({
    userId,
    invoice: invoice.slug ? {slug: invoice.slug} : {chat_id: invoice.chatId!, message_id: invoice.messageId!},
    currency: invoice.currency,
    totalAmount: invoice.totalAmount + tip,
  })
  return run(host, invoice, user, attempt, options).then(() => attempt)
}

async function run(
  host: PaymentHost,
  invoice: Invoice,
  user: User,
  attempt: PaymentAttempt,
  options: PayOptions,
): Promise<void> {
  const orderInfo = orderInfoFor(invoice, options.orderInfo, options.shippingAddress)
  let shippingOptionId: string | undefined
  if (invoice.currency !== 'XTR' && invoice.isFlexible) {
    const answer = await ask(host, attempt, 'shipping', user, {
      invoice_payload: invoice.payload,
      shipping_address: isObject(orderInfo?.shipping_address) ? orderInfo.shipping_address : defaultAddress(),
    })
    if (!('ok' in answer)) return end(attempt, 'timeout' in answer ? 'shipping_timeout' : 'stopped', SHIPPING_TIMEOUT)
    if (!answer.ok) return end(attempt, 'shipping_refused', answer.errorMessage)
    const offered = answer.shippingOptions ?? []
    const chosen = options.shippingOptionId ? offered.find((o) => o.id === options.shippingOptionId) : offered[0]
    if (!chosen) {
      const ids = offered.map((o) => `"${o.id}"`).join(', ')
      return end(
        attempt,
        'shipping_refused',
        `the bot offered no shipping option "${options.shippingOptionId}" (it offered ${ids})`,
      )
    }
    shippingOptionId = chosen.id
    attempt.totalAmount += chosen.prices.reduce((sum, p) => sum + p.amount, 0)
  }
  const answer = await ask(host, attempt, 'pre_checkout', user, {
    currency: invoice.currency,
    total_amount: attempt.totalAmount,
    invoice_payload: invoice.payload,
    ...(shippingOptionId ? {shipping_option_id: shippingOptionId} : {}),
    ...(orderInfo ? {order_info: orderInfo} : {}),
  })
  if (!('ok' in answer)) return end(attempt, 'timeout' in answer ? 'timeout' : 'stopped', PRE_CHECKOUT_TIMEOUT)
  if (!answer.ok) return end(attempt, 'refused', answer.errorMessage)
  const subscription: Subscription | undefined = invoice.subscriptionPeriod
    ? {period: invoice.subscriptionPeriod, expiresAt: now() + invoice.subscriptionPeriod, canceledByBot: false, invoice}
    : undefined
  paid(host, attempt, {
    invoice,
    user,
    totalAmount: attempt.totalAmount,
    ...(shippingOptionId ? {shippingOptionId} : {}),
    ...(orderInfo ? {orderInfo} : {}),
    ...(subscription ? {subscription, first: true} : {}),
  })
  if (invoice.messageId !== undefined) invoice.paidBy.add(user.id)
}

function end(attempt: PaymentAttempt, status: PaymentAttempt['status'], errorMessage: string): void {
  attempt.status = status
  attempt.errorMessage = status === 'stopped' ? 'the emulator was stopped or reset during the payment' : errorMessage
}

/** The money moves: a charge, a Star transaction (XTR), the successful_payment message. */
function paid(
  host: PaymentHost,
  attempt: PaymentAttempt | undefined,
  p: {
    invoice: Invoice
    user: User
    totalAmount: number
    shippingOptionId?: string
    orderInfo?: TgObject
    subscription?: Subscription
    first?: boolean
  },
): {message: Message; chargeId: string} {
  const {bot} = host
  const stars = p.invoice.currency === 'XTR'
  const chargeId = newChargeId(p.invoice.currency)
  const date = now()
  const successfulPayment: SuccessfulPayment = {
    currency: p.invoice.currency,
    total_amount: p.totalAmount,
    invoice_payload: p.invoice.payload,
    ...(p.shippingOptionId ? {shipping_option_id: p.shippingOptionId} : {}),
    ...(p.orderInfo ? {order_info: p.orderInfo} : {}),
    telegram_payment_charge_id: chargeId,
    provider_payment_charge_id: stars ? '' : `emulated_${randomBytes(12).toString('hex')}`,
    ...(p.subscription ? {is_recurring: true} : {}),
    ...(p.subscription && p.first ? {is_first_recurring: true} : {}),
    ...(p.subscription ? {subscription_expiration_date: p.subscription.expiresAt} : {}),
  }
  const charge: Charge = {
    id: chargeId,
    userId: p.user.id,
    currency: p.invoice.currency,
    totalAmount: p.totalAmount,
    payload: p.invoice.payload,
    providerChargeId: successfulPayment.provider_payment_charge_id,
    date,
    refunded: false,
    ...(p.subscription ? {subscription: p.subscription} : {}),
  }
  bot.payments.addCharge(charge)
  if (stars) {
    bot.payments.addTransaction({
      id: chargeId,
      date,
      source: {
        transaction_type: 'invoice_payment',
        type: 'user',
        user: p.user,
        ...(p.invoice.payload !== '' ? {invoice_payload: p.invoice.payload} : {}),
        ...(p.subscription ? {subscription_period: p.subscription.period} : {}),
      },
      amount: p.totalAmount,
    })
  }
  const chat = privateChat(p.user)
  const message: Message = {
    message_id: bot.nextMessageId(chat.id),
    from: p.user,
    chat,
    date,
    successful_payment: successfulPayment,
  }
  ;(host.injectPaid ?? host.inject)({message})
  if (attempt) {
    attempt.status = 'paid'
    attempt.chargeId = chargeId
    attempt.successfulPayment = successfulPayment
    attempt.message = message
  }
  return {message, chargeId}
}

/**
 * The next period of a Stars subscription is paid (what Telegram does when the period ends): a new charge and a
 * successful_payment with `is_recurring` (no pre-checkout query: the user agreed when subscribing). Throws when the
 * bot canceled the subscription, or the charge is no subscription's.
 */
export function renewSubscription(host: PaymentHost, chargeId: string): {message: Message; chargeId: string} {
  const charge = host.bot.payments.charges.get(chargeId)
  if (!charge?.subscription) throw new Error(`there is no Stars subscription with charge id "${chargeId}"`)
  const subscription = charge.subscription
  if (subscription.canceledByBot)
    throw new Error(
      'the bot canceled this subscription (editUserStarSubscription is_canceled: true): it is not renewed',
    )
  subscription.expiresAt += subscription.period
  return paid(host, undefined, {
    invoice: subscription.invoice,
    user: userFor(host.bot, charge.userId),
    totalAmount: subscription.invoice.totalAmount,
    subscription,
  })
}

/**
 * A user buys the paid media of the bot's message: a Star transaction (`paid_media_payment`) and, when the bot gave
 * a payload and the chat is not a channel, a `purchased_paid_media` update (core.telegram.org/bots/api#update;
 * Client.cpp add_update_purchased_paid_media).
 */
export function buyPaidMedia(
  host: PaymentHost,
  options: {chatId: number; messageId: number; userId?: number; firstName?: string; username?: string},
): {update_id: number; transaction?: StarTransaction} {
  const {bot} = host
  const entry = bot.payments.paidMedia.get(`${options.chatId}:${options.messageId}`)
  const message = bot.message(options.chatId, options.messageId)
  if (!entry || !message)
    throw new Error(`there is no paid media message ${options.messageId} in chat ${options.chatId} (sendPaidMedia)`)
  const userId = options.userId ?? (options.chatId > 0 ? options.chatId : 1111)
  const user = userFor(bot, userId, options)
  const channel = message.chat.type === 'channel'
  let transaction: StarTransaction | undefined
  if (!channel) {
    transaction = {
      id: newChargeId('XTR'),
      date: now(),
      source: {
        transaction_type: 'paid_media_payment',
        type: 'user',
        user,
        paid_media: entry.media,
        ...(entry.payload !== '' ? {paid_media_payload: entry.payload} : {}),
      },
      amount: entry.starCount,
    }
    bot.payments.addTransaction(transaction)
  }
  if (channel || entry.payload === '') return {update_id: 0, ...(transaction ? {transaction} : {})}
  const update = host.inject({purchased_paid_media: {from: user, paid_media_payload: entry.payload}})
  return {update_id: update.update_id, ...(transaction ? {transaction} : {})}
}
