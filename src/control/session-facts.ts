import {type JsonObject as Json, isJsonObject} from '../lib/json-object.js'
/**
 * What a session has seen that `bot trigger` fills its updates with: the last real chat and user
 * (an update from Telegram or the emulator, not a trigger or a replay), the newest message of each
 * user in each chat, and the bot's own messages as its Bot API calls returned them (their inline
 * buttons, invoices and polls; edits and deletions applied). Fed by the session's recording (the
 * relay, the polled updates and the api proxy's calls) or, offline, rebuilt from the emulator's
 * record of the bot's calls. Bounded: 500 chats, 100 messages of the bot per chat.
 */

/** A chat and the user in it, as their last update showed them. */
export interface Party {
  chat: Json
  user: Json
}

/** A bot message as its send or edit returned it, with what a trigger looks for in it. */
export interface BotMessage {
  message: Json
  messageId: number
  /** callback_data of its inline buttons. */
  buttons: string[]
  invoice?: {payload?: string; currency?: string; total_amount?: number; title?: string; description?: string}
  poll?: {id: string; options: number}
}

/** A user's message as the session saw it. */
export interface UserMessage {
  message_id: number
  date: number
  text?: string
  from?: Json
  chat: Json
}

const MAX_CHATS = 500
const MAX_MESSAGES = 100
/** A bot message larger than this (as JSON) is kept as its identifying fields only. */
const MAX_MESSAGE_JSON = 8 * 1024

function id(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value
  return typeof n === 'number' && Number.isSafeInteger(n) && n !== 0 ? n : undefined
}

/** The content object of an update (its one field besides update_id). */
function content(update: unknown): {type?: string; body?: Json} {
  if (!isJsonObject(update)) return {}
  const type = Object.keys(update).find((k) => k !== 'update_id')
  const body = type === undefined ? undefined : update[type]
  return {type, ...(isJsonObject(body) ? {body} : {})}
}

/** callback_data of every inline button of a reply_markup. */
export function callbackData(markup: unknown): string[] {
  if (!isJsonObject(markup) || !Array.isArray(markup.inline_keyboard)) return []
  const out: string[] = []
  for (const row of markup.inline_keyboard)
    if (Array.isArray(row))
      for (const button of row)
        if (isJsonObject(button) && typeof button.callback_data === 'string') out.push(button.callback_data)
  return out
}

/**
 * A deep copy of JSON data (what JSON.parse makes: plain objects, arrays, strings, numbers, booleans,
 * null), as structuredClone makes it but several times faster (this runs for every update). Own
 * `__proto__` keys stay own properties. Anything else is copied by structuredClone.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i])
    return out as T
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value)
  const out: Json = {}
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const item = copyJson((value as Json)[key])
    if (key === '__proto__')
      Object.defineProperty(out, key, {value: item, enumerable: true, writable: true, configurable: true})
    else out[key] = item
  }
  return out as T
}

function bounded(message: Json): Json {
  try {
    if (JSON.stringify(message).length <= MAX_MESSAGE_JSON) return copyJson(message)
  } catch {
    // fall through to the short form
  }
  const {message_id, from, chat, date, text} = message
  return {
    message_id,
    ...(isJsonObject(from) ? {from} : {}),
    chat,
    date,
    ...(typeof text === 'string' ? {text: text.slice(0, 1000)} : {}),
  }
}

/** Map with insertion order refreshed on each write, and its oldest keys dropped past `max`. */
function touch<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  while (map.size > max) map.delete(map.keys().next().value as K)
}

const SENDS = /^(send|forward|edit|stopmessagelivelocation$)/i

export class SessionFacts {
  #party: Party | undefined
  #business: Json | undefined
  /** chat id → message id → the bot's message. */
  readonly #bot = new Map<number, Map<number, BotMessage>>()
  /** chat id → user id → the user's newest message. */
  readonly #users = new Map<number, Map<number, UserMessage>>()
  /** chat id → the highest message id seen in it. */
  readonly #highest = new Map<number, number>()

  /**
   * An update reached the bot; `real` when Telegram (or the emulator) sent it, not a trigger or replay.
   * Its parts are kept as they are, not copied (this runs for every update): the update must not change
   * afterwards, as a history entry's does not. What the facts hand out is a copy.
   */
  noteUpdate(update: unknown, real: boolean): void {
    const {type, body} = content(update)
    if (!type || !body) return
    if (type === 'business_connection' && typeof body.id === 'string') {
      this.#business = body.is_enabled === false ? undefined : {id: body.id}
      return
    }
    const message = isJsonObject(body.message) ? body.message : undefined
    const chat = isJsonObject(body.chat) ? body.chat : message && isJsonObject(message.chat) ? message.chat : undefined
    const user = isJsonObject(body.from) ? body.from : isJsonObject(body.user) ? body.user : undefined
    if (real && chat && user && id(chat.id) !== undefined && id(user.id) !== undefined && user.is_bot !== true)
      this.#party = {chat, user}
    if ((type === 'message' || type === 'edited_message') && chat && user) {
      const chatId = id(chat.id)
      const userId = id(user.id)
      const messageId = id(body.message_id)
      if (chatId === undefined || userId === undefined || messageId === undefined || messageId < 0) return
      this.#seenId(chatId, messageId)
      // What edited-message edits: the user's newest text message.
      if (typeof body.text !== 'string') return
      const users = this.#users.get(chatId) ?? new Map<number, UserMessage>()
      const known = users.get(userId)
      if (type === 'edited_message' && known && known.message_id !== messageId) return
      if (known && known.message_id > messageId) return
      touch(
        users,
        userId,
        {
          message_id: messageId,
          date: typeof body.date === 'number' ? body.date : Math.floor(Date.now() / 1000),
          ...(typeof body.text === 'string' ? {text: body.text.slice(0, 4096)} : {}),
          from: user,
          chat,
        },
        1000,
      )
      touch(this.#users, chatId, users, MAX_CHATS)
    }
  }

  /** A Bot API call of the bot and what it returned (scalars may be strings, as an emulator records them). */
  noteCall(method: string, params: Json, result: unknown, ok: boolean): void {
    if (!ok) return
    const m = method.toLowerCase()
    if (m === 'deletemessage' || m === 'deletemessages') {
      const chatId = id(params.chat_id)
      const ids = m === 'deletemessage' ? [params.message_id] : params.message_ids
      if (chatId === undefined || !Array.isArray(ids)) return
      for (const one of ids) {
        const messageId = id(one)
        if (messageId !== undefined) this.#bot.get(chatId)?.delete(messageId)
      }
      return
    }
    if (!SENDS.test(m)) return
    const messages = Array.isArray(result) ? result : [result]
    for (const message of messages) if (isJsonObject(message)) this.#noteBotMessage(m, params, message)
  }

  #noteBotMessage(method: string, params: Json, message: Json): void {
    const chatId = id(isJsonObject(message.chat) ? message.chat.id : undefined)
    const messageId = id(message.message_id)
    // A business chat's messages are the account's, not the bot's chat with the user.
    if (chatId === undefined || messageId === undefined || message.business_connection_id !== undefined) return
    this.#seenId(chatId, messageId)
    const chat = this.#bot.get(chatId) ?? new Map<number, BotMessage>()
    const previous = chat.get(messageId)
    const record: BotMessage = {message: bounded(message), messageId, buttons: callbackData(message.reply_markup)}
    const invoice = isJsonObject(message.invoice) ? message.invoice : undefined
    if (invoice || previous?.invoice)
      record.invoice = {
        ...previous?.invoice,
        ...(invoice
          ? {
              currency: invoice.currency as string | undefined,
              total_amount: invoice.total_amount as number | undefined,
              title: invoice.title as string | undefined,
              description: invoice.description as string | undefined,
            }
          : {}),
        ...(method === 'sendinvoice' && typeof params.payload === 'string' ? {payload: params.payload} : {}),
      }
    const poll = isJsonObject(message.poll) ? message.poll : undefined
    if (poll && typeof poll.id === 'string')
      record.poll = {id: poll.id, options: Array.isArray(poll.options) ? poll.options.length : 0}
    else if (previous?.poll) record.poll = previous.poll
    // An edit keeps the message's place (its id); a new message goes last.
    if (previous && method.startsWith('edit')) chat.set(messageId, record)
    else touch(chat, messageId, record, MAX_MESSAGES)
    touch(this.#bot, chatId, chat, MAX_CHATS)
  }

  #seenId(chatId: number, messageId: number): void {
    const highest = this.#highest.get(chatId) ?? 0
    if (messageId > highest) touch(this.#highest, chatId, messageId, MAX_CHATS)
  }

  /** The newest business connection the session saw (that was not a disconnection). */
  businessConnection(): Json | undefined {
    return this.#business
  }

  /** The chat and user of the newest real update that had both (a copy: the caller may change it). */
  lastParty(): Party | undefined {
    const party = this.#party
    return party && {chat: copyJson(party.chat), user: copyJson(party.user)}
  }

  /** A message id past every one seen in the chat (a new message's id), or undefined when none was seen. */
  nextMessageId(chatId: number): number | undefined {
    const highest = this.#highest.get(chatId)
    return highest === undefined ? undefined : highest + 1
  }

  /** The bot's messages in the chat, newest first. */
  botMessages(chatId: number): BotMessage[] {
    const chat = this.#bot.get(chatId)
    if (!chat) return []
    return [...chat.values()].sort((a, b) => b.messageId - a.messageId)
  }

  /** The bot's message `messageId` in the chat, when the session saw it. */
  botMessage(chatId: number, messageId: number): BotMessage | undefined {
    return this.#bot.get(chatId)?.get(messageId)
  }

  /** The newest bot message in the chat with an inline button of that callback_data. */
  button(chatId: number, data: string): BotMessage | undefined {
    return this.botMessages(chatId).find((m) => m.buttons.includes(data))
  }

  /** The newest invoice the bot sent in the chat. */
  invoice(chatId: number): BotMessage | undefined {
    return this.botMessages(chatId).find((m) => m.invoice)
  }

  /** The newest poll the bot sent in the chat. */
  poll(chatId: number): BotMessage | undefined {
    return this.botMessages(chatId).find((m) => m.poll)
  }

  /** The newest text message of the user in the chat (of anyone, without a user). */
  userMessage(chatId: number, userId?: number): UserMessage | undefined {
    const users = this.#users.get(chatId)
    if (!users) return undefined
    let newest: UserMessage | undefined
    if (userId !== undefined) newest = users.get(userId)
    else for (const m of users.values()) if (!newest || m.message_id > newest.message_id) newest = m
    return newest && copyJson(newest)
  }
}

/** The facts of the bot's side of a chat, rebuilt from an emulator's record of the bot's calls (oldest first). */
export function factsFromCalls(
  calls: Array<{method: string; params: Json; result?: unknown; error?: unknown}>,
): SessionFacts {
  const facts = new SessionFacts()
  for (const call of calls) facts.noteCall(call.method, call.params ?? {}, call.result, call.error === undefined)
  return facts
}
