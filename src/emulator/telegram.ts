/**
 * The Telegram objects the emulator keeps and builds (users, chats, messages, callback queries), typed from the Bot
 * API's types (@grammyjs/types, types only). Each is a type literal, not an interface, so it still fits the code that
 * reads objects as `TgObject`.
 *
 * A message or a chat the emulator stores may come from an update a test injected, and carries the content it passes
 * through as it was made (media, entities, markup, service fields, Bot API 10.x fields the package may not have yet):
 * those are typed for the fields the emulator reads and open for the rest.
 */
import type * as Tg from '@grammyjs/types'

/** The fields of T as a type literal (an interface has no index signature, so it would not fit `TgObject`). */
type Fields<T> = {[K in keyof T]: T[K]}

/** Fields kept as given: what the emulator passes through without reading it. */
type Open = {[field: string]: unknown}

/** A user as Telegram sends it in `from` (core.telegram.org/bots/api#user). */
export type User = Fields<Tg.User>

/** The bot as getMe answers (core.telegram.org/bots/api#getme), with the Bot API 10.x fields the package lacks. */
export type BotUser = Fields<Tg.UserFromGetMe> & {
  active_usernames: string[]
  has_topic_sidebar: boolean
  needs_inline_query_location: boolean
  inline_query_placeholder?: string
}

/** The bot as the sender of its own messages. */
export type BotSender = Fields<Pick<Tg.User, 'id' | 'is_bot' | 'first_name' | 'username'>>

/**
 * A chat the bot knows (core.telegram.org/bots/api#chat). The chats the emulator makes are whole; a chat read from
 * an injected update may be as little as `{id}`, so only the id is sure.
 */
export type Chat = {
  id: number
  type?: string
  title?: string
  username?: string
  first_name?: string
  last_name?: string
  is_forum?: boolean
} & Open

/** A chat's fields the emulator reads, each checked when present: a value is a Chat when its id is a number. */
export function isChat(value: unknown): value is Chat {
  if (!isObject(value) || typeof value.id !== 'number') return false
  return (
    fieldsOfType(value, ['type', 'title', 'username', 'first_name', 'last_name'], 'string') &&
    fieldsOfType(value, ['is_forum'], 'boolean')
  )
}

/** Whether each of `names` is absent from `o` or of the type `type`. */
function fieldsOfType(
  o: Record<string, unknown>,
  names: readonly string[],
  type: 'string' | 'number' | 'boolean',
): boolean {
  for (const name of names) if (o[name] !== undefined && typeof o[name] !== type) return false
  return true
}

/** A user: a number id, is_bot a boolean, a string first_name (the other fields checked when present). */
export function isUser(value: unknown): value is User {
  return (
    isObject(value) &&
    typeof value.id === 'number' &&
    typeof value.is_bot === 'boolean' &&
    typeof value.first_name === 'string' &&
    fieldsOfType(value, ['last_name', 'username', 'language_code'], 'string') &&
    (value.is_premium === undefined || value.is_premium === true) &&
    (value.added_to_attachment_menu === undefined || value.added_to_attachment_menu === true)
  )
}

/** A message (core.telegram.org/bots/api#message): the fields the emulator reads typed, its content open. */
export type Message = Fields<
  Pick<
    Tg.Message,
    | 'message_id'
    | 'date'
    | 'message_thread_id'
    | 'is_topic_message'
    | 'edit_date'
    | 'text'
    | 'caption'
    | 'business_connection_id'
    | 'guest_query_id'
  >
> & {
  chat: Chat
  from?: User
  sender_chat?: Chat
  reply_to_message?: Message
} & Open

/**
 * A message: number message_id and date, a chat; the other fields the type names checked when present (a message an
 * update was injected with may carry anything).
 */
export function isMessage(value: unknown): value is Message {
  return (
    isObject(value) &&
    typeof value.message_id === 'number' &&
    typeof value.date === 'number' &&
    isChat(value.chat) &&
    fieldsOfType(value, ['message_thread_id', 'edit_date'], 'number') &&
    fieldsOfType(value, ['text', 'caption', 'business_connection_id', 'guest_query_id'], 'string') &&
    fieldsOfType(value, ['is_topic_message'], 'boolean') &&
    (value.from === undefined || isUser(value.from)) &&
    (value.sender_chat === undefined || isChat(value.sender_chat)) &&
    (value.reply_to_message === undefined || isMessage(value.reply_to_message))
  )
}

/** A callback query (core.telegram.org/bots/api#callbackquery) on one of the emulator's messages. */
export type CallbackQuery = Fields<Omit<Tg.CallbackQuery, 'message'>> & {message?: Message}

/** A chat member as getChatMember answers (core.telegram.org/bots/api#chatmember): its status and user typed. */
export type ChatMember = {
  status: Tg.ChatMember['status']
  user: User
  until_date?: number
  is_member?: boolean
  tag?: string
  custom_title?: string
} & Open

/**
 * A value that must be a chat (one the bot knows, handed over by code still typed loosely); an internal error if it
 * is not.
 */
export function mustBeChat(value: unknown): Chat {
  if (!isChat(value)) throw new Error('internal: not a chat')
  return value
}

/**
 * A successful payment (core.telegram.org/bots/api#successfulpayment); its order_info is what the user gave, kept as
 * given.
 */
export type SuccessfulPayment = Fields<Omit<Tg.SuccessfulPayment, 'order_info'>> & {
  order_info?: Record<string, unknown>
}

/**
 * A Star transaction (core.telegram.org/bots/api#startransaction): incoming ones name their `source`, outgoing ones
 * their `receiver`, each kept as built.
 */
export type StarTransaction = Fields<Omit<Tg.StarTransaction, 'source' | 'receiver'>> & {
  source?: Record<string, unknown>
  receiver?: Record<string, unknown>
}

/** A shipping address (core.telegram.org/bots/api#shippingaddress). */
export type ShippingAddress = Fields<Tg.ShippingAddress>

/** An invite link (core.telegram.org/bots/api#chatinvitelink). */
export type ChatInviteLink = Fields<Tg.ChatInviteLink>

/** An object (not null, not an array) read from JSON, to look into field by field. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
