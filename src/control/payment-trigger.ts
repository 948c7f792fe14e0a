/**
 * `bot trigger payment`: a user pays, end to end.
 * - Online (webhook mode): the filled fixture is a pre_checkout_query with a made-up id; the bot's
 *   answerPreCheckoutQuery for it is answered by the api proxy (local-answers.ts) or comes in its
 *   webhook reply; `ok: true` within Telegram's 10 seconds → a successful_payment message (a
 *   made-up `stx…` charge the proxy also refunds locally); `ok: false` → refused; none → timeout.
 * - Offline: the emulator's own flow (payInvoice): the bot's newest invoice in the user's chat when
 *   the fixture still describes it, else an invoice link with the fixture's values, made for the
 *   bot in the emulator (createInvoiceLink), paid by the user.
 * Pure helpers here; TriggerEngine runs them.
 */
import {randomBytes} from 'node:crypto'

import {privateChatOf} from './fill.js'
import {objectOf} from './requests.js'
import type {TriggerFlow} from './protocol.js'
import type {UpdateEntry} from '../inspector/types.js'
import type {JsonObject as Json} from '../lib/json-object.js'

/** "The Bot API must receive an answer within 10 seconds after the pre-checkout query was sent" (answerPreCheckoutQuery). */
export const PRE_CHECKOUT_WINDOW_MS = 10_000

/** A Stars charge id as Telegram makes them (`stx…`, as live Stars payments show them); another currency's: made up. */
export function newChargeId(currency: string): string {
  const tail = randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')
  return currency === 'XTR' ? `stx${tail}` : `bot_trigger_${tail}`
}

/** The successful_payment service message that follows an accepted pre-checkout query (BA JsonSuccessfulPaymentBot order). */
export function successfulPayment(query: Json, o: {messageId: number; chargeId: string; now?: number}): Json {
  const from = objectOf(query.from)
  const currency = String(query.currency)
  return {
    message: {
      message_id: o.messageId,
      from,
      chat: privateChatOf(from),
      date: Math.floor((o.now ?? Date.now()) / 1000),
      successful_payment: {
        currency,
        total_amount: query.total_amount,
        invoice_payload: query.invoice_payload,
        ...(query.shipping_option_id !== undefined ? {shipping_option_id: query.shipping_option_id} : {}),
        ...(query.order_info !== undefined ? {order_info: query.order_info} : {}),
        telegram_payment_charge_id: o.chargeId,
        provider_payment_charge_id: currency === 'XTR' ? '' : `bot_trigger_${randomBytes(8).toString('hex')}`,
      },
    },
  }
}

function amount(query: Json): string {
  return `${String(query.total_amount)} ${String(query.currency)}`
}

/** The flow of a payment that went through. */
export function paidFlow(query: Json, chargeId: string, entries: UpdateEntry[]): TriggerFlow {
  return {
    kind: 'payment',
    status: 'paid',
    ok: true,
    text: `✓ payment of ${amount(query)} paid: the bot accepted the pre-checkout query, successful_payment delivered (charge ${chargeId})`,
    entries,
    chargeId,
  }
}

/** The flow of a payment that did not: refused by the bot, or its pre-checkout query left unanswered. */
export function failedFlow(
  query: Json,
  status: string,
  entries: UpdateEntry[],
  o: {errorMessage?: string; windowMs?: number} = {},
): TriggerFlow {
  const windowMs = o.windowMs ?? PRE_CHECKOUT_WINDOW_MS
  const window = windowMs >= 1000 ? `${Math.round(windowMs / 1000)} s` : `${windowMs} ms`
  const text =
    status === 'refused'
      ? `✗ payment of ${amount(query)} refused by the bot (answerPreCheckoutQuery ok: false): "${o.errorMessage ?? ''}"`
      : status === 'timeout'
        ? `✗ payment of ${amount(query)} canceled: the bot did not answer the pre-checkout query within ${window} (answerPreCheckoutQuery)`
        : `✗ payment of ${amount(query)} did not go through (${status})${o.errorMessage ? `: ${o.errorMessage}` : ''}`
  return {
    kind: 'payment',
    status,
    ok: false,
    text,
    entries,
    ...(o.errorMessage !== undefined ? {errorMessage: o.errorMessage} : {}),
  }
}

/** The bot's answer to the query in a webhook reply (which never reaches the api proxy), if it gave one there. */
export function webhookReplyAnswer(entry: UpdateEntry, queryId: string): Json | undefined {
  const call = entry.calls.find(
    (c) =>
      c.webhookReply &&
      c.method.toLowerCase() === 'answerprecheckoutquery' &&
      String(c.params.pre_checkout_query_id) === queryId,
  )
  return call?.params
}

/** Whether an answer's `ok` says yes (JSON true, or "true" from a form). */
export function answerOk(answer: Json): boolean {
  return answer.ok === true || answer.ok === 'true' || answer.ok === 'True' || answer.ok === 1 || answer.ok === '1'
}

/** Makes an invoice link for the bot in the emulator (createInvoiceLink over its Bot API) and returns its URL. */
export async function emulatorInvoiceLink(
  apiRoot: string,
  token: string,
  invoice: {currency: string; totalAmount: number; payload: string},
): Promise<string> {
  const response = await fetch(`${apiRoot}/bot${token}/createInvoiceLink`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({
      title: 'bot trigger payment',
      description: 'A test payment made by bot trigger payment',
      payload: invoice.payload,
      currency: invoice.currency,
      prices: [{label: 'Total', amount: invoice.totalAmount}],
      ...(invoice.currency === 'XTR' ? {} : {provider_token: '1234567890:TEST:bot-trigger'}),
    }),
    signal: AbortSignal.timeout(5000),
  })
  const answer = (await response.json()) as {ok?: boolean; result?: unknown; description?: string}
  if (!answer.ok || typeof answer.result !== 'string')
    throw new Error(`createInvoiceLink: ${answer.description ?? `HTTP ${response.status}`}`)
  return answer.result
}
