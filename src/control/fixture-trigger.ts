/**
 * `bot trigger TYPE` in a running session (fixtures.ts): the fixture, written with the user's --set
 * values, filled with what the session has seen (fill.ts), checked, then delivered: online through
 * the relay (a query id it makes up is answered by the api proxy, local-answers.ts), offline as the
 * emulator user's action (offline-trigger.ts); a payment is a flow of two updates (payment-trigger.ts).
 * TriggerEngine (actions.ts) owns the deliveries and hands them over as TriggerDeliveries.
 */
import type {Update} from '../emulator/index.js'
import type {LocalAnswers} from '../inspector/proxy/local-answers.js'
import type {UpdateEntry} from '../inspector/types.js'
import {messageOf} from '../lib/errors.js'
import {isRefusal} from '../lib/refusal.js'
import type {PhotoSize} from '../telegram/types.js'
import {fillContext, missingPlaceholder, resolveParties} from './fill.js'
import {applySets, fillTemplate, isFixtureType, loadFixture, type FixtureType} from './fixtures.js'
import {DEFAULT_PHOTO, imageInfo} from './image.js'
import {offlineAction, type OfflineTarget, type Sent, type TriggerEmulator} from './offline-trigger.js'
import {
  answerOk,
  emulatorInvoiceLink,
  failedFlow,
  newChargeId,
  paidFlow,
  PRE_CHECKOUT_WINDOW_MS,
  successfulPayment,
  webhookReplyAnswer,
} from './payment-trigger.js'
import {ActionError, type Refusal, type TriggerFlow, type TriggerRequest, type TriggerResult} from './protocol.js'
import {factsFromCalls, type Party, type SessionFacts} from './session-facts.js'
import {checkUpdateObject, objectOf} from './requests.js'
import type {JsonObject as Json} from '../lib/json-object.js'

/** What a fixture trigger needs of the session: what it saw, and its ways to deliver. */
export interface TriggerDeliveries {
  offline?: OfflineTarget
  facts: SessionFacts
  local?: LocalAnswers
  preCheckoutWindowMs?: number
  bot(): {id: number; first_name?: string; username?: string} | undefined
  nextUpdateId(): number
  /** Webhook mode: through the relay, a made-up query id registered with the api proxy. */
  injectSynthetic(update: Json): Promise<UpdateEntry>
  inject(update: Json, source: 'trigger'): Promise<UpdateEntry>
  /** Offline: an emulator action of one or more updates, waited for. */
  viaEmulatorMany(type: string, send: () => Sent): Promise<TriggerResult>
  /** Offline: the entry of an update the emulator queued. */
  expect(updateId: number, source: 'trigger'): {promise: Promise<UpdateEntry>; cancel: () => void}
  deadline<T>(promise: Promise<T>, who: string): Promise<T>
}

function refused(refusal: Refusal, status = 400): ActionError {
  return new ActionError(status, refusal.error, refusal.fix)
}

export class FixtureTriggers {
  readonly #deliveries: TriggerDeliveries
  /** Offline: the business connection made for the business-message fixture (once). */
  #business: string | undefined

  constructor(deliveries: TriggerDeliveries) {
    this.#deliveries = deliveries
  }

  /** The terminal user and their chat (offline triggers speak as them by default). */
  #terminalParty(offline: OfflineTarget): Party {
    const {userId, chatId, firstName, username} = offline.user
    const user: Json = {id: userId, is_bot: false, first_name: firstName ?? 'You', ...(username ? {username} : {})}
    const chat: Json =
      chatId === userId
        ? {id: chatId, first_name: user.first_name, ...(username ? {username} : {}), type: 'private'}
        : {id: chatId, title: 'Test group', type: chatId < -1_000_000_000_000 ? 'supergroup' : 'group'}
    return {user, chat}
  }

  /** `bot trigger TYPE`: the fixture written with the --set values, filled, delivered. */
  async run(request: Extract<TriggerRequest, {kind: 'fixture'}>): Promise<TriggerResult> {
    const offline = this.#deliveries.offline
    if (!isFixtureType(request.type)) throw new ActionError(400, `Unknown trigger type "${request.type}".`)
    const type: FixtureType = request.type
    const fixture = request.template ?? loadFixture(type)
    const written = applySets(fixture.update, request.sets ?? [])
    if (isRefusal(written)) throw refused(written)
    const parties = resolveParties(request, offline ? this.#terminalParty(offline) : this.#deliveries.facts.lastParty())
    const botSide = offline ? factsFromCalls(offline.emulator.sentMessages(offline.token)) : this.#deliveries.facts
    let photo: PhotoSize[] | undefined
    if (type === 'photo') photo = this.#photo(request.file)
    const context = fillContext({
      parties,
      bot: this.#deliveries.bot(),
      botSide,
      userSide: this.#deliveries.facts,
      fallbackMessageId: Math.max(1, Date.now() % 1_000_000),
      ...(photo ? {photo} : {}),
    })
    const update = fillTemplate(written, context, fixture.defaults, (name) => missingPlaceholder(type, name, parties))
    if (isRefusal(update)) throw refused(update, 422)
    const bad = checkUpdateObject(update, `the filled ${type} fixture`)
    if (bad) throw refused(bad)
    if (type === 'payment' && 'pre_checkout_query' in update)
      return offline ? this.#payOffline(offline, update, botSide) : this.#payOnline(update)
    if (offline) {
      return this.#deliveries.viaEmulatorMany(type, () =>
        offlineAction(offline.emulator, offline.token, type, update, () => this.#connection(offline)),
      )
    }
    const joinRequest = update.chat_join_request === undefined ? undefined : objectOf(update.chat_join_request)
    const chatId = Number(objectOf(joinRequest?.chat).id)
    const userId = Number(objectOf(joinRequest?.from).id)
    if (joinRequest && Number.isSafeInteger(chatId) && Number.isSafeInteger(userId))
      this.#deliveries.local?.addJoinRequest(chatId, userId)
    return this.#deliveries.injectSynthetic({update_id: this.#deliveries.nextUpdateId(), ...update})
  }

  /** photo: the image (the given file, else a small PNG) kept by the api proxy; its PhotoSize list. */
  #photo(file: {base64: string; name?: string} | undefined): PhotoSize[] {
    const bytes = file ? Buffer.from(file.base64, 'base64') : DEFAULT_PHOTO
    const info = imageInfo(bytes)
    if (!info)
      throw new ActionError(
        400,
        `${file?.name ?? 'The file'} is not a JPEG, PNG, GIF or WebP image.`,
        'Send a photo Telegram would take (bot trigger photo picture.jpg).',
      )
    const local = this.#deliveries.local
    if (!local)
      throw new ActionError(
        409,
        'This session has no api proxy to serve the photo from.',
        'Run `bot dev` without --no-api-proxy.',
      )
    const kept = local.addFile(bytes, info)
    return [
      {
        file_id: kept.fileId,
        file_unique_id: kept.uniqueId,
        file_size: bytes.length,
        width: info.width,
        height: info.height,
      },
    ]
  }

  /** Offline: the business connection of the business-message fixture, made once per session. */
  #connection(offline: OfflineTarget): {id: string; update?: Update} {
    if (this.#business) return {id: this.#business}
    const made = offline.emulator.connectBusiness(offline.token, {})
    this.#business = String(made.connection.id)
    return {id: this.#business, update: made.update}
  }

  /** Online: the synthetic pre-checkout query, the bot's answer (answered by the api proxy), then the payment. */
  async #payOnline(update: Json): Promise<TriggerResult> {
    const query = objectOf(update.pre_checkout_query)
    const id = String(query.id)
    const windowMs = this.#deliveries.preCheckoutWindowMs ?? PRE_CHECKOUT_WINDOW_MS
    const sentAt = Date.now()
    const first = await this.#deliveries.injectSynthetic({update_id: this.#deliveries.nextUpdateId(), ...update})
    const inReply = webhookReplyAnswer(first, id)
    if (inReply) this.#deliveries.local?.answeredElsewhere(id, inReply)
    const answer = inReply ?? (await this.#deliveries.local?.waitFor(id, Math.max(0, sentAt + windowMs - Date.now())))
    const result = (flow: TriggerFlow, entry: UpdateEntry): TriggerResult => ({...entry, flow})
    if (!answer) return result(failedFlow(query, 'timeout', [first], {windowMs}), first)
    if (!answerOk(answer)) {
      const errorMessage = typeof answer.error_message === 'string' ? answer.error_message : ''
      return result(failedFlow(query, 'refused', [first], {errorMessage}), first)
    }
    const chargeId = newChargeId(String(query.currency))
    this.#deliveries.local?.addCharge(chargeId)
    const userId = Number(objectOf(query.from).id)
    const paid = successfulPayment(query, {
      messageId: this.#deliveries.facts.nextMessageId(userId) ?? Math.max(1, Date.now() % 1_000_000),
      chargeId,
    })
    const second = await this.#deliveries.inject({update_id: this.#deliveries.nextUpdateId(), ...paid}, 'trigger')
    return result(paidFlow(query, chargeId, [first, second]), second)
  }

  /**
   * Offline: the emulator runs the payment: the bot's newest invoice in the user's chat when the
   * fixture still describes it, else an invoice link with the fixture's values.
   */
  async #payOffline(offline: OfflineTarget, update: Json, botSide: SessionFacts): Promise<TriggerResult> {
    const {emulator, token} = offline
    const query = objectOf(update.pre_checkout_query)
    const from = objectOf(query.from)
    const userId = Number(from.id)
    const wanted = {
      currency: String(query.currency),
      totalAmount: Number(query.total_amount),
      payload: String(query.invoice_payload),
    }
    const invoice = botSide.invoice(userId)
    const same =
      invoice?.invoice?.currency === wanted.currency &&
      invoice.invoice.total_amount === wanted.totalAmount &&
      (invoice.invoice.payload === undefined || invoice.invoice.payload === wanted.payload)
    const names = {
      ...(typeof from.first_name === 'string' ? {firstName: from.first_name} : {}),
      ...(typeof from.username === 'string' ? {username: from.username} : {}),
    }
    const waits: Array<Promise<UpdateEntry>> = []
    const cancels: Array<() => void> = []
    const onUpdate = (queued: Update, of: string) => {
      if (of !== token) return
      if (queued.shipping_query || queued.pre_checkout_query || objectOf(queued.message).successful_payment) {
        const wait = this.#deliveries.expect(queued.update_id, 'trigger')
        waits.push(wait.promise)
        cancels.push(wait.cancel)
      }
    }
    emulator.on('update', onUpdate)
    let attempt: Awaited<ReturnType<TriggerEmulator['payInvoice']>>
    try {
      const byLink = async () =>
        emulator.payInvoice(token, {slug: await emulatorInvoiceLink(emulator.apiRoot, token, wanted), userId, ...names})
      if (same && invoice) {
        try {
          attempt = await emulator.payInvoice(token, {messageId: invoice.messageId, chatId: userId, userId, ...names})
        } catch (error) {
          if (!/already paid/.test(messageOf(error))) throw error
          attempt = await byLink()
        }
      } else attempt = await byLink()
    } catch (error) {
      for (const cancel of cancels) cancel()
      throw new ActionError(
        400,
        `The emulator could not run the payment: ${messageOf(error)}`,
        'Check the values given with --set (currency, total_amount, invoice_payload).',
      )
    } finally {
      emulator.off('update', onUpdate)
    }
    let entries: UpdateEntry[]
    try {
      entries = await this.#deliveries.deadline(Promise.all(waits), 'The bot')
    } finally {
      for (const cancel of cancels) cancel()
    }
    const last = entries.at(-1)
    if (!last)
      throw new ActionError(
        422,
        `The payment ended (${attempt.status}) without an update for the bot: ${attempt.errorMessage ?? 'its allowed_updates may leave out pre_checkout_query'}.`,
        'Let the bot get pre_checkout_query updates.',
      )
    const paidQuery = {...query, currency: attempt.currency, total_amount: attempt.totalAmount}
    const flow =
      attempt.status === 'paid'
        ? paidFlow(paidQuery, attempt.chargeId ?? '', entries)
        : failedFlow(paidQuery, attempt.status, entries, {
            ...(attempt.errorMessage !== undefined ? {errorMessage: attempt.errorMessage} : {}),
          })
    return {...last, flow}
  }
}
