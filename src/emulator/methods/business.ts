/**
 * Business connections from the bot's side (Client.cpp process_get_business_connection_query,
 * process_delete_business_messages_query): getBusinessConnection, deleteBusinessMessages, readBusinessMessage, and
 * every send… and edit… method called with `business_connection_id`: it runs in the business chat (the customer's
 * private chat with the business account), and its Message has `business_connection_id` first, the account as `from`
 * and the bot as `sender_business_bot` (BA `JsonMessage::store` 4102-4110).
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {integerSafe, jsonArg} from './args.js'
import {BotState} from '../state/bot.js'
import {type BusinessConnection, businessConnectionJson} from '../state/business.js'
import type {Params} from '../http/params.js'
import {type Message, isMessage} from '../telegram.js'
import {toInteger} from '../integer.js'

export const getBusinessConnection: Handler = (bot, params) => ({
  result: businessConnectionJson(bot.business.require(params.get('business_connection_id') ?? '')),
})

/** The message_ids parameter (BA `get_message_ids`), with its texts. */
function messageIds(params: Params, max: number): number[] {
  const raw = params.get('message_ids') ?? ''
  if (raw === '') throw badRequest('message identifiers are not specified')
  const value = jsonArg(raw, "can't parse message_ids JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of message identifiers')
  if (value.length > max) throw badRequest('too many message identifiers specified')
  return value.map((id) => {
    if (typeof id !== 'number' && typeof id !== 'string') throw badRequest('message identifier must be a Number')
    const n = Number(id)
    if (!/^-?\d+$/.test(String(id)) || n > 2 ** 31 - 1 || n < -(2 ** 31))
      throw badRequest("can't parse message identifier as a Number")
    if (n <= 0) throw badRequest('invalid message identifier specified')
    return n
  })
}

/** deleteBusinessMessages: the messages (of one chat of the account) are deleted. */
export const deleteBusinessMessages: Handler = (bot, params) => {
  const ids = messageIds(params, 100)
  const connection = bot.business.require(params.get('business_connection_id') ?? '')
  for (const chatId of bot.business.chatIds(connection.id)) bot.business.delete(connection.id, chatId, ids)
  return {result: true}
}

/**
 * readBusinessMessage (BA Client.cpp process_read_business_message_query): message_id read as get_message_id does,
 * then check_business_connection_chat_id: the chat identifier, then the connection.
 */
export const readBusinessMessage: Handler = (bot, params) => {
  const messageId = Math.max(0, toInteger(params.get('message_id') ?? '', 32))
  const chatId = businessChatId(params)
  const connection = bot.business.require(params.get('business_connection_id') ?? '')
  if (!bot.business.message(connection.id, chatId, messageId)) throw badRequest('message not found')
  return {result: true}
}

/** BA `get_business_connection_chat_id`: the chat_id of a business chat, as td::to_integer_safe<int64> reads it. */
function businessChatId(params: Params): number {
  const raw = params.get('chat_id') ?? ''
  if (raw === '') throw badRequest('chat identifier is empty')
  try {
    return integerSafe(raw)
  } catch {
    throw badRequest('chat identifier must be a valid Integer')
  }
}

/** The methods that take business_connection_id to act in a business chat (send*, edit*, stopPoll). */
const IN_BUSINESS_CHAT = /^(send|edit|stoppoll|stopmessagelivelocation)/

/**
 * The handler that runs a call in a business chat when it names `business_connection_id`, else `inner` itself.
 * The inner handler runs on a scratch copy of the chat (its messages and counter), so replies, edits and the
 * server's checks work as in any chat; the result is then dressed as the business account's message and kept in
 * the business store.
 */
export function asBusiness(method: string, params: Params, inner: Handler | undefined): Handler | undefined {
  if (!inner || !IN_BUSINESS_CHAT.test(method) || (params.get('business_connection_id') ?? '') === '') return inner
  return (bot, p, core, ctx) => {
    const connection = bot.business.require(p.get('business_connection_id') ?? '')
    const chatId = businessChatId(p)
    if (!connection.isEnabled || !connection.rights.has('can_reply')) throw badRequest('BUSINESS_PEER_INVALID')
    const history = bot.business.chat(connection.id, chatId)
    if (!history.some((m) => m.from?.id === chatId)) throw badRequest('BUSINESS_PEER_USAGE_MISSING')
    const scratch = scratchChat(bot, connection, chatId, history)
    const answer = inner(scratch, p, core, ctx)
    return Promise.resolve(answer).then((a) => ({...a, result: keep(bot, connection, chatId, scratch, a.result)}))
  }
}

/** A throwaway bot state holding one business chat: the chat, its messages (the account's as the bot's own). */
function scratchChat(bot: BotState, connection: BusinessConnection, chatId: number, history: Message[]): BotState {
  const scratch = new BotState(
    bot.token,
    {
      id: bot.id,
      firstName: bot.user.first_name,
      username: bot.user.username,
      canJoinGroups: false,
      canReadAllGroupMessages: false,
      supportsInlineQueries: false,
    },
    1,
  )
  scratch.rememberChat(history[0]?.chat ?? {id: chatId, type: 'private'})
  for (const message of history) scratch.messages.put(message, message.from?.id === connection.user.id)
  scratch.noteMessageId(chatId, bot.business.lastMessageId(connection.id, chatId))
  return scratch
}

/** The business account's message: `business_connection_id` and `sender_business_bot` first, the account as `from`. */
function keep(
  bot: BotState,
  connection: BusinessConnection,
  chatId: number,
  scratch: BotState,
  result: unknown,
): unknown {
  const dress = (m: unknown): unknown => {
    if (!isMessage(m)) return m
    const {business_connection_id: _c, sender_business_bot: _s, message_id, from: _f, ...rest} = m
    const message: Message = {
      business_connection_id: connection.id,
      sender_business_bot: bot.from,
      message_id,
      from: connection.user,
      ...rest,
    }
    bot.business.put(connection.id, message)
    return message
  }
  bot.business.noteMessageId(connection.id, chatId, scratch.lastMessageId.get(String(chatId)) ?? 0)
  return Array.isArray(result) ? result.map(dress) : dress(result)
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const BUSINESS_METHODS: Record<string, Handler> = {
  getbusinessconnection: getBusinessConnection,
  deletebusinessmessages: deleteBusinessMessages,
  readbusinessmessage: readBusinessMessage,
}
