/**
 * send* methods: the server's checks in its order (text, formatting, reply parameters, markup, chat, reply target,
 * keyboard contents, text limits), then a plausible Message, stored in the bot's message store.
 */
import type {BotState} from '../state/bot.js'
import type {Handler} from './core.js'
import {ApiError, badRequest} from '../errors.js'
import {
  chatOf,
  checkLinkPreviewOptions,
  checkSuggestedPost,
  formatted,
  markupOf,
  now,
  quoteOf,
  repliedMessage,
  replyTarget,
} from './message-params.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {type Chat, type Message, isMessage, mustBeChat} from '../telegram.js'
import {INT32_MAX, INT32_MIN, integerArg, required} from './args.js'
import {toDouble} from '../integer.js'

/** What every send checks before its content, in the server's order: reply target, markup, chat, replied message. */
export interface Prepared {
  chat: Chat
  replied?: Message
  /** Message.quote: the part of the replied message that reply_parameters.quote names. */
  quote?: TgObject
  keyboard?: TgObject
}

export function prepareSend(bot: BotState, params: Params, chat?: Chat): Prepared {
  const reply = replyTarget(params)
  checkSuggestedPost(params)
  const markup = markupOf(params)
  const target = chat ?? mustBeChat(chatOf(bot, params))
  const found = repliedMessage(bot, target, reply)
  const replied = isMessage(found) ? found : undefined
  const quote = quoteOf(reply, replied)
  const keyboard = markup()
  return {chat: target, ...(replied ? {replied} : {}), ...(quote ? {quote} : {}), ...(keyboard ? {keyboard} : {})}
}

/** The new message, stored: fields in the server's order (media_group_id after the reply, then the content). */
export function finishSend(bot: BotState, prepared: Prepared, body: TgObject, mediaGroupId?: string): Message {
  const message: Message = {
    message_id: bot.nextMessageId(prepared.chat.id),
    from: bot.from,
    chat: prepared.chat,
    date: now(),
    ...(prepared.replied ? {reply_to_message: prepared.replied} : {}),
    ...(prepared.quote ? {quote: prepared.quote} : {}),
    ...(mediaGroupId ? {media_group_id: mediaGroupId} : {}),
    ...body,
    ...(prepared.keyboard ? {reply_markup: prepared.keyboard} : {}),
  }
  bot.storeMessage(message)
  return message
}

/**
 * A new message from the bot in the chat of `chat_id`: `content()` runs after the chat and the reply target were
 * checked (td's checks come last).
 */
export function sendNew(bot: BotState, params: Params, content: () => TgObject, chat?: Chat): Message {
  const prepared = prepareSend(bot, params, chat)
  return finishSend(bot, prepared, content())
}

export const sendMessage: Handler = (bot, params) => {
  checkLinkPreviewOptions(params)
  if ((params.get('text') ?? '') === '') throw badRequest('message text is empty')
  const text = formatted(bot, params, 'text')
  return {result: sendNew(bot, params, text)}
}

/** sendLocation, sendDice, sendContact: a message carrying what could be read from the parameters. */
export const sendOther: Handler = (bot, params, _core, ctx) => {
  const content: TgObject = {}
  switch (ctx.method) {
    case 'sendlocation': {
      const latitude = (params.get('latitude') ?? '').trim()
      if (latitude === '') throw new ApiError(400, 'Bad Request: latitude is empty')
      const longitude = (params.get('longitude') ?? '').trim()
      if (longitude === '') throw new ApiError(400, 'Bad Request: longitude is empty')
      // process_send_location_query: get_integer_arg(…, 0), td::to_integer<int32>
      const live = integerArg(params, 'live_period', 0, INT32_MIN, INT32_MAX)
      const heading = integerArg(params, 'heading', 0, INT32_MIN, INT32_MAX)
      const radius = integerArg(params, 'proximity_alert_radius', 0, INT32_MIN, INT32_MAX)
      const accuracy = toDouble(params.get('horizontal_accuracy') ?? '')
      content.location = {
        latitude: toDouble(latitude),
        longitude: toDouble(longitude),
        ...(accuracy > 0 ? {horizontal_accuracy: accuracy} : {}),
        ...(live > 0 ? {live_period: live} : {}),
        ...(live > 0 && heading > 0 ? {heading} : {}),
        ...(live > 0 && radius > 0 ? {proximity_alert_radius: radius} : {}),
      }
      break
    }
    case 'senddice':
      content.dice = {emoji: params.get('emoji') || '🎲', value: 1 + Math.floor(Math.random() * 6)}
      break
    case 'sendcontact':
      // Client.cpp process_send_contact_query: both required, in this order, before the chat is looked up
      content.contact = {phone_number: required(params, 'phone_number'), first_name: required(params, 'first_name')}
      break
  }
  return {result: sendNew(bot, params, () => content)}
}

/** BA Client.cpp get_chat_action: the action, lower-cased, one of these (the legacy names too). */
const ACTIONS = new Set([
  'cancel',
  'record_audio',
  'upload_audio',
  'pick_up_location',
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
])

/** sendChatAction (BA Client.cpp process_send_chat_action_query): the action is read before the chat is checked. */
export const sendChatAction: Handler = (bot, params) => {
  if (!ACTIONS.has((params.get('action') ?? '').toLowerCase())) throw badRequest('wrong parameter action in request')
  chatOf(bot, params)
  return {result: true}
}
