/**
 * Payments from the bot's side (core.telegram.org/bots/payments): sendInvoice (an invoice message), createInvoiceLink
 * (a `https://t.me/$slug` link), and the answers to the queries a payment raises: answerShippingQuery and
 * answerPreCheckoutQuery. A query can be answered once, before its deadline (10 s for the pre-checkout query, as the
 * docs say, times timeScale); otherwise `query is too old and response timeout expired or query ID is invalid`, the
 * server's text for QUERY_ID_INVALID (Client.cpp fail_query_with_error).
 */
import type {Handler} from './core.js'
import {badRequest, errorText} from '../errors.js'
import {QUERY_INVALID} from './callbacks.js'
import {checkInvoice, labeledPrices, readInvoice} from './invoice-params.js'
import {required, stringField, toBool, jsonArg} from './args.js'
import {sendNew} from './send.js'
import type {ShippingOption} from '../state/payments.js'
import {isObject} from '../telegram.js'

export const sendInvoice: Handler = (bot, params) => {
  const invoice = readInvoice(params, false)
  const message = sendNew(bot, params, () => {
    checkInvoice(invoice)
    return {
      invoice: {
        title: invoice.title,
        description: invoice.description,
        start_parameter: invoice.startParameter,
        currency: invoice.currency,
        total_amount: invoice.totalAmount,
      },
    }
  })
  invoice.chatId = message.chat.id
  invoice.messageId = message.message_id
  bot.payments.addMessageInvoice(invoice)
  return {result: message}
}

export const createInvoiceLink: Handler = (bot, params) => {
  const invoice = readInvoice(params, true)
  const connection = params.get('business_connection_id') ?? ''
  if (connection !== '') bot.business.require(connection)
  checkInvoice(invoice)
  const slug = bot.payments.addLinkInvoice(invoice)
  return {result: `https://t.me/$${slug}`}
}

/** The open query `id` of this kind, or the QUERY_ID_INVALID error (unknown, answered, or past its deadline). */
function openQuery(bot: Parameters<Handler>[0], id: string, kind: 'shipping' | 'pre_checkout') {
  const query = bot.payments.queries.get(id)
  if (!query || query.kind !== kind || Date.now() > query.deadline) throw badRequest(QUERY_INVALID)
  return query
}

/** The shipping_options parameter (BA `get_shipping_options`), with its texts. */
function shippingOptions(raw: string): ShippingOption[] {
  const value = jsonArg(raw, "can't parse shipping options JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of shipping options')
  const options: ShippingOption[] = []
  for (const item of value) {
    try {
      if (!isObject(item)) throw new Error('ShippingOption must be an Object')
      const o = item
      const id = stringField(o, 'id')
      if (id === '') throw new Error('ShippingOption identifier must be non-empty')
      const title = stringField(o, 'title')
      if (title === '') throw new Error('ShippingOption title must be non-empty')
      if (!('prices' in o)) throw new Error('Can\'t find field "prices"')
      if (!Array.isArray(o.prices)) throw new Error('Field "prices" must be of type Array')
      let prices: ShippingOption['prices']
      try {
        prices = labeledPrices(o.prices)
      } catch (err) {
        throw new Error(`Can't parse shipping option prices: ${errorText(err)}`)
      }
      options.push({id, title, prices})
    } catch (err) {
      throw badRequest(`can't parse shipping option: ${errorText(err)}`)
    }
  }
  if (options.length === 0) throw badRequest('there must be at least one shipping option')
  return options
}

export const answerShippingQuery: Handler = (bot, params) => {
  const id = params.get('shipping_query_id') ?? ''
  const ok = toBool(params.get('ok'))
  const options = ok ? shippingOptions(required(params, 'shipping_options')) : undefined
  const errorMessage = ok ? '' : required(params, 'error_message')
  const query = openQuery(bot, id, 'shipping')
  query.settle(ok ? {ok: true, shippingOptions: options} : {ok: false, errorMessage})
  return {result: true}
}

export const answerPreCheckoutQuery: Handler = (bot, params) => {
  const id = params.get('pre_checkout_query_id') ?? ''
  const ok = toBool(params.get('ok'))
  const errorMessage = ok ? '' : required(params, 'error_message')
  const query = openQuery(bot, id, 'pre_checkout')
  query.settle(ok ? {ok: true} : {ok: false, errorMessage})
  return {result: true}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const PAYMENT_METHODS: Record<string, Handler> = {
  sendinvoice: sendInvoice,
  createinvoicelink: createInvoiceLink,
  answershippingquery: answerShippingQuery,
  answerprecheckoutquery: answerPreCheckoutQuery,
}
