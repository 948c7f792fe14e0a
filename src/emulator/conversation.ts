/**
 * The conversation API: a user who talks to a bot in JavaScript tests.
 *
 *   const user = emu.user(token, {firstName: 'Ada'})
 *   const replies = await user.send('/start')    // the bot's messages for that update, once it has handled it
 *   await user.click('Yes')                       // a button of the last message that has it
 *   user.chat                                     // the chat as the user sees it (edits applied, deletions gone)
 *
 * "Handled" means: in webhook mode, the bot answered the webhook POST (when the answer carried a method, the
 * handler may go on after it, so its calls must then also go quiet); in polling mode, a getUpdates confirmed the
 * update and the bot's calls then went quiet for a short settle window with none in flight. Every wait has a deadline; failures name what was expected and what the bot sent.
 */
import type {EventEmitter} from 'node:events'
import type {BotState} from './state/bot.js'
import {isOutgoing} from './methods/index.js'
import type {CallEvents} from './user/wait.js'
import type {RecordedCall, TgObject, Update, UserMediaKind, UserMediaOptions, UserMessageOptions} from './types.js'
import {type Message, isMessage, isObject} from './telegram.js'
import {readFileSync, statSync} from 'node:fs'
import {basename} from 'node:path'
import {MAX_USER_FILE} from './user/media.js'
import type {PayOptions} from './user/payments.js'
import type {PaymentAttempt} from './state/payments.js'
import type {Act} from './actions/index.js'
import type {WebAppLaunch} from './user/web-app-launch.js'
import type {SubscriptionOptions} from './user/subscriptions.js'
import {asError, errorText} from './errors.js'

export interface ConversationOptions {
  /** The user's id (default: a new one per user, from 100001). */
  id?: number
  /** The chat the user writes in (default: the private chat, id = the user id; negative = a group). */
  chatId?: number
  firstName?: string
  lastName?: string
  username?: string
  languageCode?: string
  /** How long send/click wait for the bot to finish (default 5000 ms). */
  timeoutMs?: number
  /** Polling mode: how long the bot's calls must stay quiet after the update is confirmed (default 5 ms). */
  settleMs?: number
  /**
   * The user is a customer of a business account connected to the bot (emu.connectBusiness): send() writes in
   * the account's chat with them (business_message), and `chat` is that chat.
   */
  businessConnectionId?: string
}

export type Signals = {confirmed: [bot: BotState]; handled: [bot: BotState, updateId: number, replied: boolean]}

/** What a ConversationUser needs from the emulator. */
export interface ConversationHost {
  token: string
  bot: BotState
  calls: CallEvents
  signals: EventEmitter<Signals>
  /** Register a function that fails a pending wait when the emulator stops; returns its unregistration. */
  onStop(fail: (err: Error) => void): () => void
  injectUpdate(token: string, body: TgObject): Update
  /** Run a user action of the table (actions/index.ts) as this bot's user. */
  act: Act
}

/** What a media message may carry besides the file. */
export type MediaSendOptions = Omit<UserMediaOptions, 'kind' | 'data' | 'chatId' | 'userId'>

export class ConversationUser {
  readonly id: number
  readonly chatId: number
  private readonly timeoutMs: number
  private readonly settleMs: number

  constructor(
    private readonly host: ConversationHost,
    private readonly options: ConversationOptions & {id: number},
  ) {
    this.id = options.id
    this.chatId = options.chatId ?? options.id
    this.timeoutMs = options.timeoutMs ?? 5000
    this.settleMs = options.settleMs ?? 5
    if (!Number.isSafeInteger(this.id) || this.id <= 0)
      throw new Error(`emu.user: id ${String(this.id)} must be a positive integer`)
    if (!Number.isSafeInteger(this.chatId) || this.chatId === 0)
      throw new Error(`emu.user: chatId ${String(this.chatId)} must be a non-zero integer`)
  }

  /** The chat's messages as the user sees them, oldest first: the user's and the bot's, edits applied, deletions removed. */
  get chat(): Message[] {
    if (this.options.businessConnectionId !== undefined)
      return this.host.bot.business.chat(this.options.businessConnectionId, this.id)
    const prefix = `${this.chatId}:`
    const out: Message[] = []
    for (const [key, message] of this.host.bot.messages) if (key.startsWith(prefix)) out.push(message)
    return out.sort((a, b) => a.message_id - b.message_id)
  }

  /** The ephemeral messages (Bot API 10.2) the bot showed this user in this chat and still shows, oldest first. */
  get ephemeral(): Message[] {
    return this.host.bot.ephemeral
      .all()
      .filter((e) => e.chatId === this.chatId && e.receiverUserId === this.id)
      .map((e) => e.message)
      .filter(isMessage)
  }

  /** Send a text message; resolves with the messages the bot sent (or edited) in this chat while handling it. */
  send(text: string, options: {replyToMessageId?: number} = {}): Promise<Message[]> {
    if (typeof text !== 'string' || text === '')
      return Promise.reject(new Error('user.send: the text must be a non-empty string'))
    const business = this.options.businessConnectionId
    if (business !== undefined)
      return this.exchange(`user.send(${JSON.stringify(text)})`, () =>
        this.host.act('send_business_message', {
          connectionId: business,
          text,
          customerId: this.id,
          firstName: this.options.firstName,
          username: this.options.username,
        }),
      )
    return this.exchange(`user.send(${JSON.stringify(text)})`, () =>
      this.host.act('send_message', {
        text,
        chatId: this.chatId,
        userId: this.id,
        ...this.identity(),
        ...options,
      }),
    )
  }

  /**
   * Press the button labelled `text` on the last message that has one: an inline button sends its callback_query,
   * a reply-keyboard button sends its text. Resolves like send().
   */
  click(text: string): Promise<Message[]> {
    const what = `user.click(${JSON.stringify(text)})`
    // the chat's messages and the ephemeral ones only this user sees (Bot API 10.2), in the order they came
    const messages = [...this.chat, ...this.ephemeral].sort((a, b) => Number(a.date ?? 0) - Number(b.date ?? 0))
    for (let i = messages.length - 1; i >= 0; i--) {
      const button = inlineButtons(messages[i]).find((b) => b.text === text)
      if (!button) continue
      if (typeof button.callback_data !== 'string') {
        const kind = Object.keys(button).find((k) => k !== 'text') ?? 'no action'
        return Promise.reject(
          new Error(
            `${what}: the button "${text}" of message ${messages[i].message_id} is a ${kind} button, not a callback button: there is nothing to press in a test`,
          ),
        )
      }
      const data = button.callback_data
      const ephemeralId = messages[i].ephemeral_message_id
      const target =
        messages[i].message_id === 0 && typeof ephemeralId === 'number'
          ? {ephemeralMessageId: ephemeralId}
          : {messageId: messages[i].message_id}
      return this.exchange(what, () =>
        this.host.act('press_button', {
          data,
          ...target,
          chatId: this.chatId,
          userId: this.id,
          firstName: this.options.firstName,
          username: this.options.username,
        }),
      )
    }
    const keyboard = this.replyKeyboard()
    if (keyboard.includes(text)) return this.send(text)
    const seen = [...new Set([...messages.flatMap((m) => inlineButtons(m).map((b) => b.text)), ...keyboard])]
    return Promise.reject(
      new Error(
        `${what}: no message in chat ${this.chatId} has a button "${text}"; ` +
          (seen.length > 0
            ? `the buttons there: ${seen.map((b) => `[${String(b)}]`).join(' ')}`
            : 'the bot sent no buttons') +
          `; the chat: ${describeChat(messages)}`,
      ),
    )
  }

  /** Send a photo (bytes, or a path to read); resolves like send(). */
  sendPhoto(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('photo', file, options)
  }

  sendDocument(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('document', file, options)
  }

  sendVideo(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('video', file, options)
  }

  sendAudio(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('audio', file, options)
  }

  sendVoice(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('voice', file, options)
  }

  sendAnimation(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('animation', file, options)
  }

  sendSticker(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('sticker', file, options)
  }

  sendVideoNote(file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    return this.sendMedia('video_note', file, options)
  }

  /** Any of the media above by kind: the file's bytes, or a path to read. */
  sendMedia(kind: UserMediaKind, file: Buffer | string, options: MediaSendOptions = {}): Promise<Message[]> {
    const what = `user.send${kind === 'video_note' ? 'VideoNote' : kind[0].toUpperCase() + kind.slice(1)}(${typeof file === 'string' ? JSON.stringify(file) : `<${file.length} bytes>`})`
    let data: Buffer
    let filename = options.filename
    try {
      if (typeof file === 'string') {
        if (statSync(file).size > MAX_USER_FILE) throw new Error(`the file is over ${MAX_USER_FILE} bytes`)
        data = readFileSync(file)
        filename ??= basename(file)
      } else data = file
    } catch (err) {
      return Promise.reject(new Error(`${what}: ${errorText(err)}`))
    }
    return this.exchange(what, () =>
      this.host.act('send_media', {
        ...options,
        kind,
        data,
        ...(filename ? {filename} : {}),
        chatId: this.chatId,
        userId: this.id,
        ...this.identity(),
      }),
    )
  }

  /**
   * Vote in the bot's latest poll in this chat (or the poll of `messageId`): option indexes, [] retracts. Resolves
   * like send() once the bot handled the updates (poll_answer for a non-anonymous poll, then poll).
   */
  vote(optionIds: number | number[], options: {messageId?: number} = {}): Promise<Message[]> {
    const ids = Array.isArray(optionIds) ? optionIds : [optionIds]
    const what = `user.vote(${JSON.stringify(ids)})`
    const messages = this.chat.filter(
      (m) => m.poll && (options.messageId === undefined || m.message_id === options.messageId),
    )
    const poll = messages.at(-1)?.poll
    if (!isObject(poll)) return Promise.reject(new Error(`${what}: there is no poll in chat ${this.chatId}`))
    return this.exchange(what, () => {
      const {updates} = this.host.act('vote_poll', {
        pollId: String(poll.id),
        optionIds: ids,
        userId: this.id,
        ...(this.options.firstName !== undefined ? {firstName: this.options.firstName} : {}),
      })
      return updates.at(-1)!
    })
  }

  /**
   * Type an inline query (`@bot query`); resolves, once the bot handled it, with its answer (answerInlineQuery's
   * `{results, cache_time, is_personal, next_offset, button?}`), or undefined when it did not answer.
   */
  async inlineQuery(query: string, options: {offset?: string; chatType?: string} = {}): Promise<TgObject | undefined> {
    let id = ''
    await this.exchange(`user.inlineQuery(${JSON.stringify(query)})`, () => {
      const update = this.host.act('inline_query', {
        query,
        userId: this.id,
        ...options,
        ...this.identity(),
      })
      id = String(isObject(update.inline_query) ? (update.inline_query.id ?? '') : '')
      return update
    })
    this.lastInlineQuery = id
    return this.host.bot.inline.queries.get(id)?.answer
  }

  /** Pick result `resultId` of the answer to this user's last inline query: the bot gets chosen_inline_result. */
  chooseInlineResult(resultId: string): Promise<Message[]> {
    const what = `user.chooseInlineResult(${JSON.stringify(resultId)})`
    if (!this.lastInlineQuery)
      return Promise.reject(new Error(`${what}: make an inline query first (user.inlineQuery)`))
    const queryId = this.lastInlineQuery
    return this.exchange(what, () => this.host.act('choose_inline_result', {queryId, resultId}))
  }

  private lastInlineQuery = ''

  private identity(): Partial<UserMessageOptions> {
    const {firstName, lastName, username, languageCode} = this.options
    return {
      ...(firstName !== undefined ? {firstName} : {}),
      ...(lastName !== undefined ? {lastName} : {}),
      ...(username !== undefined ? {username} : {}),
      ...(languageCode !== undefined ? {languageCode} : {}),
    }
  }

  /** The buttons of the reply keyboard the bot last showed in this chat (none after remove_keyboard). */
  private replyKeyboard(): string[] {
    const calls = this.host.bot.calls
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i]
      if (call.error || !isOutgoing(call.method) || String(call.params.chat_id) !== String(this.chatId)) continue
      const markup = call.params.reply_markup
      if (!isObject(markup)) continue
      if (markup.remove_keyboard) return []
      if (Array.isArray(markup.keyboard)) {
        return markup.keyboard
          .flat()
          .map((b: unknown) => (typeof b === 'string' ? b : String(isObject(b) ? (b.text ?? '') : '')))
      }
    }
    return []
  }

  /** Inject an update and wait until the bot has handled it; the bot's messages in this chat meanwhile. */
  private exchange(what: string, inject: () => Update, chatId = this.chatId): Promise<Message[]> {
    const {bot, calls, signals} = this.host
    const startSeq = bot.callSeq
    const seen: RecordedCall[] = []
    let settleTimer: NodeJS.Timeout | undefined
    let deadline: NodeJS.Timeout | undefined
    let confirmed = false
    let updateId = 0
    return new Promise<Message[]>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(settleTimer)
        clearTimeout(deadline)
        calls.off('call', onCall)
        signals.off('confirmed', onConfirmed)
        signals.off('handled', onHandled)
        offStop()
      }
      const done = (): void => {
        cleanup()
        resolve(this.messagesIn(seen, chatId))
      }
      const fail = (err: Error): void => {
        cleanup()
        reject(err)
      }
      const settle = (): void => {
        clearTimeout(settleTimer)
        settleTimer = setTimeout(() => {
          if (bot.inFlight === 0) done()
          else settle()
        }, this.settleMs)
      }
      const onCall = (call: RecordedCall, token: string): void => {
        if (token !== this.host.token || call.seq <= startSeq) return
        seen.push(call)
        if (confirmed && call.method.toLowerCase() !== 'getupdates') settle()
      }
      const onConfirmed = (b: BotState): void => {
        if (b !== bot || confirmed || updateId === 0 || bot.queue.has(updateId)) return
        confirmed = true
        settle()
      }
      const onHandled = (b: BotState, id: number, replied: boolean): void => {
        if (b !== bot || id !== updateId) return
        if (!replied) {
          done()
          return
        }
        // the bot answered the webhook with a method before its handler ended: wait for its calls to go quiet
        confirmed = true
        settle()
      }
      const offStop = this.host.onStop((err) => fail(new Error(`${what}: ${err.message}`)))
      calls.on('call', onCall)
      signals.on('confirmed', onConfirmed)
      signals.on('handled', onHandled)
      let update: Update
      try {
        update = inject()
      } catch (err) {
        fail(asError(err))
        return
      }
      updateId = update.update_id
      if (updateId === 0) {
        fail(new Error(`${what}: the bot's allowed_updates exclude this update, so Telegram would not deliver it`))
        return
      }
      deadline = setTimeout(
        () =>
          fail(
            new Error(
              `${what}: the bot did not finish handling update ${updateId} within ` +
                `${this.timeoutMs} ms (${this.whereIs(updateId, confirmed)}); ${describeCalls(seen)}`,
            ),
          ),
        this.timeoutMs,
      )
    })
  }

  private messagesIn(calls: RecordedCall[], chatId = this.chatId): Message[] {
    const out: Message[] = []
    for (const call of calls) {
      if (call.error || !isOutgoing(call.method)) continue
      for (const result of Array.isArray(call.result) ? call.result : [call.result]) {
        if (isMessage(result) && result.chat.id === chatId) out.push(result)
      }
    }
    return out
  }

  /**
   * Pay an invoice of the bot: `invoice` is the invoice message's id (default: the chat's last invoice) or an invoice
   * link (or its slug). Resolves with the payment (its `status`: 'paid', 'refused' with the bot's `errorMessage`,
   * 'timeout'…) and, when paid, the messages the bot sent in this chat while handling the successful_payment.
   */
  async pay(
    invoice?: number | string,
    options: Pick<PayOptions, 'orderInfo' | 'shippingAddress' | 'shippingOptionId' | 'tipAmount'> = {},
  ): Promise<{payment: PaymentAttempt; replies: Message[]}> {
    const what = `user.pay(${invoice === undefined ? '' : JSON.stringify(invoice)})`
    let target: Pick<PayOptions, 'messageId' | 'chatId' | 'slug'>
    if (typeof invoice === 'string') target = {slug: invoice}
    else {
      const messageId = invoice ?? this.chat.filter((m) => m.invoice).at(-1)?.message_id
      if (messageId === undefined) throw new Error(`${what}: the bot sent no invoice in chat ${this.chatId}`)
      target = {messageId, chatId: this.chatId}
    }
    let handled: Promise<Message[]> | undefined
    const payment = await this.host.act('pay_invoice', {
      ...target,
      userId: this.id,
      firstName: this.options.firstName,
      username: this.options.username,
      ...options,
      injectPaid: (body) => {
        let update: Update = {update_id: 0}
        handled = this.exchange(what, () => {
          update = this.host.injectUpdate(this.host.token, body)
          return update
        })
        return update
      },
    })
    return {payment, replies: handled ? await handled : []}
  }

  /**
   * React to a message (default: the bot's last message in this chat): `'👍'`, a ReactionType, or a list; `[]`
   * takes the user's reactions back. Resolves like send() with the bot's messages while it handled the update;
   * rejects when Telegram would send the bot none (its allowed_updates leave reactions out, as they are by default,
   * or it is no administrator of the group).
   */
  react(reaction: string | TgObject | Array<string | TgObject>, messageId?: number): Promise<Message[]> {
    const what = `user.react(${JSON.stringify(reaction)})`
    const target = messageId ?? this.chat.filter((m) => m.from?.is_bot).at(-1)?.message_id
    if (target === undefined)
      return Promise.reject(new Error(`${what}: the bot sent no message in chat ${this.chatId}`))
    return this.exchange(what, () => {
      const made = this.host.act('react', {
        chatId: this.chatId,
        messageId: target,
        userId: this.id,
        firstName: this.options.firstName,
        username: this.options.username,
        reaction: Array.isArray(reaction) ? reaction : [reaction],
      })
      if (made.update_id === 0) throw new Error(`${what}: Telegram would send no update: ${made.reason}`)
      return made
    })
  }

  /**
   * Join the user's group or channel (`chatId` of the user, negative), through an invite link if given. Resolves like
   * send() once the bot handled the last update of the join (chat_member, and the service message in groups).
   */
  join(options: {inviteLink?: string} = {}): Promise<Message[]> {
    return this.memberChange('user.join()', 'member', options.inviteLink)
  }

  /** Leave the user's group or channel; resolves like join(). */
  leave(): Promise<Message[]> {
    return this.memberChange('user.leave()', 'left')
  }

  /**
   * Ask to join the user's group or channel (a join-request invite link, or none): resolves once the bot handled
   * the chat_join_request, with the messages the bot sent (a join request lets it write to the user for 5 minutes:
   * those count too). Rejects when the bot gets no join request (it may not invite users there).
   */
  requestJoin(options: {inviteLink?: string; bio?: string} = {}): Promise<Message[]> {
    const what = 'user.requestJoin()'
    return this.exchange(
      what,
      () => {
        const made = this.host.act('request_join', {
          chatId: this.chatId,
          userId: this.id,
          firstName: this.options.firstName,
          username: this.options.username,
          ...options,
        })
        if (made.update_id === 0) throw new Error(`${what}: Telegram would send no update: ${made.reason}`)
        return made
      },
      this.id,
    )
  }

  /**
   * Send data from the Mini App of the bot's reply keyboard (Telegram.WebApp.sendData): a `web_app_data` message.
   * `buttonText` defaults to the keyboard's `web_app` button. Resolves like send().
   */
  sendWebAppData(data: string, buttonText?: string): Promise<Message[]> {
    const what = `user.sendWebAppData(${JSON.stringify(data)})`
    const button = buttonText ?? this.replyKeyboardButtons().find((b) => b.web_app)?.text
    if (typeof button !== 'string')
      return Promise.reject(new Error(`${what}: the bot's reply keyboard in chat ${this.chatId} has no web_app button`))
    return this.exchange(what, () => this.host.act('send_web_app_data', {userId: this.id, data, buttonText: button}))
  }

  /** Open a Mini App with a query (an inline button or the menu): the query_id for answerWebAppQuery. */
  openWebApp(): string {
    return this.host.act('open_web_app_query', {userId: this.id, chatId: this.chatId})
  }

  /**
   * Open a Mini App as a Telegram web client does: `{url, initData, queryId?}`, the launch URL with initData signed
   * with the bot's token (the table's launch_web_app). `url` defaults to the bot's web_app menu button; a
   * `startParam` (or a group's chat) makes it a direct-link launch, without a query_id.
   */
  launchWebApp(options: {url?: string; startParam?: string} = {}): WebAppLaunch {
    return this.host.act('launch_web_app', {...options, userId: this.id, chatId: this.chatId})
  }

  /**
   * Boost the user's channel or supergroup (`chatId`): resolves like send() once the bot handled the last update
   * (chat_boost, and boost_added in a supergroup).
   */
  boost(): Promise<Message[]> {
    return this.exchange('user.boost()', () => {
      const updates = this.host.act('boost_chat', {
        chatId: this.chatId,
        userId: this.id,
        firstName: this.options.firstName,
        username: this.options.username,
      })
      const delivered = updates.filter((u) => u.update_id !== 0)
      if (delivered.length === 0) throw new Error('user.boost(): Telegram would send no update')
      return delivered.at(-1)!
    })
  }

  /**
   * Summon the bot in guest mode (Bot API 10.0) in the user's chat, a chat the bot is not in: a guest_message.
   * Resolves once the bot handled it (its answerGuestQuery is in emu.calls; the reply is no message of the bot's).
   */
  summon(text: string): Promise<Message[]> {
    return this.exchange(`user.summon(${JSON.stringify(text)})`, () =>
      this.host.act('summon_guest', {
        chatId: this.chatId,
        userId: this.id,
        text,
        firstName: this.options.firstName,
        username: this.options.username,
      }),
    )
  }

  /**
   * Tap the bot's widget (Bot API 10.4) in this chat (its newest widget message, or `messageId`): a widget_query
   * with `data`. Resolves once the bot handled it, with what its answerWidgetQuery gave ('' for no data), or
   * undefined when it did not answer.
   */
  async tapWidget(data: string, options: {messageId?: number} = {}): Promise<string | undefined> {
    let id = ''
    await this.exchange(`user.tapWidget(${JSON.stringify(data)})`, () => {
      const update = this.host.act('widget_query', {
        data,
        chatId: this.chatId,
        userId: this.id,
        ...(options.messageId !== undefined ? {messageId: options.messageId} : {}),
        firstName: this.options.firstName,
        username: this.options.username,
      })
      id = isObject(update.widget_query) ? String(update.widget_query.id) : ''
      return update
    })
    return this.host.bot.widgets.queries.get(id)?.answer
  }

  /**
   * The user's payment subscription to the bot changes (Bot API 10.2): a subscription update with the invoice's
   * payload and the new state. Resolves once the bot handled it.
   */
  subscription(invoicePayload: string, state: SubscriptionOptions['state']): Promise<Message[]> {
    return this.exchange(`user.subscription(${JSON.stringify(invoicePayload)}, ${JSON.stringify(state)})`, () =>
      this.host.act('update_subscription', {
        invoicePayload,
        state,
        userId: this.id,
        firstName: this.options.firstName,
        username: this.options.username,
      }),
    )
  }

  /**
   * Press the stop button of the bot's draft `draftId` (Bot API 10.3, a draft sent with can_stop): a
   * stopped_message_generation update. Resolves once the bot handled it, with its messages.
   */
  stopGeneration(draftId: number, options: {messageThreadId?: number} = {}): Promise<Message[]> {
    return this.exchange(`user.stopGeneration(${draftId})`, () =>
      this.host.act('stop_generation', {draftId, chatId: this.chatId, messageThreadId: options.messageThreadId}),
    )
  }

  /** The buttons (as objects) of the reply keyboard the bot last showed in this chat. */
  private replyKeyboardButtons(): TgObject[] {
    const calls = this.host.bot.calls
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i]
      if (call.error || !isOutgoing(call.method) || String(call.params.chat_id) !== String(this.chatId)) continue
      const markup = call.params.reply_markup
      if (!isObject(markup)) continue
      if (markup.remove_keyboard) return []
      if (Array.isArray(markup.keyboard))
        return markup.keyboard.flat().map((b: unknown) => (typeof b === 'string' ? {text: b} : isObject(b) ? b : {}))
    }
    return []
  }

  private memberChange(what: string, status: 'member' | 'left', inviteLink?: string): Promise<Message[]> {
    return this.exchange(what, () => {
      const updates = this.host.act('set_member_status', {
        chatId: this.chatId,
        userId: this.id,
        status,
        firstName: this.options.firstName,
        username: this.options.username,
        ...(inviteLink ? {inviteLink} : {}),
      })
      const delivered = updates.filter((u) => u.update_id !== 0)
      if (delivered.length === 0)
        throw new Error(
          `${what}: Telegram would send no update (a channel's bot without chat_member in allowed_updates)`,
        )
      return delivered.at(-1)!
    })
  }

  private whereIs(updateId: number, confirmed: boolean): string {
    const bot = this.host.bot
    if (confirmed) return 'confirmed by getUpdates, but the bot kept calling the API'
    if (!bot.queue.has(updateId)) return 'it left the queue without an answer'
    if (bot.webhook) {
      return bot.lastErrorMessage
        ? `still queued for the webhook; last delivery error: ${bot.lastErrorMessage}`
        : 'still queued for the webhook'
    }
    return bot.poll
      ? 'still queued, not yet confirmed by a getUpdates offset'
      : 'still queued: no webhook is set and no getUpdates is waiting (is the bot running?)'
  }
}

function inlineButtons(message: TgObject): TgObject[] {
  const markup = message.reply_markup
  if (!isObject(markup) || !Array.isArray(markup.inline_keyboard)) return []
  return markup.inline_keyboard.flat().filter(isObject)
}

/** "the bot sent: sendMessage "Hello"; sendMessage failed 400 Bad Request: …" */
export function describeCalls(calls: RecordedCall[]): string {
  const parts: string[] = []
  for (const call of calls) {
    if (call.method.toLowerCase() === 'getupdates') continue
    const text = call.params.text ?? call.params.caption ?? call.params.data
    const shown =
      typeof text === 'string' ? ` ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)}` : ''
    parts.push(
      call.error
        ? `${call.method}${shown} failed: ${call.error.code} ${call.error.description}`
        : `${call.method}${shown}`,
    )
  }
  return parts.length > 0 ? `the bot's calls: ${parts.join('; ')}` : 'the bot made no calls'
}

function describeChat(messages: Message[]): string {
  if (messages.length === 0) return '(empty)'
  return messages
    .slice(-5)
    .map((m) => {
      const who = m.from?.is_bot ? 'bot' : 'user'
      const text = typeof m.text === 'string' ? m.text : typeof m.caption === 'string' ? m.caption : '[no text]'
      return `${who}: ${JSON.stringify(text)}`
    })
    .join(', ')
}
