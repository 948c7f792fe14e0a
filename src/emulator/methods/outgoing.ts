/**
 * Methods a bot uses to act. The message methods live in send.ts (send*), edit.ts (edit*, deleteMessage, stopPoll)
 * and callbacks.ts (answerCallbackQuery); this module keeps the small ones (commands, getChat, forward/copy,
 * getChatMember, getFile) and re-exports the rest for the method table.
 */
import {randomBytes} from 'node:crypto'
import type {Answer, Handler} from './core.js'
import {badRequest} from '../errors.js'
import {chatOf, parseJson} from './message-params.js'
import type {TgObject} from '../types.js'

export {sendChatAction, sendDocument, sendMessage, sendOther, sendPhoto} from './send.js'
export {
  deleteMessage,
  editMessageCaption,
  editMessageReplyMarkup,
  editMessageText,
  editOther,
  stopPoll,
} from './edit.js'
export {answerCallbackQuery} from './callbacks.js'

export const setMyCommands: Handler = (bot, params) => {
  const commands = parseJson(params.get('commands'), 'commands')
  if (!Array.isArray(commands)) throw badRequest('parameter "commands" is required')
  for (const c of commands as Array<{command?: unknown; description?: unknown}>) {
    if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw badRequest('BOT_COMMAND_INVALID')
    if (typeof c.description !== 'string' || c.description.trim() === '')
      throw badRequest('command description is empty')
  }
  bot.commands = commands
  return {result: true}
}

export const getMyCommands: Handler = (bot) => ({result: bot.commands})
export const deleteMyCommands: Handler = (bot) => {
  bot.commands = []
  return {result: true}
}

export const getChat: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  return {
    result: {
      ...chat,
      accent_color_id: 0,
      max_reaction_count: 11,
      accepted_gift_types: {
        unlimited_gifts: false,
        limited_gifts: false,
        unique_gifts: false,
        premium_subscription: false,
      },
    },
  }
}

/** answer*, set*, delete* methods the emulator does not model: accepted with `true`. */
export const acceptTrue: Handler = () => ({result: true})

/** forwardMessage: a copy of the original in the target chat, with forward_origin. */
export const forwardMessage: Handler = (bot, params, _core, ctx) => {
  const chat = chatOf(bot, params)
  const from = bot.findChat(params.get('from_chat_id') ?? '')
  if (!from) throw badRequest('chat not found')
  const original = bot.message(from.id as number, Number(params.get('message_id')))
  if (!original)
    throw badRequest(ctx.method === 'copymessage' ? 'message to copy not found' : 'message to forward not found')
  const {
    message_id: _id,
    from: _from,
    chat: _chat,
    date,
    reply_markup: _markup,
    edit_date: _edit,
    ...content
  } = original
  const sender = original.from as TgObject | undefined
  const origin = sender ? {type: 'user', sender_user: sender, date} : {type: 'chat', sender_chat: from, date}
  const message: TgObject = {
    message_id: bot.nextMessageId(chat.id as number),
    from: bot.from,
    chat,
    date: Math.floor(Date.now() / 1000),
    forward_origin: origin,
    ...content,
  }
  bot.storeMessage(message)
  return {result: message}
}

/** copyMessage: the copy is sent; the answer is only its MessageId. */
export const copyMessage: Handler = (bot, params, core, ctx) => {
  const copied = forwardMessage(bot, params, core, ctx) as Answer
  const message = copied.result as TgObject
  delete message.forward_origin
  bot.storeMessage(message)
  return {result: {message_id: message.message_id}}
}

export const getChatMember: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const userId = Number(params.get('user_id'))
  if (!Number.isInteger(userId) || userId <= 0) throw badRequest('invalid user_id specified')
  if (userId === bot.id) return {result: {user: bot.from, status: chat.type === 'private' ? 'member' : 'administrator'}}
  const user = bot.findChat(String(userId))
  if (!user) throw badRequest('user not found')
  return {
    result: {
      user: {
        id: userId,
        is_bot: false,
        first_name: user.first_name ?? 'User',
        ...(user.username ? {username: user.username} : {}),
      },
      status: chat.type === 'private' ? 'member' : 'member',
    },
  }
}

export const getFile: Handler = (_bot, params) => {
  const id = params.get('file_id') ?? ''
  if (id === '') throw badRequest('file_id not specified')
  return {
    result: {
      file_id: id,
      file_unique_id: randomBytes(8).toString('base64url'),
      file_size: 1024,
      file_path: `documents/file_${id.slice(0, 8)}`,
    },
  }
}
