/**
 * The chat page's live feed: what the emulator's bot does (its calls) and what users do (the updates queued for it),
 * turned into what a Telegram client redraws, sent to every open page as Server-Sent Events:
 *
 *   event: message   {chat, view}              a message appeared or changed (sent, edited, reacted to, voted in)
 *   event: delete    {chat_id, message_ids}    messages deleted
 *   event: action    {chat_id, action}         sendChatAction (typing…, upload_photo…)
 *   event: callback  {id, text?, show_alert?, url?}  the bot's answerCallbackQuery
 *   event: inline    {query_id}                the bot answered an inline query
 *   event: profile   {}                        the bot's commands, menu button, name or description changed
 *   event: keyboard  {chat_id, markup?}        the bot sent a reply keyboard (a Message never carries one), or removed it
 *   event: ephemeral {chat_id, receiver_user_id, ephemeral_message_id, view?}   an ephemeral message (Bot API 10.2)
 *                                              appeared or changed (`view`), or was deleted (no `view`): shown only
 *                                              to its receiver
 *
 * Each event is written the moment the call is recorded (the emulator records a call as it answers it). A page that
 * stops reading is dropped once `maxBuffered` bytes wait for it.
 */
import type {ServerResponse} from 'node:http'

import type {BotApiEmulator, MessageView, RecordedCall, Update} from '../emulator/index.js'
import {type ChatMessage, type ReplyMarkup, chatMessageOf, fieldOf, numericId, replyMarkupOf} from './telegram.js'

export type FeedEvent =
  | {type: 'message'; chat: ChatMessage['chat']; view: MessageView}
  | {type: 'delete'; chat_id: number; message_ids: number[]}
  | {type: 'action'; chat_id: number; action: string; message_thread_id?: number}
  | {type: 'callback'; id: string; text?: string; show_alert?: boolean; url?: string}
  | {type: 'inline'; query_id: string}
  | {type: 'profile'}
  /** The bot sent a reply keyboard to the chat (`markup`), or removed it (`markup` absent). */
  | {type: 'keyboard'; chat_id: number; markup?: ReplyMarkup}
  /** An ephemeral message (Bot API 10.2) of `receiver_user_id`: sent or edited (`view`), or deleted (no `view`). */
  | {type: 'ephemeral'; chat_id: number; receiver_user_id: number; ephemeral_message_id: number; view?: MessageView}

const PROFILE_METHODS = new Set([
  'setmycommands',
  'deletemycommands',
  'setchatmenubutton',
  'setmydescription',
  'setmyshortdescription',
  'setmyname',
])

const EPHEMERAL_EDITS = new Set([
  'editephemeralmessagetext',
  'editephemeralmessagecaption',
  'editephemeralmessagemedia',
  'editephemeralmessagereplymarkup',
  'deleteephemeralmessage',
])

const MESSAGE_UPDATES = ['message', 'edited_message', 'channel_post', 'edited_channel_post']

export interface ChatFeedOptions {
  /** The emulator whose calls and updates the feed follows (offline); without it the feed is fed through call(). */
  emulator?: BotApiEmulator
  token: string
  /**
   * Where the feed reads a message's current state after a call (default: the emulator's messageView): online, the
   * session's record of what the user saw (src/chat/session-chats.ts).
   */
  messageView?: (chatId: number, messageId: number) => MessageView | undefined
  /**
   * Where the feed reads an ephemeral message after an edit (default: the emulator's ephemeralMessages): online,
   * the session's record (src/chat/session-ephemeral.ts), since Telegram answers the edit with `true`.
   */
  ephemeralView?: (chatId: number, receiverUserId: number, ephemeralMessageId: number) => MessageView | undefined
  /** Strings never to appear in what is sent (the token). */
  redact?: (text: string) => string
  heartbeatMs?: number
  maxBuffered?: number
}

export class ChatFeed {
  readonly #o: ChatFeedOptions
  readonly #clients = new Set<ServerResponse>()
  readonly #heartbeat: NodeJS.Timeout
  #seq = 0
  /** The reply keyboard each chat shows now (the bot's latest ReplyKeyboardMarkup there, until it is removed). */
  readonly #keyboards = new Map<number, ReplyMarkup>()
  readonly #onCall = (call: RecordedCall, token: string) => {
    if (token === this.#o.token) this.#guarded(() => this.#fromCall(call))
  }
  readonly #onUpdate = (update: Update, token: string) => {
    if (token === this.#o.token) this.#guarded(() => this.#fromUpdate(update))
  }

  constructor(options: ChatFeedOptions) {
    this.#o = options
    options.emulator?.on('call', this.#onCall)
    options.emulator?.on('update', this.#onUpdate)
    this.#heartbeat = setInterval(() => {
      this.#guarded(() => {
        for (const res of this.#clients) this.#write(res, ': ping\n\n')
      })
    }, options.heartbeatMs ?? 15_000)
    this.#heartbeat.unref()
  }

  get size(): number {
    return this.#clients.size
  }

  /** Take over a request as an event stream. */
  attach(res: ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    })
    res.socket?.setNoDelay(true)
    this.#clients.add(res)
    res.on('close', () => this.#clients.delete(res))
    res.on('error', () => this.#drop(res))
    this.#write(res, 'retry: 1000\n\n')
  }

  /** Send an event to every page (also used by the server for what it does itself, such as a new chat). */
  publish(event: FeedEvent): void {
    if (this.#clients.size === 0) return
    this.#seq += 1
    let data = JSON.stringify(event)
    if (this.#o.redact) data = this.#o.redact(data)
    const text = `id: ${this.#seq}\nevent: ${event.type}\ndata: ${data}\n\n`
    for (const res of this.#clients) this.#write(res, text)
  }

  /** A call of the bot the feed does not see by itself (online: the api proxy's, once its result is recorded). */
  call(call: Pick<RecordedCall, 'method' | 'params' | 'result' | 'error'>): void {
    this.#guarded(() => this.#fromCall(call))
  }

  /** The reply keyboard a chat shows now, if any. */
  keyboard(chatId: number): ReplyMarkup | undefined {
    return this.#keyboards.get(chatId)
  }

  close(): void {
    clearInterval(this.#heartbeat)
    this.#o.emulator?.off('call', this.#onCall)
    this.#o.emulator?.off('update', this.#onUpdate)
    for (const res of this.#clients) res.end()
    this.#clients.clear()
  }

  #guarded(fn: () => void): void {
    try {
      fn()
    } catch {
      // nothing a bot does may take the session down through its page
    }
  }

  #write(res: ServerResponse, text: string): void {
    if (res.destroyed || res.writableEnded) {
      this.#clients.delete(res)
      return
    }
    if (res.writableLength + text.length > (this.#o.maxBuffered ?? 4 * 1024 * 1024)) {
      this.#drop(res)
      return
    }
    res.write(text)
  }

  #drop(res: ServerResponse): void {
    this.#clients.delete(res)
    res.destroy()
  }

  #message(chatId: number, messageId: number, fallback?: ChatMessage): void {
    const view =
      (this.#o.messageView
        ? this.#o.messageView(chatId, messageId)
        : this.#o.emulator?.messageView(this.#o.token, chatId, messageId)) ??
      (fallback ? {message: fallback, reactions: []} : undefined)
    if (view) this.publishView(view)
  }

  /** A message as its chat shows it now (sent, edited, reacted to), to every page. */
  publishView(view: MessageView): void {
    const chat = chatMessageOf(view.message)?.chat
    if (chat) this.publish({type: 'message', chat, view})
  }

  #fromCall(call: Pick<RecordedCall, 'method' | 'params' | 'result' | 'error'>): void {
    if (call.error) return
    const method = call.method.toLowerCase()
    const p = call.params
    const chatId = typeof p.chat_id === 'number' ? p.chat_id : Number(p.chat_id)
    this.#noteKeyboard(call)
    if (this.#clients.size === 0) return
    switch (method) {
      case 'sendchataction':
        if (Number.isSafeInteger(chatId))
          this.publish({
            type: 'action',
            chat_id: chatId,
            action: String(p.action),
            ...(typeof p.message_thread_id === 'number' ? {message_thread_id: p.message_thread_id} : {}),
          })
        return
      case 'answercallbackquery':
        this.publish({
          type: 'callback',
          id: String(p.callback_query_id),
          ...(typeof p.text === 'string' ? {text: p.text} : {}),
          ...(p.show_alert === true || p.show_alert === 'true' ? {show_alert: true} : {}),
          ...(typeof p.url === 'string' ? {url: p.url} : {}),
        })
        return
      case 'answerinlinequery':
        this.publish({type: 'inline', query_id: String(p.inline_query_id)})
        return
      case 'deletemessage':
      case 'deletemessages': {
        const ids = method === 'deletemessage' ? [p.message_id] : Array.isArray(p.message_ids) ? p.message_ids : []
        const messageIds = ids.map(Number).filter(Number.isSafeInteger)
        if (Number.isSafeInteger(chatId) && messageIds.length > 0)
          this.publish({type: 'delete', chat_id: chatId, message_ids: messageIds})
        return
      }
      case 'setmessagereaction':
      case 'stoppoll':
        if (Number.isSafeInteger(chatId) && p.message_id !== undefined) this.#message(chatId, Number(p.message_id))
        return
    }
    if (PROFILE_METHODS.has(method)) {
      this.publish({type: 'profile'})
      return
    }
    if (EPHEMERAL_EDITS.has(method)) {
      this.#ephemeralChanged(method, p)
      return
    }
    for (const result of Array.isArray(call.result) ? call.result : [call.result]) {
      const message = chatMessageOf(result)
      if (!message) continue
      if (message.message_id === 0 && typeof message.ephemeral_message_id === 'number') {
        // an ephemeral message (Bot API 10.2: message_id 0): its receiver's alone, out of the chat's history
        const receiver = numericId(message.receiver_user)
        if (receiver !== undefined)
          this.publish({
            type: 'ephemeral',
            chat_id: message.chat.id,
            receiver_user_id: receiver,
            ephemeral_message_id: message.ephemeral_message_id,
            view: {message, reactions: []},
          })
        continue
      }
      this.#message(message.chat.id, message.message_id, message)
    }
  }

  /** editEphemeralMessage… / deleteEphemeralMessage: the message as its receiver sees it now (the emulator's), or gone. */
  #ephemeralChanged(method: string, p: RecordedCall['params']): void {
    const chatId = Number(p.chat_id)
    const receiver = Number(p.receiver_user_id)
    const id = Number(p.ephemeral_message_id)
    if (!Number.isSafeInteger(receiver) || !Number.isSafeInteger(id)) return
    if (method === 'deleteephemeralmessage') {
      if (Number.isSafeInteger(chatId))
        this.publish({type: 'ephemeral', chat_id: chatId, receiver_user_id: receiver, ephemeral_message_id: id})
      return
    }
    if (this.#o.ephemeralView) {
      const view = Number.isSafeInteger(chatId) ? this.#o.ephemeralView(chatId, receiver, id) : undefined
      if (view)
        this.publish({type: 'ephemeral', chat_id: chatId, receiver_user_id: receiver, ephemeral_message_id: id, view})
      return
    }
    const message = this.#o.emulator
      ?.ephemeralMessages(this.#o.token)
      .find(
        (m) =>
          m.ephemeral_message_id === id &&
          numericId(m.receiver_user) === receiver &&
          (!Number.isSafeInteger(chatId) || numericId(m.chat) === chatId),
      )
    const chat = numericId(message?.chat)
    if (!message || chat === undefined) return
    this.publish({
      type: 'ephemeral',
      chat_id: chat,
      receiver_user_id: receiver,
      ephemeral_message_id: id,
      view: {message, reactions: []},
    })
  }

  /** A send with a reply keyboard (or its removal) changes what the chat's keyboard area shows. */
  #noteKeyboard(call: Pick<RecordedCall, 'params' | 'result'>): void {
    const markup = replyMarkupOf(call.params.reply_markup)
    if (!markup || (!markup.keyboard && !markup.remove_keyboard)) return
    const result: unknown = Array.isArray(call.result) ? call.result[0] : call.result
    const chatId = numericId(fieldOf(result, 'chat'))
    if (chatId === undefined) return
    if (markup.keyboard) {
      this.#keyboards.set(chatId, markup)
      if (this.#keyboards.size > 10_000) this.#keyboards.delete(this.#keyboards.keys().next().value!)
    } else this.#keyboards.delete(chatId)
    this.publish({type: 'keyboard', chat_id: chatId, ...(markup.keyboard ? {markup} : {})})
  }

  #fromUpdate(update: Update): void {
    if (this.#clients.size === 0) return
    for (const type of MESSAGE_UPDATES) {
      const message = chatMessageOf(update[type])
      if (message) this.#message(message.chat.id, message.message_id, message)
    }
    const reaction = chatMessageOf(update.message_reaction ?? update.message_reaction_count)
    if (reaction) this.#message(reaction.chat.id, reaction.message_id)
    const pollId = fieldOf(update.poll, 'id') ?? fieldOf(update.poll_answer, 'poll_id')
    if (pollId !== undefined) {
      const where = this.#o.emulator?.pollMessage(this.#o.token, String(pollId))
      if (where) this.#message(where.chatId, where.messageId)
    }
  }
}
