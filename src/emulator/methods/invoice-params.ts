/**
 * An invoice as sendInvoice and createInvoiceLink read it, in the server's order (Client.cpp
 * process_send_invoice_query, get_labeled_price_parts): the Bot API server's parameter checks (BA
 * `get_input_message_invoice`, `get_labeled_price_parts`), then td's (`InputInvoice::process_input_message_invoice`:
 * amounts, total, tips), then Telegram's own for Stars and providers (errors seen from the live servers;
 * docs/emulator.md says which are not settled by the sources).
 */
import {badRequest, errorText} from '../errors.js'
import type {Params} from '../http/params.js'
import type {Invoice, LabeledPrice} from '../state/payments.js'
import {INT32_MAX, integerArg, integerSafe, longField, required, stringField, toBool, jsonArg} from './args.js'
import {integerFieldText} from '../json.js'
import {isObject} from '../telegram.js'

/** td's `check_currency_amount`: |amount| ≤ 9999'9999'9999. */
const MAX_AMOUNT = 999_999_999_999
/** createInvoiceLink's subscription_period: "Currently, it must always be 2592000 (30 days)" (DOC). */
export const SUBSCRIPTION_PERIOD = 2_592_000
/** "Subscription price must no exceed 10000 Telegram Stars" (DOC createInvoiceLink). */
const MAX_SUBSCRIPTION_STARS = 10_000
const MAX_PAYLOAD_BYTES = 128

const lowerFirst = (s: string): string => (/^.[A-Z_]/.test(s) ? s : s.charAt(0).toLowerCase() + s.slice(1))

/** A JSON array of LabeledPrice (BA `get_labeled_price_parts`): the error text without the `Bad Request: ` prefix. */
export function labeledPrices(value: unknown): LabeledPrice[] {
  if (!Array.isArray(value)) throw new Error('Expected an Array of labeled prices')
  const prices: LabeledPrice[] = []
  for (const item of value) {
    try {
      if (!isObject(item)) throw new Error('LabeledPrice must be an Object')
      const o = item
      const label = stringField(o, 'label')
      if (label === '') throw new Error('LabeledPrice label must be non-empty')
      prices.push({label, amount: longField(o, 'amount')})
    } catch (err) {
      throw new Error(`Can't parse labeled price: ${errorText(err)}`)
    }
  }
  if (prices.length === 0) throw new Error('There must be at least one price')
  return prices
}

/**
 * The Bot API server's reading of an invoice: required fields, prices, tips and flags. Throws its error texts.
 * `link`: createInvoiceLink (reads subscription_period).
 */
export function readInvoice(params: Params, link: boolean): Invoice {
  const title = required(params, 'title')
  const description = required(params, 'description')
  const payload = required(params, 'payload')
  const currency = required(params, 'currency')
  const rawPrices = required(params, 'prices')
  const pricesJson = jsonArg(rawPrices, "can't parse prices JSON object")
  let prices: LabeledPrice[]
  try {
    prices = labeledPrices(pricesJson)
  } catch (err) {
    throw badRequest(lowerFirst(errorText(err)))
  }
  let maxTipAmount = 0
  const rawMaxTip = params.get('max_tip_amount') ?? ''
  if (rawMaxTip !== '') {
    try {
      maxTipAmount = integerSafe(rawMaxTip)
    } catch {
      throw badRequest('can\'t parse "max_tip_amount" as Number')
    }
  }
  const suggestedTipAmounts: number[] = []
  const rawTips = params.get('suggested_tip_amounts') ?? ''
  if (rawTips !== '') {
    const tips = jsonArg(rawTips, "can't parse suggested_tip_amounts JSON object")
    if (!Array.isArray(tips)) throw badRequest('expected an Array of suggested tip amounts')
    for (const [i, tip] of tips.entries()) {
      if (typeof tip !== 'number' && typeof tip !== 'string')
        throw badRequest('suggested tip amount must be of type Number or String')
      try {
        // get_suggested_tip_amounts: td::to_integer_safe<int64> of the number as written (`100.0` refused)
        suggestedTipAmounts.push(integerSafe(integerFieldText(tips, String(i))!))
      } catch {
        throw badRequest("can't parse suggested tip amount as Number")
      }
    }
  }
  // get_input_message_invoice: get_integer_arg(query, "subscription_period", 0, 0)
  const period = link ? integerArg(params, 'subscription_period', 0, 0, INT32_MAX) : 0
  return {
    title,
    description,
    payload,
    currency,
    prices,
    totalAmount: prices.reduce((sum, p) => sum + p.amount, 0),
    providerToken: params.get('provider_token') ?? '',
    startParameter: params.get('start_parameter') ?? '',
    maxTipAmount,
    suggestedTipAmounts,
    needName: toBool(params.get('need_name')),
    needPhoneNumber: toBool(params.get('need_phone_number')) || toBool(params.get('send_phone_number_to_provider')),
    needEmail: toBool(params.get('need_email')) || toBool(params.get('send_email_to_provider')),
    needShippingAddress: toBool(params.get('need_shipping_address')) || toBool(params.get('is_flexible')),
    isFlexible: toBool(params.get('is_flexible')),
    ...(period > 0 ? {subscriptionPeriod: period} : {}),
    paidBy: new Set(),
  }
}

/**
 * A payment provider token as @BotFather hands them out, `<provider's bot id>:TEST:<key>` or `…:LIVE:<key>`
 * (core.telegram.org/bots/payments: the test token comes from the provider's test mode). Telegram refuses any other
 * token, such as the `PAYMENT_PROVIDER_TOKEN` placeholder of library examples, with PAYMENT_PROVIDER_INVALID; the
 * emulator accepts every token of this shape (it knows no provider), e.g. `1234567890:TEST:emulator`.
 */
export const PROVIDER_TOKEN = /^\d{1,20}:(TEST|LIVE):[A-Za-z0-9_=+\/-]{1,256}$/

/**
 * td's checks of the invoice (amounts, total, tips), then Telegram's for Stars (`XTR`: no provider token, exactly
 * one price, no tips, subscriptions of 30 days up to 10000 Stars) and for providers (a currency other than XTR
 * needs a provider token of the shape above), and the payload's 128 bytes.
 */
export function checkInvoice(invoice: Invoice): void {
  for (const price of invoice.prices) {
    if (Math.abs(price.amount) > MAX_AMOUNT) throw badRequest('too big amount of the currency specified')
  }
  if (invoice.totalAmount <= 0) throw badRequest('total price must be positive')
  if (invoice.totalAmount > MAX_AMOUNT) throw badRequest('total price is too big')
  if (invoice.maxTipAmount < 0 || invoice.maxTipAmount > MAX_AMOUNT)
    throw badRequest('invalid max_tip_amount of the currency specified')
  for (const tip of invoice.suggestedTipAmounts) {
    if (tip <= 0) throw badRequest('suggested tip amount must be positive')
    if (tip > invoice.maxTipAmount) throw badRequest("suggested tip amount can't be bigger than max_tip_amount")
  }
  if (invoice.suggestedTipAmounts.length > 4) throw badRequest('there can be at most 4 suggested tip amounts')
  const stars = invoice.currency === 'XTR'
  if (invoice.subscriptionPeriod !== undefined) {
    if (!stars || invoice.subscriptionPeriod !== SUBSCRIPTION_PERIOD) throw badRequest('SUBSCRIPTION_PERIOD_INVALID')
    if (invoice.totalAmount > MAX_SUBSCRIPTION_STARS) throw badRequest('STARS_INVOICE_INVALID')
  }
  if (stars) {
    if (invoice.providerToken !== '' || invoice.prices.length !== 1 || invoice.maxTipAmount !== 0)
      throw badRequest('STARS_INVOICE_INVALID')
  } else if (!PROVIDER_TOKEN.test(invoice.providerToken)) {
    throw badRequest('PAYMENT_PROVIDER_INVALID')
  }
  if (Buffer.byteLength(invoice.payload, 'utf8') > MAX_PAYLOAD_BYTES) throw badRequest('INVOICE_PAYLOAD_INVALID')
}
