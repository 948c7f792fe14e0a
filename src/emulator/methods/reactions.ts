/**
 * Reactions from the bot's side (Client.cpp process_set_message_reaction_query): setMessageReaction with the server's
 * parsing and message check, then Telegram's rules (one reaction for a non-premium bot, an emoji of the allowed list, a
 * custom emoji only if it is already on the message); and Bot API 10.0's deleteMessageReaction /
 * deleteAllMessageReactions. A bot's own reaction never makes an update ("The update isn't received for reactions set
 * by bots", DOC Update).
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {chatOf} from './message-params.js'
import {REACTION_EMOJIS, readReactionTypes} from './reaction-types.js'
import {userIdParam} from './args.js'
import type {BotState} from '../state/bot.js'
import type {Params} from '../http/params.js'
import {toInteger} from '../integer.js'

/** The chat and message a call names (BA `check_message`): `<what> not found` for a missing or unknown message. */
function targetMessage(bot: BotState, params: Params, what: string): {chatId: number; messageId: number} {
  const chat = chatOf(bot, params)
  const messageId = toInteger(params.get('message_id') ?? '', 32)
  if (!(messageId > 0) || !bot.message(chat.id, messageId)) throw badRequest(`${what} not found`)
  return {chatId: chat.id, messageId}
}

export const setMessageReaction: Handler = (bot, params) => {
  const types = readReactionTypes(params.get('reaction'))
  const {chatId, messageId} = targetMessage(bot, params, 'message to react')
  if (types.length > 1) throw badRequest('REACTIONS_TOO_MANY')
  for (const type of types) {
    if (type.type === 'emoji' && !REACTION_EMOJIS.has(type.emoji)) throw badRequest('REACTION_INVALID')
    if (type.type === 'custom_emoji' && !bot.members.hasReaction(chatId, messageId, type))
      throw badRequest('REACTION_INVALID')
  }
  bot.members.react(chatId, messageId, bot.id, types)
  return {result: true}
}

/** deleteMessageReaction: a user's reactions on one message are removed (the bot must be an admin, DOC). */
export const deleteMessageReaction: Handler = (bot, params) => {
  const userId = (params.get('user_id') ?? '') !== '' ? userIdParam(params) : undefined
  const {chatId, messageId} = targetMessage(bot, params, 'message to delete reactions')
  if (userId !== undefined) bot.members.react(chatId, messageId, userId, [])
  return {result: true}
}

/** deleteAllMessageReactions: a user's recent reactions in the chat are removed. */
export const deleteAllMessageReactions: Handler = (bot, params) => {
  const userId = (params.get('user_id') ?? '') !== '' ? userIdParam(params) : undefined
  const chat = chatOf(bot, params)
  if (userId !== undefined)
    for (const messageId of bot.members.reactedBy(chat.id, userId)) bot.members.react(chat.id, messageId, userId, [])
  return {result: true}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const REACTION_METHODS: Record<string, Handler> = {
  setmessagereaction: setMessageReaction,
  deletemessagereaction: deleteMessageReaction,
  deleteallmessagereactions: deleteAllMessageReactions,
}
