/**
 * Methods a bot uses to act (sendMessage, editMessageText, answerCallbackQuery…): the parameters that matter are
 * validated with the server's texts, and a plausible result is answered and remembered for later edits.
 */
import {randomBytes} from 'node:crypto'
import type {BotState} from './bot.js'
import type {Answer, Handler} from './core.js'
import {badRequest} from './errors.js'
import type {Params, UploadedFile} from './params.js'
import type {TgObject} from './types.js'

const now = (): number => Math.floor(Date.now() / 1000)

function parseJson(raw: string | undefined, what: string): unknown {
  if (raw === undefined || raw === '') return undefined
  try {
    return JSON.parse(raw)
  } catch {
    throw badRequest(`can't parse ${what} JSON object`)
  }
}

/** The chat named by chat_id: required, and the bot must have seen it. */
function chatOf(bot: BotState, params: Params): TgObject {
  const raw = params.get('chat_id')
  if (raw === undefined || raw.trim() === '') throw badRequest('chat_id is empty')
  const chat = bot.findChat(raw.trim())
  if (!chat) throw badRequest('chat not found')
  return chat
}

function replyMarkup(params: Params): TgObject | undefined {
  const markup = parseJson(params.get('reply_markup'), 'reply keyboard markup')
  if (markup === undefined) return undefined
  if (!markup || typeof markup !== 'object' || Array.isArray(markup)) throw badRequest('object expected as reply markup')
  return markup as TgObject
}

function entities(params: Params, name: string): unknown[] | undefined {
  const value = parseJson(params.get(name), 'entities')
  return Array.isArray(value) && value.length > 0 ? value : undefined
}

/** A new message from the bot in `chat`, fields in the server's order. */
function newMessage(bot: BotState, chat: TgObject, params: Params, content: TgObject): TgObject {
  const messageId = bot.nextMessageId(chat.id as number)
  const replyTo = Number(params.get('reply_to_message_id') ?? (parseJson(params.get('reply_parameters'), 'reply parameters') as {message_id?: number} | undefined)?.message_id)
  const replied = Number.isInteger(replyTo) ? bot.message(chat.id as number, replyTo) : undefined
  const markup = replyMarkup(params)
  const message: TgObject = {
    message_id: messageId,
    from: bot.from,
    chat,
    date: now(),
    ...(replied ? {reply_to_message: replied} : {}),
    ...content,
    ...(markup && 'inline_keyboard' in markup ? {reply_markup: markup} : {}),
  }
  bot.storeMessage(message)
  return message
}

function requireText(params: Params): string {
  const text = params.get('text') ?? ''
  if (text.trim() === '') throw badRequest('message text is empty')
  if ([...text].length > 4096) throw badRequest('message is too long')
  return text
}

export const sendMessage: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const text = requireText(params)
  const ents = entities(params, 'entities')
  return {result: newMessage(bot, chat, params, {text, ...(ents ? {entities: ents} : {})})}
}

const fileId = (): string => randomBytes(24).toString('base64url')

function fileObject(params: Params, field: string, upload: UploadedFile | undefined): TgObject {
  const size = upload?.size ?? 1024
  return {
    ...(upload?.filename ? {file_name: upload.filename} : {}),
    ...(upload?.mimeType ? {mime_type: upload.mimeType} : {}),
    file_id: params.get(field)?.startsWith('attach://') || upload ? fileId() : params.get(field) ?? fileId(),
    file_unique_id: randomBytes(8).toString('base64url'),
    file_size: size,
  }
}

function caption(params: Params): TgObject {
  const text = params.get('caption')
  const ents = entities(params, 'caption_entities')
  return text ? {caption: text, ...(ents ? {caption_entities: ents} : {})} : {}
}

/** sendPhoto, sendDocument, sendVideo…: the InputFile (upload, file_id or URL) is required. */
function sendMedia(field: string, build: (file: TgObject) => unknown): Handler {
  return (bot, params) => {
    const chat = chatOf(bot, params)
    const upload = params.file(field)
    if (!upload && !params.get(field)) throw badRequest(`there is no ${field} in the request`)
    const file = fileObject(params, field, upload)
    return {result: newMessage(bot, chat, params, {[field]: build(file), ...caption(params)})}
  }
}

export const sendPhoto = sendMedia('photo', (file) => {
  const {file_name: _n, mime_type: _m, ...rest} = file
  return [{...rest, width: 90, height: 90}, {...rest, file_unique_id: randomBytes(8).toString('base64url'), width: 800, height: 800}]
})
export const sendDocument = sendMedia('document', (file) => file)

const MEDIA_FIELDS: Record<string, string> = {
  sendaudio: 'audio', sendvideo: 'video', sendanimation: 'animation', sendvoice: 'voice', sendvideonote: 'video_note',
  sendsticker: 'sticker',
}

/** Any other send*: a message carrying what could be read from the parameters. */
export const sendOther: Handler = (bot, params, _core, ctx) => {
  const media = MEDIA_FIELDS[ctx.method]
  if (media) return sendMedia(media, (file) => file)(bot, params, _core, ctx)
  const chat = chatOf(bot, params)
  const content: TgObject = {}
  switch (ctx.method) {
    case 'sendlocation':
      content.location = {latitude: Number(params.get('latitude')), longitude: Number(params.get('longitude'))}
      break
    case 'senddice':
      content.dice = {emoji: params.get('emoji') || '🎲', value: 1 + Math.floor(Math.random() * 6)}
      break
    case 'sendcontact':
      content.contact = {phone_number: params.get('phone_number') ?? '', first_name: params.get('first_name') ?? ''}
      break
    case 'sendpoll':
      content.poll = {id: String(Date.now()), question: params.get('question') ?? '',
        options: ((parseJson(params.get('options'), 'options') as unknown[] | undefined) ?? []).map((o) => ({
          text: typeof o === 'string' ? o : (o as {text?: string}).text ?? '', voter_count: 0})),
        total_voter_count: 0, is_closed: false, is_anonymous: true, type: 'regular', allows_multiple_answers: false}
      break
    case 'sendmediagroup': {
      const media = parseJson(params.get('media'), 'media') as Array<{type?: string; caption?: string}> | undefined
      if (!Array.isArray(media) || media.length === 0) throw badRequest('media is empty')
      return {result: media.map((m) => newMessage(bot, chat, params, {[m.type === 'photo' ? 'photo' : m.type ?? 'document']: {file_id: fileId()},
        ...(m.caption ? {caption: m.caption} : {})}))}
    }
    case 'sendchataction':
      return {result: true}
    default:
      if (params.get('text') !== undefined) content.text = params.get('text')
  }
  return {result: newMessage(bot, chat, params, content)}
}

const ACTIONS = new Set(['typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice',
  'upload_document', 'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note'])

export const sendChatAction: Handler = (bot, params) => {
  chatOf(bot, params)
  if (!ACTIONS.has(params.get('action') ?? '')) throw badRequest('wrong parameter action in request')
  return {result: true}
}

/** The message an edit* call targets: chat_id + message_id, or inline_message_id (answered with true). */
function editTarget(bot: BotState, params: Params): TgObject | 'inline' {
  if (params.get('inline_message_id')) return 'inline'
  const chat = chatOf(bot, params)
  const id = Number(params.get('message_id'))
  if (!Number.isInteger(id) || id <= 0) throw badRequest('message identifier is not specified')
  const message = bot.message(chat.id as number, id)
  if (!message) throw badRequest('message to edit not found')
  return message
}

const NOT_MODIFIED = 'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'

function applyEdit(bot: BotState, message: TgObject, changes: TgObject, params: Params): Answer {
  const markup = replyMarkup(params)
  const next: TgObject = {...message, ...changes, edit_date: now()}
  delete next.reply_markup
  if (markup && 'inline_keyboard' in markup && (markup.inline_keyboard as unknown[]).length > 0) next.reply_markup = markup
  const same = Object.keys(changes).every((k) => JSON.stringify(message[k]) === JSON.stringify(changes[k])) &&
    JSON.stringify(message.reply_markup) === JSON.stringify(next.reply_markup)
  if (same) throw badRequest(NOT_MODIFIED)
  bot.storeMessage(next)
  return {result: next}
}

export const editMessageText: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  const text = requireText(params)
  if (target === 'inline') return {result: true}
  const ents = entities(params, 'entities')
  const changes: TgObject = {text}
  if (ents) changes.entities = ents
  else if (target.entities) changes.entities = undefined
  return applyEdit(bot, target, changes, params)
}

export const editMessageReplyMarkup: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  if (target === 'inline') return {result: true}
  return applyEdit(bot, target, {}, params)
}

export const editMessageCaption: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  if (target === 'inline') return {result: true}
  return applyEdit(bot, target, {caption: params.get('caption') ?? ''}, params)
}

/** Any other edit*: the message with an edit_date, or true for inline messages. */
export const editOther: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  if (target === 'inline') return {result: true}
  const next = {...target, edit_date: now()}
  bot.storeMessage(next)
  return {result: next}
}

export const deleteMessage: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const id = Number(params.get('message_id'))
  if (!Number.isInteger(id) || id <= 0) throw badRequest('message identifier is not specified')
  const key = `${String(chat.id)}:${id}`
  if (!bot.messages.delete(key)) throw badRequest('message to delete not found')
  return {result: true}
}

export const answerCallbackQuery: Handler = (bot, params) => {
  const id = params.get('callback_query_id') ?? ''
  if (!bot.openCallbackQueries.delete(id)) {
    throw badRequest('query is too old and response timeout expired or query ID is invalid')
  }
  return {result: true}
}

export const setMyCommands: Handler = (bot, params) => {
  const commands = parseJson(params.get('commands'), 'commands')
  if (!Array.isArray(commands)) throw badRequest('parameter "commands" is required')
  for (const c of commands as Array<{command?: unknown; description?: unknown}>) {
    if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw badRequest('BOT_COMMAND_INVALID')
    if (typeof c.description !== 'string' || c.description.trim() === '') throw badRequest('command description is empty')
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
  return {result: {...chat, accent_color_id: 0, max_reaction_count: 11, accepted_gift_types: {unlimited_gifts: false,
    limited_gifts: false, unique_gifts: false, premium_subscription: false}}}
}

/** answer*, set*, delete* methods the emulator does not model: accepted with `true`. */
export const acceptTrue: Handler = () => ({result: true})

/** forwardMessage: a copy of the original in the target chat, with forward_origin. */
export const forwardMessage: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const from = bot.findChat(params.get('from_chat_id') ?? '')
  if (!from) throw badRequest('chat not found')
  const original = bot.message(from.id as number, Number(params.get('message_id')))
  if (!original) throw badRequest('message to forward not found')
  const {message_id: _id, from: _from, chat: _chat, date, reply_markup: _markup, edit_date: _edit, ...content} = original
  const sender = original.from as TgObject | undefined
  const origin = sender ? {type: 'user', sender_user: sender, date} : {type: 'chat', sender_chat: from, date}
  return {result: newMessage(bot, chat, params, {forward_origin: origin, ...content})}
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
  return {result: {user: {id: userId, is_bot: false, first_name: user.first_name ?? 'User',
    ...(user.username ? {username: user.username} : {})}, status: chat.type === 'private' ? 'member' : 'member'}}
}

export const getFile: Handler = (_bot, params) => {
  const id = params.get('file_id') ?? ''
  if (id === '') throw badRequest('file_id not specified')
  return {result: {file_id: id, file_unique_id: randomBytes(8).toString('base64url'), file_size: 1024, file_path: `documents/file_${id.slice(0, 8)}`}}
}

/** stopPoll: the poll of the message, closed. */
export const stopPoll: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  if (target === 'inline' || !target.poll) throw badRequest('message with poll to stop not found')
  const poll = {...(target.poll as TgObject), is_closed: true}
  bot.storeMessage({...target, poll})
  return {result: poll}
}
