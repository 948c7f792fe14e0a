/** Messages and button presses: a user sends text or a file, or presses an inline button (../user/actions.ts, ../user/media.ts). */
import type {BotState} from '../state/bot.js'
import type {CallbackQueryOptions, UserMediaKind, UserMediaOptions, UserMessageOptions} from '../types.js'
import {callbackQuery, userMessage} from '../user/actions.js'
import {userMediaMessage} from '../user/media.js'
import {MEDIA_KINDS} from '../media-kinds.js'
import {defineAction} from './action.js'
import {isObject} from '../telegram.js'
import {type FieldValues, InputError, field, int, oneOf, text, who} from './fields.js'

/** Who writes and where: the fields send_message, send_media and the share_ actions share. */
export const sender = {
  chat_id: int("the chat (default: the user's private chat; negative: a group)", {nonZero: true}),
  user_id: who.user_id,
  first_name: who.first_name,
  last_name: text("the user's last name"),
  username: who.username,
  language_code: text("the user's language (IETF tag)"),
  chat_title: text("the group's title when chat_id is a group's (default 'Test Group')"),
  date: int('Unix time of the message (default: now)', {min: 0}),
  reply_to_message_id: int('the message this one replies to (it must exist in the chat)', {min: 1}),
  message_thread_id: int('the forum topic it is sent in (a supergroup with topics)', {min: 1}),
}

type Sender = Omit<UserMessageOptions, 'text'> & {chatId: number}

/** The sender fields as options; the message replied to must exist in that chat. */
export function readSender(f: FieldValues<typeof sender>, bot: BotState): Sender {
  const chatId = f.chat_id ?? f.user_id ?? 1111
  const replyTo = f.reply_to_message_id
  if (replyTo !== undefined && !bot.message(chatId, replyTo))
    throw new InputError(`reply_to_message_id ${replyTo}: there is no message ${replyTo} in chat ${chatId}`)
  return {
    chatId,
    userId: f.user_id,
    firstName: f.first_name,
    lastName: f.last_name,
    username: f.username,
    languageCode: f.language_code,
    chatTitle: f.chat_title,
    date: f.date,
    replyToMessageId: replyTo,
    messageThreadId: f.message_thread_id,
  }
}

export const sendMessage = defineAction({
  name: 'send_message',
  description:
    'the user sends a text message (a /command gets its bot_command entity); in a channel, posts it as its administrator (channel_post)',
  params: {text: text('the message text', {required: true}), ...sender},
  result:
    '{update_id, message}: the update queued (update_id 0 when allowed_updates drop it); message is the channel_post in a channel',
  route: 'messages',
  read: (f, bot): UserMessageOptions => ({text: f.text, ...readSender(f, bot)}),
  run: ({bot, inject}, options: UserMessageOptions) => {
    const message = userMessage(bot, options)
    return inject(message.chat.type === 'channel' ? {channel_post: message} : {message})
  },
  json: (update) => ({update_id: update.update_id, message: update.message ?? update.channel_post}),
})

/** A file as an action takes it: its bytes (a Buffer, or base64 text in JSON), its name and type. */
const file = field(
  {
    json: {
      type: 'object',
      properties: {
        data: {type: 'string', contentEncoding: 'base64'},
        filename: {type: 'string'},
        mime_type: {type: 'string'},
      },
      required: ['data'],
    },
    description: 'the file: {data (base64), filename?, mime_type?}',
    missing: (name) => `${name} is required: {data (base64), filename?, mime_type?}`,
  },
  (value, name) => {
    const f = isObject(value) ? value : {}
    const data = Buffer.isBuffer(f?.data)
      ? f.data
      : typeof f?.data === 'string'
        ? Buffer.from(f.data, 'base64')
        : undefined
    if (!data) throw new InputError(`${name} must be {data (base64), filename?, mime_type?}`)
    if (data.length === 0) throw new InputError(`the ${name} is empty`)
    return {
      data,
      ...(typeof f.filename === 'string' ? {filename: f.filename} : {}),
      ...(typeof f.mime_type === 'string' ? {mimeType: f.mime_type} : {}),
    }
  },
)

export const sendMedia = defineAction({
  name: 'send_media',
  description:
    'the user sends a photo, document, video, audio, voice, animation, sticker or video note (the real bytes)',
  params: {
    kind: {...oneOf('what the file is sent as', MEDIA_KINDS), required: true},
    file,
    ...sender,
    caption: text('the caption'),
    emoji: text("a sticker's emoji"),
    duration: int('seconds, for video and audio (default: read from the bytes)', {min: 0}),
    width: int('width, for video (default: read from the bytes)', {min: 0}),
    height: int('height, for video (default: read from the bytes)', {min: 0}),
    title: text("an audio's title"),
    performer: text("an audio's performer"),
  },
  result: '{update_id, message}: the update queued; the file is stored for the bot (getFile serves it)',
  read: (f, bot): UserMediaOptions => ({
    kind: f.kind,
    ...f.file,
    caption: f.caption,
    emoji: f.emoji,
    duration: f.duration,
    width: f.width,
    height: f.height,
    title: f.title,
    performer: f.performer,
    ...readSender(f, bot),
  }),
  run: ({bot, inject}, options: UserMediaOptions) => inject({message: userMediaMessage(bot, options)}),
  json: (update) => ({update_id: update.update_id, message: update.message}),
})

export const pressButton = defineAction({
  name: 'press_button',
  description:
    "the user presses an inline button of the bot's message (or of an ephemeral message it received): a callback_query with its data (a callback_game button: game_short_name)",
  params: {
    data: field(
      {
        json: {type: 'string'},
        description: "the button's callback_data",
        missing: () => 'data is required (a non-empty string)',
      },
      (value, name) => {
        // '' with game_short_name: a callback_game button, which has no data
        if (typeof value !== 'string') throw new InputError(`${name} must be a non-empty string`)
        return value
      },
    ),
    game_short_name: text("the game's short name, for a callback_game button (the query then has no data)"),
    message_id: int("the bot's message with the button (or ephemeral_message_id)", {min: 1}),
    ephemeral_message_id: int(
      "the bot's ephemeral message with the button (Bot API 10.2), pressed by its receiver (user_id)",
      {min: 1},
    ),
    chat_id: int("the message's chat (default: the user's private chat)", {nonZero: true}),
    user_id: who.user_id,
    first_name: who.first_name,
    username: who.username,
  },
  result: '{update_id, callback_query}: the update queued; the bot answers it with answerCallbackQuery',
  route: 'callback_queries',
  read: (f, bot): CallbackQueryOptions => {
    const chatId = f.chat_id ?? f.user_id ?? 1111
    if ((f.message_id === undefined) === (f.ephemeral_message_id === undefined))
      throw new InputError(
        "pass exactly one of message_id (the bot's message) and ephemeral_message_id (its ephemeral message)",
      )
    if (f.message_id !== undefined && !bot.message(chatId, f.message_id))
      throw new InputError(
        `message_id ${f.message_id}: there is no message ${f.message_id} in chat ${chatId} (pass the chat_id of the bot's message)`,
      )
    const userId = f.user_id ?? 1111
    if (f.ephemeral_message_id !== undefined && !bot.ephemeral.get(chatId, userId, f.ephemeral_message_id))
      throw new InputError(
        `ephemeral_message_id ${f.ephemeral_message_id}: user ${userId} has no ephemeral message ${f.ephemeral_message_id} in chat ${chatId} (only its receiver_user sees and presses it)`,
      )
    if (f.data === '' && f.game_short_name === undefined)
      throw new InputError('data must be a non-empty string (or pass game_short_name for a callback_game button)')
    return {
      data: f.data,
      ...(f.game_short_name !== undefined ? {gameShortName: f.game_short_name} : {}),
      ...(f.message_id !== undefined ? {messageId: f.message_id} : {ephemeralMessageId: f.ephemeral_message_id}),
      chatId,
      userId: f.user_id,
      firstName: f.first_name,
      username: f.username,
    }
  },
  run: ({bot, inject}, options: CallbackQueryOptions) => inject({callback_query: callbackQuery(bot, options)}),
  json: (update) => ({update_id: update.update_id, callback_query: update.callback_query}),
})
