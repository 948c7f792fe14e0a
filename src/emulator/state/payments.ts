/**
 * A bot's payments as the server keeps them: the invoices it sent (by message) or made links for (by slug), the
 * shipping and pre-checkout queries waiting for the bot's answer (each with its deadline), the charges made
 * (refunded or not, subscriptions with their period), the Telegram Star transactions in chronological order, and
 * every payment attempt with its outcome (what the user saw). Bounded: the oldest entries go first.
 */
import {randomBytes, randomInt} from 'node:crypto'
import type {TgObject} from '../types.js'
import type {Message, StarTransaction, SuccessfulPayment} from '../telegram.js'

export interface LabeledPrice {
  label: string
  amount: number
}

export interface Invoice {
  title: string
  description: string
  payload: string
  currency: string
  prices: LabeledPrice[]
  totalAmount: number
  providerToken: string
  startParameter: string
  maxTipAmount: number
  suggestedTipAmounts: number[]
  needName: boolean
  needPhoneNumber: boolean
  needEmail: boolean
  needShippingAddress: boolean
  isFlexible: boolean
  /** Seconds between payments of a Stars subscription (createInvoiceLink only). */
  subscriptionPeriod?: number
  /** Where it is: a message of the bot (chat + message id) or a link (slug). */
  chatId?: number
  messageId?: number
  slug?: string
  /** Users who paid this message invoice (a message invoice is paid once per user: it then shows its receipt). */
  paidBy: Set<number>
}

/** What became of a payment attempt. */
export type PaymentStatus =
  | 'pending'
  | 'paid'
  | 'refused'
  | 'timeout'
  | 'shipping_refused'
  | 'shipping_timeout'
  | 'stopped'

export interface PaymentAttempt {
  /** 1, 2, 3… per bot. */
  id: number
  userId: number
  /** The invoice paid: `{chat_id, message_id}` or `{slug}`. */
  invoice: {chat_id: number; message_id: number} | {slug: string}
  currency: string
  totalAmount: number
  status: PaymentStatus
  /** The text the user sees when the payment did not go through (the bot's error_message, or the emulator's). */
  errorMessage?: string
  shippingQueryId?: string
  preCheckoutQueryId?: string
  /** Set when paid. */
  chargeId?: string
  successfulPayment?: SuccessfulPayment
  /** The successful_payment service message (when paid). */
  message?: Message
  at: number
}

/** A query the bot must answer (answerShippingQuery / answerPreCheckoutQuery) before its deadline. */
export interface OpenPaymentQuery {
  kind: 'shipping' | 'pre_checkout'
  madeAt: number
  /** Epoch ms after which an answer is too late. */
  deadline: number
  settle(answer: QueryAnswer): void
}

export type QueryAnswer =
  | {ok: true; shippingOptions?: ShippingOption[]}
  | {ok: false; errorMessage: string}
  | {timeout: true}
  | {stopped: true}

export interface ShippingOption {
  id: string
  title: string
  prices: LabeledPrice[]
}

export interface Charge {
  id: string
  userId: number
  currency: string
  totalAmount: number
  payload: string
  providerChargeId: string
  date: number
  refunded: boolean
  /** Stars subscriptions: shared by the charges of one subscription (its first payment and each renewal). */
  subscription?: Subscription
}

export interface Subscription {
  period: number
  /** Unix time the paid period ends. */
  expiresAt: number
  /** editUserStarSubscription is_canceled: the subscription is not extended. */
  canceledByBot: boolean
  invoice: Invoice
}

const MAX_INVOICES = 10_000
const MAX_ATTEMPTS = 10_000
const MAX_CHARGES = 100_000
const MAX_TRANSACTIONS = 100_000

function bounded<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as K)
}

export class Payments {
  private readonly byMessage = new Map<string, Invoice>()
  private readonly bySlug = new Map<string, Invoice>()
  readonly queries = new Map<string, OpenPaymentQuery>()
  readonly charges = new Map<string, Charge>()
  /** StarTransaction objects, oldest first (getStarTransactions). */
  readonly transactions: StarTransaction[] = []
  readonly attempts: PaymentAttempt[] = []
  private attemptSeq = 0

  addMessageInvoice(invoice: Invoice): void {
    this.byMessage.set(`${invoice.chatId}:${invoice.messageId}`, invoice)
    bounded(this.byMessage, MAX_INVOICES)
  }

  /** Register a link invoice; returns its slug (always with a letter, so a slug is never taken for a message id). */
  addLinkInvoice(invoice: Invoice): string {
    let slug = ''
    while (slug === '' || this.bySlug.has(slug)) slug = `E${randomBytes(12).toString('base64url')}`
    invoice.slug = slug
    this.bySlug.set(slug, invoice)
    bounded(this.bySlug, MAX_INVOICES)
    return slug
  }

  messageInvoice(chatId: number, messageId: number): Invoice | undefined {
    return this.byMessage.get(`${chatId}:${messageId}`)
  }

  linkInvoice(slug: string): Invoice | undefined {
    return this.bySlug.get(slug)
  }

  newAttempt(fields: Omit<PaymentAttempt, 'id' | 'at' | 'status'>): PaymentAttempt {
    this.attemptSeq += 1
    const attempt: PaymentAttempt = {id: this.attemptSeq, status: 'pending', at: Date.now(), ...fields}
    this.attempts.push(attempt)
    if (this.attempts.length > MAX_ATTEMPTS) this.attempts.splice(0, MAX_ATTEMPTS / 10)
    return attempt
  }

  /** A new query id: a decimal string, as the server writes the int64 (Client.cpp JsonPreCheckoutQuery). */
  newQueryId(): string {
    let id = ''
    while (id === '' || this.queries.has(id)) id = String(randomInt(1, 2 ** 47)) + String(randomInt(100, 999))
    return id
  }

  addCharge(charge: Charge): void {
    this.charges.set(charge.id, charge)
    bounded(this.charges, MAX_CHARGES)
  }

  addTransaction(transaction: StarTransaction): void {
    this.transactions.push(transaction)
    if (this.transactions.length > MAX_TRANSACTIONS) this.transactions.splice(0, MAX_TRANSACTIONS / 10)
  }

  /** The bot's Star balance: incoming minus outgoing transactions. */
  balance(): number {
    let total = 0
    for (const t of this.transactions) total += 'source' in t ? t.amount : -t.amount
    return total
  }

  /** Paid media the bot sent, by `chat:message`: the Stars asked, the bot's payload and the media (sendPaidMedia). */
  readonly paidMedia = new Map<string, {starCount: number; payload: string; media: TgObject[]}>()

  addPaidMedia(
    chatId: number,
    messageId: number,
    entry: {starCount: number; payload: string; media: TgObject[]},
  ): void {
    this.paidMedia.set(`${chatId}:${messageId}`, entry)
    bounded(this.paidMedia, MAX_INVOICES)
  }

  /** Every open query is settled as stopped (the emulator stops or is reset). */
  clear(): void {
    for (const query of [...this.queries.values()]) query.settle({stopped: true})
    this.paidMedia.clear()
    this.queries.clear()
    this.byMessage.clear()
    this.bySlug.clear()
    this.charges.clear()
    this.transactions.length = 0
    this.attempts.length = 0
  }
}

/**
 * A Telegram payment charge id: Stars charges look like `stxAbc…` (as live Stars payments show them), others like
 * `123_456`.
 */
export function newChargeId(currency: string): string {
  if (currency === 'XTR') return `stx${randomBytes(48).toString('base64url')}`
  return `${randomInt(1_000_000_000, 9_999_999_999)}_${randomInt(1_000_000_000, 9_999_999_999)}`
}
