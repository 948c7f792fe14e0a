/**
 * The chats of an online `bot dev` session (against Telegram) as their users saw them, for the chat page
 * (docs/chat.md, "Online"): drawn only from what the session recorded.
 *
 * - The updates the session delivered (the relay's webhook POSTs, the bridge, the bot's own getUpdates): a user's
 *   message, its edit, a channel post, a reaction, a poll's new counts; the message a button was pressed under
 *   (callback_query.message) when the session had not seen it yet.
 * - The bot's Bot API calls through the api proxy, with Telegram's result: each send and edit returns the Message as
 *   Telegram holds it (what the user sees), stopPoll the Poll, deleteMessage(s) takes messages away.
 *
 * An update `bot trigger` made up (or a replay) reached the bot but no user sent it: it is kept `synthetic`, between
 * the real messages it came between. Telegram never gave it a message id (bot trigger borrows the chat's next one,
 * which Telegram then gives the bot's answer), so its `message_id` here is the last real one plus a fraction.
 *
 * Bounded: the newest MAX_CHATS chats, the newest MAX_MESSAGES messages of each, MAX_TOTAL in all (past it the
 * oldest message of the chat met first goes).
 */
import type {MessageView} from '../emulator/index.js'
import type {UpdateEntry} from '../inspector/types.js'
import {SessionEphemeral, isEphemeralMessage} from './session-ephemeral.js'
import {type JsonObject as Json, isJsonObject} from '../lib/json-object.js'

export const MAX_CHATS = 1000
export const MAX_MESSAGES = 5000
export const MAX_TOTAL = 20_000

/** A message as the page draws it; `synthetic`: made up by `bot trigger` (or a replay), not sent by a user. */
export interface SessionChatView extends MessageView {
  synthetic?: true
}

interface ChatRecord {
  chat: WithId
  /** page key (message_id, or a fractional one for a synthetic message) → view */
  messages: Map<number, SessionChatView>
  /** The highest real message id seen in the chat. */
  highest: number
  /** Synthetic messages since it. */
  extra: number
}

/** A JSON object as Telegram sent it (an update's, or a call's parameters and result): each field checked where read. */
/** A Chat or a User: a JSON object with a numeric id. */
type WithId = Json & {id: number}

const hasId = (v: unknown): v is WithId => isJsonObject(v) && typeof v.id === 'number'

function isMessage(v: unknown): v is Json & {message_id: number; chat: WithId} {
  return isJsonObject(v) && typeof v.message_id === 'number' && typeof v.date === 'number' && hasId(v.chat)
}

const numberOf = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : Number.NaN
  return Number.isSafeInteger(n) ? n : undefined
}

export class SessionChats {
  readonly #maxTotal: number
  readonly #chats = new Map<number, ChatRecord>()
  /** Messages kept in all chats. */
  #total = 0
  readonly #users = new Map<number, WithId>()
  /** poll id → where its message is. */
  readonly #polls = new Map<string, {chatId: number; key: number}>()
  /** `chat:message` → user id → that user's reactions (message_reaction updates). */
  readonly #reactions = new Map<string, Map<number, Json[]>>()
  #lastChat: number | undefined
  /** The ephemeral messages (Bot API 10.2) users see, each only by its receiver. */
  readonly ephemeral = new SessionEphemeral()
  #lastUser: number | undefined
  /** What the bot set for everyone (setMyCommands / setChatMenuButton / setMyDescription / setMyName, default scope). */
  commands: Json[] = []
  menuButton: Json = {type: 'commands'}
  description = ''
  shortDescription = ''
  name: string | undefined

  constructor(o: {maxTotal?: number} = {}) {
    this.#maxTotal = o.maxTotal ?? MAX_TOTAL
  }

  /** Messages kept in all chats. */
  get size(): number {
    return this.#total
  }

  /** The chats seen, in the order met. */
  chatList(): WithId[] {
    return [...this.#chats.values()].map((c) => c.chat)
  }

  /** The users seen writing in a private chat with the bot (each is that chat), in the order met. */
  users(): WithId[] {
    return [...this.#users.values()]
  }

  /** The newest real chat and its user (where a page opens). */
  last(): {chatId?: number; user?: WithId} {
    return {
      ...(this.#lastChat !== undefined ? {chatId: this.#lastChat} : {}),
      ...(this.#lastUser !== undefined && this.#users.has(this.#lastUser)
        ? {user: this.#users.get(this.#lastUser)}
        : {}),
    }
  }

  /** A chat's messages, oldest first: the newest `limit` of them, or those before `before`. */
  history(chatId: number, o: {limit?: number; before?: number} = {}): SessionChatView[] {
    const record = this.#chats.get(chatId)
    if (!record) return []
    let keys = [...record.messages.keys()].sort((a, b) => a - b)
    if (o.before !== undefined) keys = keys.filter((k) => k < o.before!)
    const limit = Math.max(1, Math.min(o.limit ?? 200, MAX_MESSAGES))
    return keys.slice(-limit).map((k) => this.#withReactions(chatId, record.messages.get(k)!))
  }

  view(chatId: number, key: number): SessionChatView | undefined {
    const view = this.#chats.get(chatId)?.messages.get(key)
    return view && this.#withReactions(chatId, view)
  }

  /** An update the session recorded: the messages it changed (as views to redraw). */
  fromEntry(entry: UpdateEntry): SessionChatView[] {
    if (entry.truncated || !isJsonObject(entry.update)) return []
    const u = entry.update
    const synthetic = entry.source === 'trigger' || entry.source === 'replay'
    const out: SessionChatView[] = []
    const add = (view: SessionChatView | undefined) => view && out.push(view)
    for (const type of ['message', 'channel_post', 'edited_message', 'edited_channel_post']) {
      const message = u[type]
      if (!isMessage(message)) continue
      if (!synthetic) this.#noteSender(message)
      add(this.#put(message, synthetic))
    }
    const query = u.callback_query
    if (isJsonObject(query) && isEphemeralMessage(query.message)) this.ephemeral.seen(query.message)
    else if (
      isJsonObject(query) &&
      isMessage(query.message) &&
      !this.#chats.get(query.message.chat.id)?.messages.has(query.message.message_id)
    )
      add(this.#put(query.message, false))
    if (!synthetic) {
      const reaction = u.message_reaction
      if (isJsonObject(reaction)) add(this.#reaction(reaction))
      const count = u.message_reaction_count
      if (isJsonObject(count)) add(this.#reactionCount(count))
      const poll = u.poll
      if (isJsonObject(poll) && poll.id !== undefined) add(this.#poll(String(poll.id), poll))
    }
    return out
  }

  /** A Bot API call of the bot that Telegram answered (its parameters and result as sent and received). */
  fromCall(method: string, params: Json, result: unknown): void {
    // an ephemeral message (Bot API 10.2): its receiver's alone, never in the chat's history
    if (this.ephemeral.fromCall(method, params, result) || isEphemeralMessage(result)) return
    const m = method.toLowerCase()
    const chatId = numberOf(params.chat_id)
    switch (m) {
      case 'deletemessage':
      case 'deletemessages': {
        if (chatId === undefined || result !== true) return
        const record = this.#chats.get(chatId)
        const ids =
          m === 'deletemessage' ? [params.message_id] : Array.isArray(params.message_ids) ? params.message_ids : []
        for (const id of ids) {
          const n = numberOf(id)
          if (n !== undefined && record?.messages.delete(n)) this.#total -= 1
        }
        return
      }
      case 'stoppoll':
        if (isJsonObject(result) && result.id !== undefined) this.#poll(String(result.id), result)
        return
      case 'setmycommands':
      case 'deletemycommands':
        if (
          result !== true ||
          (params.scope && (!isJsonObject(params.scope) || params.scope.type !== 'default')) ||
          params.language_code
        )
          return
        this.commands =
          m === 'setmycommands' && Array.isArray(params.commands) ? params.commands.filter(isJsonObject) : []
        return
      case 'setchatmenubutton':
        if (result === true && params.chat_id === undefined)
          this.menuButton = isJsonObject(params.menu_button) ? params.menu_button : {type: 'default'}
        return
      case 'setmydescription':
      case 'setmyshortdescription':
      case 'setmyname':
        if (result !== true || params.language_code) return
        if (m === 'setmydescription') this.description = String(params.description ?? '')
        else if (m === 'setmyshortdescription') this.shortDescription = String(params.short_description ?? '')
        else this.name = typeof params.name === 'string' && params.name !== '' ? params.name : undefined
        return
    }
    for (const message of Array.isArray(result) ? result : [result]) if (isMessage(message)) this.#put(message, false)
  }

  #noteSender(message: Json & {chat: WithId}): void {
    const from = message.from
    if (!hasId(from) || from.is_bot === true) return
    if (message.chat.type === 'private' && message.chat.id === from.id) {
      this.#users.delete(from.id)
      this.#users.set(from.id, from)
      if (this.#users.size > MAX_CHATS) this.#users.delete(this.#users.keys().next().value!)
    }
    this.#lastUser = from.id
    this.#lastChat = message.chat.id
  }

  #record(chat: WithId): ChatRecord {
    let record = this.#chats.get(chat.id)
    if (!record) {
      record = {chat, messages: new Map(), highest: 0, extra: 0}
      this.#chats.set(chat.id, record)
      if (this.#chats.size > MAX_CHATS) {
        const oldest = this.#chats.keys().next().value!
        this.#total -= this.#chats.get(oldest)!.messages.size
        this.#chats.delete(oldest)
      }
    } else record.chat = {...record.chat, ...chat}
    return record
  }

  #put(message: Json & {message_id: number; chat: WithId}, synthetic: boolean): SessionChatView {
    const record = this.#record(message.chat)
    let key = message.message_id
    if (synthetic) {
      record.extra += 1
      key = record.highest + record.extra / (record.extra + 1)
    } else if (key > record.highest) {
      record.highest = key
      record.extra = 0
    }
    const old = record.messages.get(key)
    const view: SessionChatView = {
      message: synthetic ? {...message, message_id: key} : message,
      reactions: old?.reactions ?? [],
      ...(synthetic ? {synthetic: true as const} : {}),
    }
    record.messages.set(key, view)
    if (!old) this.#total += 1
    if (record.messages.size > MAX_MESSAGES) this.#dropOldest(record)
    for (const other of this.#chats.values()) {
      if (this.#total <= this.#maxTotal) break
      while (other.messages.size > 0 && this.#total > this.#maxTotal) this.#dropOldest(other)
    }
    const poll = message.poll
    if (isJsonObject(poll) && poll.id !== undefined) {
      this.#polls.set(String(poll.id), {chatId: message.chat.id, key})
      if (this.#polls.size > MAX_MESSAGES) this.#polls.delete(this.#polls.keys().next().value!)
    }
    return this.#withReactions(message.chat.id, view)
  }

  #dropOldest(record: ChatRecord): void {
    let smallest = Number.POSITIVE_INFINITY
    for (const k of record.messages.keys()) if (k < smallest) smallest = k
    if (record.messages.delete(smallest)) this.#total -= 1
  }

  #poll(pollId: string, poll: Json): SessionChatView | undefined {
    const where = this.#polls.get(pollId)
    const record = where && this.#chats.get(where.chatId)
    const view = where && record?.messages.get(where.key)
    if (!where || !record || !view) return undefined
    const next = {...view, message: {...view.message, poll}}
    record.messages.set(where.key, next)
    return this.#withReactions(where.chatId, next)
  }

  #reaction(update: Json): SessionChatView | undefined {
    const chatId = isJsonObject(update.chat) ? numberOf(update.chat.id) : undefined
    const messageId = numberOf(update.message_id)
    const userId = isJsonObject(update.user)
      ? numberOf(update.user.id)
      : isJsonObject(update.actor_chat)
        ? numberOf(update.actor_chat.id)
        : undefined
    if (chatId === undefined || messageId === undefined || userId === undefined) return undefined
    const k = `${chatId}:${messageId}`
    let byUser = this.#reactions.get(k)
    if (!byUser) {
      byUser = new Map()
      this.#reactions.set(k, byUser)
      if (this.#reactions.size > MAX_MESSAGES) this.#reactions.delete(this.#reactions.keys().next().value!)
    }
    const given = Array.isArray(update.new_reaction) ? update.new_reaction.filter(isJsonObject) : []
    if (given.length === 0) byUser.delete(userId)
    else byUser.set(userId, given)
    return this.view(chatId, messageId)
  }

  #reactionCount(update: Json): SessionChatView | undefined {
    const chatId = isJsonObject(update.chat) ? numberOf(update.chat.id) : undefined
    const messageId = numberOf(update.message_id)
    const record = chatId !== undefined ? this.#chats.get(chatId) : undefined
    const view = messageId !== undefined ? record?.messages.get(messageId) : undefined
    if (!record || !view || messageId === undefined || chatId === undefined) return undefined
    this.#reactions.delete(`${chatId}:${messageId}`)
    record.messages.set(messageId, {
      ...view,
      reactions: Array.isArray(update.reactions) ? update.reactions.filter(isJsonObject) : [],
    })
    return this.view(chatId, messageId)
  }

  /** A view with the reactions users gave (message_reaction updates), counted as Telegram's clients show them. */
  #withReactions(chatId: number, view: SessionChatView): SessionChatView {
    const byUser = this.#reactions.get(`${chatId}:${view.message.message_id}`)
    if (!byUser || byUser.size === 0) return view
    const counts = new Map<string, {type: Json; total_count: number}>()
    for (const list of byUser.values())
      for (const type of list) {
        const id = JSON.stringify(type)
        const entry = counts.get(id) ?? {type, total_count: 0}
        entry.total_count += 1
        counts.set(id, entry)
      }
    return {...view, reactions: [...counts.values()]}
  }
}
