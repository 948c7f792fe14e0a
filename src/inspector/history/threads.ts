/**
 * Payment threads: the updates of one purchase shown as one flow (UpdateEntry.thread), in the order
 * Telegram runs it: the update whose handler sent the invoice (sendInvoice or createInvoiceLink),
 * the shipping and pre-checkout queries (with the bot's answers among their calls), the
 * successful_payment message, then a refund (the update whose handler called refundStarPayment)
 * and the refunded_payment message.
 *
 * Linked by what Telegram repeats along the way: the invoice's payload and the payer (the invoice's
 * chat is the payer's private chat; a link's payload alone), then the telegram_payment_charge_id of
 * the payment. A query with no invoice seen (a link made elsewhere, `bot trigger payment`) starts a
 * thread of its own. Bounded: 1000 keys of each kind, the oldest dropped.
 */
import type {ApiCall, UpdateEntry, UpdateThread} from '../types.js'
import {type JsonObject as Json, isJsonObject} from '../../lib/json-object.js'

const MAX_KEYS = 1000

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** The id of a User (a payer), as text. */
function idOf(user: unknown): string | undefined {
  return isJsonObject(user) ? text(user.id) : undefined
}

function remember(map: Map<string, string>, key: string, id: string): void {
  map.delete(key)
  map.set(key, id)
  while (map.size > MAX_KEYS) map.delete(map.keys().next().value!)
}

export class PaymentThreads {
  /** `payer:payload` (or `*:payload` for a link) → thread id. */
  readonly #invoices = new Map<string, string>()
  /** telegram_payment_charge_id → thread id. */
  readonly #charges = new Map<string, string>()

  /** The thread an update belongs to, from its content (undefined: none). */
  forUpdate(entry: UpdateEntry): UpdateThread | undefined {
    const update = entry.update
    if (!isJsonObject(update)) return undefined
    const query = update.pre_checkout_query ?? update.shipping_query
    if (isJsonObject(query)) {
      const payer = idOf(query.from)
      const payload = text(query.invoice_payload) ?? ''
      const key = `${payer}:${payload}`
      const id = this.#invoices.get(key) ?? this.#invoices.get(`*:${payload}`) ?? `pay-${entry.seq}`
      remember(this.#invoices, key, id)
      return {id, kind: 'payment', step: update.pre_checkout_query ? 'pre_checkout' : 'shipping'}
    }
    const message = update.message ?? update.business_message
    if (!isJsonObject(message)) return undefined
    const paid = message.successful_payment
    if (isJsonObject(paid)) {
      const payer = idOf(message.from)
      const payload = text(paid.invoice_payload) ?? ''
      const id = this.#invoices.get(`${payer}:${payload}`) ?? this.#invoices.get(`*:${payload}`) ?? `pay-${entry.seq}`
      // Paid: the next query of this payer for this payload is another purchase (until a new invoice).
      this.#invoices.delete(`${payer}:${payload}`)
      const charge = text(paid.telegram_payment_charge_id)
      if (charge) remember(this.#charges, charge, id)
      return {id, kind: 'payment', step: 'payment'}
    }
    const refunded = message.refunded_payment
    if (isJsonObject(refunded)) {
      const charge = text(refunded.telegram_payment_charge_id)
      const id = (charge && this.#charges.get(charge)) || `pay-${entry.seq}`
      return {id, kind: 'payment', step: 'refunded'}
    }
    return undefined
  }

  /** The thread a call makes its update part of (an invoice sent, a payment refunded). */
  forCall(entry: UpdateEntry, call: ApiCall): UpdateThread | undefined {
    if (!call.ok) return undefined
    const method = call.method.toLowerCase()
    const params = call.params ?? {}
    if (method === 'sendinvoice' || method === 'createinvoicelink') {
      const payload = text(params.payload) ?? ''
      const chat = method === 'sendinvoice' ? text(params.chat_id) : '*'
      const id = `pay-${entry.seq}`
      remember(this.#invoices, `${chat}:${payload}`, id)
      return {id, kind: 'payment', step: 'invoice'}
    }
    if (method === 'refundstarpayment') {
      const charge = text(params.telegram_payment_charge_id)
      const id = charge ? this.#charges.get(charge) : undefined
      return id ? {id, kind: 'payment', step: 'refund'} : undefined
    }
    return undefined
  }
}
