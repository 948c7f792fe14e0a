/**
 * The message methods: send.ts (send*), edit.ts (edit*, deleteMessage), polls.ts (sendPoll, stopPoll), callbacks.ts
 * (answerCallbackQuery); this module keeps forward/copy and gives the method table its MESSAGE_METHODS.
 */
import type {Handler} from './core.js'
import type {BotState} from '../state/bot.js'
import type {Params} from '../http/params.js'
import {badRequest} from '../errors.js'
import {chatOf, checkSuggestedPost} from './message-params.js'
import {type Message, mustBeChat} from '../telegram.js'
import {sendChatAction, sendMessage, sendOther} from './send.js'
import {
  deleteMessage,
  editMessageCaption,
  editMessageLiveLocation,
  editMessageMedia,
  editMessageReplyMarkup,
  editMessageText,
  stopMessageLiveLocation,
} from './edit.js'
import {answerCallbackQuery} from './callbacks.js'
import {toInteger} from '../integer.js'
import {required} from './args.js'

/** forwardMessage: a copy of the original in the target chat, with forward_origin. */
export const forwardMessage: Handler = (bot, params, _core, ctx) => ({result: forward(bot, params, ctx.method)})

/** The copy of the original message in the target chat, with forward_origin, stored. */
function forward(bot: BotState, params: Params, method: string): Message {
  // Client.cpp process_forward_message_query / process_copy_message_query read from_chat_id before the chat
  const fromChatId = required(params, 'from_chat_id')
  checkSuggestedPost(params) // do_send_message, before the chat
  const chat = mustBeChat(chatOf(bot, params))
  const from = bot.findChat(fromChatId)
  if (!from) throw badRequest('chat not found')
  const original = bot.message(from.id, toInteger(params.get('message_id') ?? '', 32))
  if (!original)
    throw badRequest(method === 'copymessage' ? 'message to copy not found' : 'message to forward not found')
  const {
    message_id: _id,
    from: _from,
    chat: _chat,
    date,
    reply_markup: _markup,
    edit_date: _edit,
    ...content
  } = original
  const sender = original.from
  const origin = sender ? {type: 'user', sender_user: sender, date} : {type: 'chat', sender_chat: from, date}
  const message: Message = {
    message_id: bot.nextMessageId(chat.id),
    from: bot.from,
    chat,
    date: Math.floor(Date.now() / 1000),
    forward_origin: origin,
    ...content,
  }
  bot.storeMessage(message)
  return message
}

/** copyMessage: the copy is sent; the answer is only its MessageId. */
export const copyMessage: Handler = (bot, params, _core, ctx) => {
  const message = forward(bot, params, ctx.method)
  delete message.forward_origin
  bot.storeMessage(message)
  return {result: {message_id: message.message_id}}
}

export const MESSAGE_METHODS: Record<string, Handler> = {
  sendmessage: sendMessage,
  sendlocation: sendOther,
  senddice: sendOther,
  sendcontact: sendOther,
  sendchataction: sendChatAction,
  editmessagetext: editMessageText,
  editmessagereplymarkup: editMessageReplyMarkup,
  editmessagecaption: editMessageCaption,
  editmessagemedia: editMessageMedia,
  editmessagelivelocation: editMessageLiveLocation,
  stopmessagelivelocation: stopMessageLiveLocation,
  deletemessage: deleteMessage,
  answercallbackquery: answerCallbackQuery,
  forwardmessage: forwardMessage,
  copymessage: copyMessage,
}
