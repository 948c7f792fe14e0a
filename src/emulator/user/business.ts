/**
 * Business accounts and their customers (core.telegram.org/bots/api#businessconnection): a business account connects
 * the bot (`business_connection`), changes or ends the connection; its customers (or the account itself) write, edit
 * and delete messages in their private chats, which the bot receives as `business_message`, `edited_business_message`
 * and `deleted_business_messages`. All are in the default allowed_updates (Client.cpp DEFAULT_ALLOWED_UPDATE_TYPES).
 */
import type {BotState} from '../state/bot.js'
import {BUSINESS_RIGHTS, type BusinessConnection, businessConnectionJson} from '../state/business.js'
import {userMessageEntities} from '../state/updates.js'
import type {TgObject} from '../types.js'
import type {Chat, Message} from '../telegram.js'
import {privateChat, userFor} from './users.js'

export interface ConnectOptions {
  /** The business account's user (default 2222). */
  userId?: number
  firstName?: string
  username?: string
  /** The rights the account gives the bot (default: can_reply and can_read_messages). */
  rights?: string[]
  /** Default true. */
  isEnabled?: boolean
}

function checkRights(rights: unknown): string[] {
  const isRight = (r: unknown): r is string => BUSINESS_RIGHTS.some((right) => right === r)
  if (!Array.isArray(rights) || !rights.every(isRight))
    throw new Error(`rights must be a list of BusinessBotRights names: ${BUSINESS_RIGHTS.join(', ')}`)
  return rights
}

/** A business account connects the bot: the connection and its `business_connection` update body. */
export function connect(bot: BotState, options: ConnectOptions): {connection: BusinessConnection; update: TgObject} {
  const user = userFor(bot, options.userId ?? 2222, options)
  const rights = options.rights === undefined ? ['can_reply', 'can_read_messages'] : checkRights(options.rights)
  const connection = bot.business.add(user, rights, options.isEnabled ?? true)
  // "user_chat_id: Identifier of a private chat with the user who created the business connection" (DOC)
  bot.rememberChat(privateChat(user))
  return {connection, update: {business_connection: businessConnectionJson(connection)}}
}

/** The connection changes (rights, enabled or not: `isEnabled: false` is a disconnection); its update body. */
export function editConnection(
  bot: BotState,
  id: string,
  change: {rights?: string[]; isEnabled?: boolean},
): {connection: BusinessConnection; update: TgObject} {
  const connection = bot.business.connections.get(id)
  if (!connection) throw new Error(`there is no business connection "${id}"`)
  if (change.rights !== undefined) connection.rights = new Set(checkRights(change.rights))
  if (change.isEnabled !== undefined) connection.isEnabled = change.isEnabled
  return {connection, update: {business_connection: businessConnectionJson(connection)}}
}

export interface BusinessMessageOptions {
  connectionId: string
  text: string
  /** The customer (default 3333): the chat is the business account's private chat with them. */
  customerId?: number
  firstName?: string
  username?: string
  /** The business account itself writes in that chat (default: the customer writes). */
  fromOwner?: boolean
}

function liveConnection(bot: BotState, id: string): BusinessConnection {
  const connection = bot.business.connections.get(id)
  if (!connection) throw new Error(`there is no business connection "${id}" (connect the bot first)`)
  if (!connection.isEnabled) throw new Error(`business connection "${id}" is disabled`)
  return connection
}

/** A message in a business chat: `business_message` `{business_connection_id, message_id, from, chat, date, text}`. */
export function businessMessage(bot: BotState, options: BusinessMessageOptions): {business_message: Message} {
  const connection = liveConnection(bot, options.connectionId)
  const customer = userFor(bot, options.customerId ?? 3333, options)
  const chat = privateChat(customer)
  const entities = userMessageEntities(options.text)
  const message: Message = {
    business_connection_id: connection.id,
    message_id: bot.business.nextMessageId(connection.id, customer.id),
    from: options.fromOwner ? connection.user : customer,
    chat,
    date: Math.floor(Date.now() / 1000),
    text: options.text,
    ...(entities.length > 0 ? {entities} : {}),
  }
  bot.business.put(connection.id, message)
  return {business_message: message}
}

/** A business chat's message is edited: `edited_business_message` with the new text and an edit_date. */
export function editBusinessMessage(
  bot: BotState,
  options: {connectionId: string; chatId: number; messageId: number; text: string},
): {edited_business_message: Message} {
  const connection = liveConnection(bot, options.connectionId)
  const old = bot.business.message(connection.id, options.chatId, options.messageId)
  if (!old) throw new Error(`there is no message ${options.messageId} in business chat ${options.chatId}`)
  const {entities: _e, text: _t, edit_date: _d, ...rest} = old
  const entities = userMessageEntities(options.text)
  const message: Message = {
    ...rest,
    edit_date: Math.floor(Date.now() / 1000),
    text: options.text,
    ...(entities.length > 0 ? {entities} : {}),
  }
  bot.business.put(connection.id, message)
  return {edited_business_message: message}
}

/** Messages of a business chat are deleted: `deleted_business_messages` `{business_connection_id, chat, message_ids}`. */
export function deleteBusinessMessages(
  bot: BotState,
  options: {connectionId: string; chatId: number; messageIds: number[]},
): {deleted_business_messages: {business_connection_id: string; chat: Chat; message_ids: number[]}} {
  const connection = liveConnection(bot, options.connectionId)
  if (options.messageIds.length === 0) throw new Error('message_ids must name at least one message')
  const messages = options.messageIds.map((id) => bot.business.message(connection.id, options.chatId, id))
  const missing = options.messageIds.filter((_, i) => !messages[i])
  if (missing.length > 0)
    throw new Error(`there is no message ${missing.join(', ')} in business chat ${options.chatId}`)
  const chat = messages[0]!.chat
  bot.business.delete(connection.id, options.chatId, options.messageIds)
  return {deleted_business_messages: {business_connection_id: connection.id, chat, message_ids: options.messageIds}}
}
