/**
 * What `bot trigger`, `bot replay` and the inspector's Replay ask a running session to do
 * (SessionActions), for each way the session runs:
 * - webhook mode (tunnel or bridge): the update goes to the bot through `relay.inject`, past the
 *   answer cache (a replay of an answered update_id reaches the bot again), held while it restarts;
 * - offline: a trigger is the emulator user's action (sendUserMessage / sendCallbackQuery /
 *   injectUpdate), so the emulator's state stays right; a replay goes through the relay in webhook
 *   mode and into the emulator's queue in polling mode;
 * - long polling against Telegram: nothing can be put into the bot's getUpdates, so 409.
 * Each resolves once the bot answered (or the delivery failed), within a deadline.
 */
import type {Update} from '../emulator/index.js'
import type {UpdateHistory} from '../inspector/history/history.js'
import type {LocalAnswers, QueryKind} from '../inspector/proxy/local-answers.js'
import type {EntrySource, UpdateEntry} from '../inspector/types.js'
import {fillContext, missingPlaceholder, resolveParties, type Parties} from './fill.js'
import {applySets, fillTemplate, isFixtureType, loadFixture, type FixtureType} from './fixtures.js'
import {DEFAULT_PHOTO, imageInfo} from './image.js'
import {offlineAction, type Sent, type TriggerEmulator} from './offline-trigger.js'
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
import {
  ActionError,
  type SessionActions,
  type TriggerFlow,
  type TriggerRequest,
  type TriggerResult,
} from './protocol.js'
import {factsFromCalls, SessionFacts, type Party} from './session-facts.js'
import {
  checkUpdateObject,
  expiredDate,
  syntheticUpdate,
  updateContent,
  withCurrentDate,
  type Refusal,
} from './synthetic.js'

type Json = Record<string, unknown>

/** Where a webhook-mode session hands an update straight to the bot (the relay, past its answer cache). */
export interface UpdateInjector {
  inject(
    body: string,
    options: {source: 'trigger' | 'replay'; replayOf?: number},
  ): Promise<{status: number; record?: unknown}>
}

/** Who offline triggers speak as, and where they go. */
export interface OfflineTarget {
  emulator: TriggerEmulator
  token: string
  user: {userId: number; chatId: number; firstName?: string; username?: string}
  /** A trigger or replay reached the bot (the offline summary counts them with the chat's lines). */
  onSent?: () => void
}

export interface InspectorActionsOptions {
  mode: 'webhook' | 'polling'
  offline?: OfflineTarget
  timeoutMs: number
  history: () => UpdateHistory | undefined
  relay: () => UpdateInjector | undefined
  nextUpdateId: () => number
  /** The bot (the author of a message whose button a synthetic callback presses). */
  bot: () => {id: number; first_name?: string; username?: string} | undefined
  /** Nothing will see an update put into the emulator (polling without the api proxy): record it on the way in. */
  recordDirectly: boolean
  /** What the session has seen: the last chat and user, the bot's messages (default: an empty record). */
  facts?: SessionFacts
  /** The api proxy's answers to made-up ids (synthetic queries, files, charges). */
  local?: LocalAnswers
  /** How long the bot has to answer a synthetic pre-checkout query (default 10 s, as on Telegram). */
  preCheckoutWindowMs?: number
}

interface Expected {
  source: EntrySource
  replayOf?: number
  resolve: (entry: UpdateEntry) => void
}

const POLLING_ONLINE = new ActionError(
  409,
  'This session runs the bot on long polling against Telegram, which cannot be handed an update from `bot dev`.',
  'Run `bot dev` in webhook mode (the default, or --tunnel none without a public URL), or `bot dev --offline`.',
)

/** The query kinds the api proxy answers for a synthetic update of that type. */
const QUERY_TYPES: Record<string, QueryKind> = {
  callback_query: 'callback_query',
  inline_query: 'inline_query',
  shipping_query: 'shipping_query',
  pre_checkout_query: 'pre_checkout_query',
}

function refused(refusal: Refusal, status = 400): ActionError {
  return new ActionError(status, refusal.error, refusal.fix)
}

function noButton(chatId: number, data: string): ActionError {
  return new ActionError(
    404,
    `No message of the bot in chat ${chatId} has a button with callback_data "${data}" (of the messages this session saw it send).`,
    'Pass --message-id ID, or make the bot show that button first (its calls must go through the api proxy).',
  )
}

export class InspectorActions implements SessionActions {
  readonly #o: InspectorActionsOptions
  readonly #facts: SessionFacts
  /** update_ids put into the emulator, waiting for the bot to get them. */
  readonly #expected = new Map<number, Expected>()
  /** Offline: the business connection made for the business-message fixture (once). */
  #business: string | undefined

  constructor(o: InspectorActionsOptions) {
    this.#o = o
    this.#facts = o.facts ?? new SessionFacts()
  }

  /** How an update the session sees now was sent, when it was put into the emulator by an action. */
  expected(updateId: number): Pick<Expected, 'source' | 'replayOf'> | undefined {
    return this.#expected.get(updateId)
  }

  /** An entry got its answer (or was seen, in polling mode): an action waiting for it resolves. */
  settled(entry: UpdateEntry): void {
    const waiting = this.#expected.get(entry.updateId)
    if (!waiting || waiting.source !== entry.source) return
    this.#expected.delete(entry.updateId)
    waiting.resolve(entry)
  }

  async trigger(request: TriggerRequest): Promise<TriggerResult> {
    return this.#counted(await this.#trigger(request))
  }

  async replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    return this.#counted(await this.#replay(updateId, edited))
  }

  #counted<T>(entry: T): T {
    try {
      this.#o.offline?.onSent?.()
    } catch {
      // a counter that throws does not undo a delivery
    }
    return entry
  }

  async #trigger(request: TriggerRequest): Promise<TriggerResult> {
    const offline = this.#o.offline
    if (!offline && this.#o.mode === 'polling') throw POLLING_ONLINE
    if (request.kind === 'fixture') return this.#fixture(request)
    if (offline) return this.#viaEmulator('trigger', undefined, () => emulatorTrigger(offline, request))
    if (request.kind === 'update') {
      let update: Json
      try {
        update = syntheticUpdate(request, {updateId: this.#o.nextUpdateId()})
      } catch (error) {
        throw new ActionError(400, (error as Error).message, 'See `bot trigger --help`.')
      }
      return this.#injectSynthetic(update)
    }
    const parties = resolveParties(request, this.#facts.lastParty())
    const bot = this.#o.bot()
    const updateId = this.#o.nextUpdateId()
    let update: Json
    if (request.kind === 'message') {
      update = syntheticUpdate(
        {...request, chatId: parties.chatId, userId: parties.userId},
        {
          updateId,
          user: parties.user,
          chat: parties.chat,
          messageId: this.#facts.nextMessageId(parties.chatId),
          ...(bot ? {bot} : {}),
        },
      )
    } else {
      const pressed =
        request.messageId === undefined
          ? this.#facts.button(parties.chatId, request.data)
          : this.#facts.botMessage(parties.chatId, request.messageId)
      if (!pressed && request.messageId === undefined) throw noButton(parties.chatId, request.data)
      update = syntheticUpdate(
        {
          ...request,
          chatId: parties.chatId,
          userId: parties.userId,
          messageId: pressed?.messageId ?? request.messageId,
        },
        {
          updateId,
          user: parties.user,
          chat: parties.chat,
          ...(pressed ? {message: pressed.message} : {}),
          ...(bot ? {bot} : {}),
        },
      )
    }
    return this.#injectSynthetic(update)
  }

  /** Webhook mode: a synthetic update whose query id the api proxy will answer, through the relay. */
  #injectSynthetic(update: Json): Promise<UpdateEntry> {
    const {type, content} = updateContent(update)
    const kind = type === undefined ? undefined : QUERY_TYPES[type]
    if (kind && content && (typeof content.id === 'string' || typeof content.id === 'number'))
      this.#o.local?.addQuery(kind, String(content.id))
    return this.#inject(update, 'trigger')
  }

  // ---------------------------------------------------------------- fixtures

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

  async #fixture(request: Extract<TriggerRequest, {kind: 'fixture'}>): Promise<TriggerResult> {
    const offline = this.#o.offline
    if (!isFixtureType(request.type)) throw new ActionError(400, `Unknown trigger type "${request.type}".`)
    const type: FixtureType = request.type
    const fixture = request.template ?? loadFixture(type)
    const written = applySets(fixture.update, request.sets ?? [])
    if ('error' in written) throw refused(written as Refusal)
    const parties = resolveParties(request, offline ? this.#terminalParty(offline) : this.#facts.lastParty())
    const botSide = offline
      ? factsFromCalls(offline.emulator.sentMessages(offline.token) as Parameters<typeof factsFromCalls>[0])
      : this.#facts
    let photo: Json[] | undefined
    if (type === 'photo') photo = this.#photo(request.file)
    const context = fillContext({
      parties,
      bot: this.#o.bot(),
      botSide,
      userSide: this.#facts,
      fallbackMessageId: Math.max(1, Date.now() % 1_000_000),
      ...(photo ? {photo} : {}),
    })
    const filled = fillTemplate(written as Json, context, fixture.defaults, (name) =>
      missingPlaceholder(type, name, parties),
    )
    if ('error' in filled) throw refused(filled as unknown as Refusal, 422)
    const bad = checkUpdateObject(filled, `the filled ${type} fixture`)
    if (bad) throw refused(bad)
    const update = filled as Json
    if (type === 'payment' && 'pre_checkout_query' in update)
      return offline ? this.#payOffline(offline, update, botSide) : this.#payOnline(update)
    if (offline) {
      return this.#viaEmulatorMany(type, () =>
        offlineAction(offline.emulator, offline.token, type, update, () => this.#connection(offline)),
      )
    }
    const joinRequest = update.chat_join_request as Json | undefined
    const chatId = Number((joinRequest?.chat as Json | undefined)?.id)
    const userId = Number((joinRequest?.from as Json | undefined)?.id)
    if (joinRequest && Number.isSafeInteger(chatId) && Number.isSafeInteger(userId))
      this.#o.local?.addJoinRequest(chatId, userId)
    return this.#injectSynthetic({update_id: this.#o.nextUpdateId(), ...update})
  }

  /** photo: the image (the given file, else a small PNG) kept by the api proxy; its PhotoSize list. */
  #photo(file: {base64: string; name?: string} | undefined): Json[] {
    const bytes = file ? Buffer.from(file.base64, 'base64') : DEFAULT_PHOTO
    const info = imageInfo(bytes)
    if (!info)
      throw new ActionError(
        400,
        `${file?.name ?? 'The file'} is not a JPEG, PNG, GIF or WebP image.`,
        'Send a photo Telegram would take (bot trigger photo picture.jpg).',
      )
    const local = this.#o.local
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

  // ---------------------------------------------------------------- payments

  /** Online: the synthetic pre-checkout query, the bot's answer (answered by the api proxy), then the payment. */
  async #payOnline(update: Json): Promise<TriggerResult> {
    const query = update.pre_checkout_query as Json
    const id = String(query.id)
    const windowMs = this.#o.preCheckoutWindowMs ?? PRE_CHECKOUT_WINDOW_MS
    const sentAt = Date.now()
    const first = await this.#injectSynthetic({update_id: this.#o.nextUpdateId(), ...update})
    const inReply = webhookReplyAnswer(first, id)
    if (inReply) this.#o.local?.answeredElsewhere(id, inReply)
    const answer = inReply ?? (await this.#o.local?.waitFor(id, Math.max(0, sentAt + windowMs - Date.now())))
    const result = (flow: TriggerFlow, entry: UpdateEntry): TriggerResult => ({...entry, flow})
    if (!answer) return result(failedFlow(query, 'timeout', [first], {windowMs}), first)
    if (!answerOk(answer)) {
      const errorMessage = typeof answer.error_message === 'string' ? answer.error_message : ''
      return result(failedFlow(query, 'refused', [first], {errorMessage}), first)
    }
    const chargeId = newChargeId(String(query.currency))
    this.#o.local?.addCharge(chargeId)
    const userId = Number((query.from as Json).id)
    const paid = successfulPayment(query, {
      messageId: this.#facts.nextMessageId(userId) ?? Math.max(1, Date.now() % 1_000_000),
      chargeId,
    })
    const second = await this.#inject({update_id: this.#o.nextUpdateId(), ...paid}, 'trigger')
    return result(paidFlow(query, chargeId, [first, second]), second)
  }

  /**
   * Offline: the emulator runs the payment: the bot's newest invoice in the user's chat when the
   * fixture still describes it, else an invoice link with the fixture's values.
   */
  async #payOffline(offline: OfflineTarget, update: Json, botSide: SessionFacts): Promise<TriggerResult> {
    const {emulator, token} = offline
    const query = update.pre_checkout_query as Json
    const from = query.from as Json
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
      const message = queued.message as Json | undefined
      if (queued.shipping_query || queued.pre_checkout_query || message?.successful_payment) {
        const wait = this.#expect(queued.update_id, 'trigger')
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
          if (!/already paid/.test((error as Error).message)) throw error
          attempt = await byLink()
        }
      } else attempt = await byLink()
    } catch (error) {
      for (const cancel of cancels) cancel()
      throw new ActionError(
        400,
        `The emulator could not run the payment: ${(error as Error).message}`,
        'Check the values given with --set (currency, total_amount, invoice_payload).',
      )
    } finally {
      emulator.off('update', onUpdate)
    }
    let entries: UpdateEntry[]
    try {
      entries = await this.#deadline(Promise.all(waits), 'The bot')
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

  // ---------------------------------------------------------------- replays and deliveries
  async #replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    const history = this.#o.history()
    const entry = updateId === 'last' ? history?.last() : history?.find(updateId)
    if (!entry)
      throw new ActionError(
        404,
        updateId === 'last'
          ? 'No update has been recorded in this session yet.'
          : `Update ${updateId} is not in this session's history (the newest 1000 updates are kept).`,
        'Send the bot a message first, or pick an update_id from the inspector or the `bot dev` log (`bot replay --last` replays the newest).',
      )
    if (edited !== undefined && (edited === null || typeof edited !== 'object' || Array.isArray(edited)))
      throw new ActionError(
        400,
        'The edited update is not a JSON object.',
        'Send the whole update as an object, e.g. {"update_id": 1, "message": {…}}.',
      )
    if (!edited && entry.truncated)
      throw new ActionError(
        422,
        `Update ${entry.updateId} was larger than 64 KiB and is not kept whole, so it cannot be replayed as it was.`,
        'Replay it with an edited body (Edit and replay in the inspector).',
      )
    // A replay is a new delivery: dated now (Telegram would not deliver a message more than a day old).
    const body = withCurrentDate((edited ?? entry.update) as Record<string, unknown>)
    if (this.#o.mode === 'polling') {
      const offline = this.#o.offline
      if (!offline) throw POLLING_ONLINE
      return this.#viaEmulator('replay', entry.updateId, () =>
        offline.emulator.injectUpdate(offline.token, withoutUpdateId(body)),
      )
    }
    const id = typeof body.update_id === 'number' ? body.update_id : entry.updateId
    return this.#inject(withUpdateId(body, id), 'replay', entry.updateId)
  }

  /** Webhook mode: straight to the bot through the relay. */
  async #inject(
    update: Record<string, unknown>,
    source: 'trigger' | 'replay',
    replayOf?: number,
  ): Promise<UpdateEntry> {
    const relay = this.#o.relay()
    if (!relay)
      throw new ActionError(
        503,
        'The session is not ready to deliver updates yet.',
        'Wait for the `Ready` line, then try again.',
      )
    const result = await this.#deadline(
      relay.inject(JSON.stringify(update), {source, ...(replayOf !== undefined ? {replayOf} : {})}),
      'The bot',
    )
    const entry = result.record as UpdateEntry | undefined
    if (!entry)
      throw new ActionError(500, `The update was delivered (the bot answered ${result.status}) but not recorded.`)
    return entry
  }

  /** Offline: put the update into the emulator and wait until the bot got it (and, in webhook mode, answered). */
  async #viaEmulator(
    source: 'trigger' | 'replay',
    replayOf: number | undefined,
    send: () => {update_id: number},
  ): Promise<UpdateEntry> {
    let update: {update_id: number}
    try {
      update = send()
    } catch (error) {
      if (error instanceof ActionError) throw error
      throw new ActionError(
        400,
        `The emulator refused the update: ${(error as Error).message}`,
        'Check the ids given (chat, user, message id of the pressed button).',
      )
    }
    if (!update.update_id) throw droppedError(update as unknown as Record<string, unknown>)
    const direct = this.#recordDirectly(update, source, replayOf)
    if (direct) return direct
    const wait = this.#expect(update.update_id, source, replayOf)
    try {
      return await this.#deadline(wait.promise, 'The bot')
    } finally {
      wait.cancel()
    }
  }

  /** Offline: an emulator action that may queue several updates (a join: chat_member and its service message). */
  async #viaEmulatorMany(type: string, send: () => Sent): Promise<TriggerResult> {
    let sent: Sent
    try {
      sent = send()
    } catch (error) {
      throw new ActionError(
        400,
        `The emulator refused the ${type}: ${(error as Error).message}`,
        'Check the chat, user and values given (--chat, --user, --set).',
      )
    }
    const delivered = sent.filter((u) => u.update_id)
    const skipped = sent.filter((u) => !u.update_id)
    if (delivered.length === 0) {
      const reason = skipped.find((u) => u.reason)?.reason
      if (reason)
        throw new ActionError(
          422,
          `The emulator sent the bot nothing: ${reason}.`,
          'See docs/emulator.md for when Telegram sends this update.',
        )
      throw droppedError((sent[0] ?? {}) as Record<string, unknown>)
    }
    const entries: UpdateEntry[] = []
    const waits = delivered.map((u) => {
      const direct = this.#recordDirectly(u, 'trigger')
      if (direct) return {promise: Promise.resolve(direct), cancel: () => {}}
      return this.#expect(u.update_id, 'trigger')
    })
    try {
      entries.push(...(await this.#deadline(Promise.all(waits.map((w) => w.promise)), 'The bot')))
    } finally {
      for (const w of waits) w.cancel()
    }
    const main = entries[0]
    if (entries.length === 1 && skipped.length === 0) return main
    const notSent = skipped.map(
      (u) =>
        `${updateContent(u as Json).type ?? 'an update'} not sent (${u.reason ?? 'Telegram would not send it to this bot: its allowed_updates or its rights in the chat leave it out'})`,
    )
    return {
      ...main,
      flow: {
        kind: type,
        status: 'delivered',
        ok: true,
        text: `✓ ${type}: ${entries.length} update${entries.length === 1 ? '' : 's'} delivered${notSent.length ? `; ${notSent.join('; ')}` : ''}`,
        entries,
      },
    }
  }

  /** Offline polling without the api proxy: nothing sees the update arrive, so it is recorded as it goes in. */
  #recordDirectly(
    update: {update_id: number},
    source: 'trigger' | 'replay',
    replayOf?: number,
  ): UpdateEntry | undefined {
    if (!this.#o.recordDirectly) return undefined
    const history = this.#o.history()
    if (!history) return undefined
    const entry = history.begin(update, source, replayOf)
    history.finish(entry, null, 0)
    return entry
  }

  /** Waits for the entry of an update the emulator queued (settled() resolves it); cancel forgets it. */
  #expect(
    updateId: number,
    source: 'trigger' | 'replay',
    replayOf?: number,
  ): {promise: Promise<UpdateEntry>; cancel: () => void} {
    const promise = new Promise<UpdateEntry>((resolve) =>
      this.#expected.set(updateId, {source, ...(replayOf !== undefined ? {replayOf} : {}), resolve}),
    )
    return {promise, cancel: () => this.#expected.delete(updateId)}
  }

  #deadline<T>(promise: Promise<T>, who: string): Promise<T> {
    const seconds = Math.round(this.#o.timeoutMs / 1000)
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ActionError(
              504,
              `${who} did not take the update within ${seconds}s.`,
              'Look at the bot’s output in `bot dev`; the inspector shows the update once it is answered.',
            ),
          ),
        this.#o.timeoutMs,
      )
      timer.unref()
    })
    return Promise.race([promise, late]).finally(() => clearTimeout(timer))
  }
}

/** The emulator user's action for a trigger request. */
function emulatorTrigger(offline: OfflineTarget, request: TriggerRequest): {update_id: number} {
  const {emulator, token, user} = offline
  // A user id without a chat: that user's private chat; neither: the terminal user's chat.
  const chatId =
    'chatId' in request && request.chatId !== undefined
      ? request.chatId
      : 'userId' in request && request.userId !== undefined
        ? undefined
        : user.chatId
  const userId = 'userId' in request && request.userId !== undefined ? request.userId : user.userId
  const who = {
    userId,
    ...(chatId !== undefined ? {chatId} : {}),
    ...(userId === user.userId && user.firstName ? {firstName: user.firstName} : {}),
    ...(userId === user.userId && user.username ? {username: user.username} : {}),
  }
  if (request.kind === 'message') return emulator.sendUserMessage(token, {text: request.text, ...who})
  if (request.kind === 'callback') {
    let messageId = request.messageId
    if (messageId === undefined) {
      // The newest message of the bot in that chat with this button, as the emulator recorded the bot's calls.
      const chat = chatId ?? userId
      const calls = emulator.sentMessages(token, {chatId: chat}) as Parameters<typeof factsFromCalls>[0]
      messageId = factsFromCalls(calls).button(chat, request.data)?.messageId
      if (messageId === undefined) throw noButton(chat, request.data)
    }
    return emulator.sendCallbackQuery(token, {data: request.data, messageId, ...who})
  }
  if (request.kind === 'fixture') throw new TypeError('a fixture is not a single emulator action')
  return emulator.injectUpdate(token, withoutUpdateId(withCurrentDate(request.update)))
}

/** Why the emulator dropped an update (its answer's update_id is 0), as Telegram would have. */
export function droppedError(update: Record<string, unknown>, now = Date.now()): ActionError {
  const date = expiredDate(update, now)
  if (date !== undefined)
    return new ActionError(
      422,
      `The emulator dropped the update: it is dated ${new Date(date * 1000).toISOString()}, more than 24 hours ago, and Telegram never delivers an update that old.`,
      'Date it within the last 24 hours.',
    )
  const type = updateContent(update).type ?? 'unknown'
  return new ActionError(
    422,
    `The emulator dropped the update: the bot's allowed_updates exclude its type (${type}).`,
    'Trigger an update type the bot asked for, or change allowed_updates.',
  )
}

/** The update with `update_id` first (as Telegram writes it: the relay and tools read it from the start). */
function withUpdateId(update: Record<string, unknown>, updateId: number): Record<string, unknown> {
  return {update_id: updateId, ...withoutUpdateId(update)}
}

function withoutUpdateId(update: Record<string, unknown>): Record<string, unknown> {
  const {update_id: _ignored, ...rest} = update
  return rest
}
