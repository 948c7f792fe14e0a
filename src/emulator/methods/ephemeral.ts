/**
 * Ephemeral messages (Bot API 10.2-10.4, core.telegram.org/bots/api "Ephemeral messages and commands"): a send…
 * method given `ephemeral_message_parameters` (10.3's EphemeralMessageParameters: `receiver_user_id`,
 * `callback_query_id`, `replace_callback_query_message`) sends a message only that user sees. It answers a Message
 * with `message_id` 0, `receiver_user` and `ephemeral_message_id` (the id inside the chat; an id may be reused once
 * the message is gone). Since 10.4 `callback_query_id` alone names the chat and the receiver (the user who pressed
 * the button), and chat_id may be left out. editEphemeralMessageText/Caption/Media/ReplyMarkup change such a message
 * and deleteEphemeralMessage removes it (chat_id, receiver_user_id, ephemeral_message_id; `true`).
 * `ReplyParameters.ephemeral_message_id` replies to a user's ephemeral message (an `is_ephemeral` command), within
 * 15 seconds of it. Texts the sources do not give are the emulator's own (docs/emulator.md, "The Bot API version").
 */
import type {BotState} from '../state/bot.js'
import type {Answer, Handler} from './core.js'
import {badRequest, errorText} from '../errors.js'
import {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {chatOf, formatted, markupOf, parseJson} from './message-params.js'
import {QUERY_INVALID} from './callbacks.js'
import {NOT_MODIFIED, readEditMedia} from './edit.js'
import {resolveFile} from '../media/input.js'
import {messageMedia} from '../media/objects.js'
import {userIdParam} from './args.js'
import {toInteger} from '../integer.js'
import {tdIntField, tdIntegerFieldText} from '../json.js'
import {isObject} from '../telegram.js'

/** How long a user's ephemeral message may be replied to (ReplyParameters.ephemeral_message_id: "within 15 seconds"). */
export const EPHEMERAL_REPLY_MS = 15_000

/** Content types that carry a caption. */
const WITH_CAPTION = ['photo', 'video', 'document', 'audio', 'animation', 'voice']

/** Params without some names (the handlers read `chat_id` and `reply_parameters` as for any send). */
function rewritten(params: Params, drop: string[], add: Record<string, string>): Params {
  const out = new Params()
  for (const [name, value] of Object.entries(add)) out.add(name, value)
  const record = params.toRecord()
  for (const name of Object.keys(record)) {
    if (drop.includes(name) || name in add) continue
    const value = params.get(name)
    if (value !== undefined) out.add(name, value)
  }
  for (const [name, file] of params.files) out.files.set(name, file)
  return out
}

interface EphemeralTarget {
  receiverUserId: number
  chatId?: number
  callbackQueryId?: string
  replace: boolean
}

/** EphemeralMessageParameters as the emulator reads it (td's JSON texts for a malformed object). */
function readEphemeralParameters(bot: BotState, raw: string): EphemeralTarget {
  const value = parseJson(raw, 'ephemeral message parameters')
  if (!isObject(value)) throw badRequest('object expected as ephemeral message parameters')
  const o = value
  const queryId = o.callback_query_id === undefined ? undefined : String(o.callback_query_id)
  const origin = queryId !== undefined ? bot.ephemeral.callbackOrigin(queryId) : undefined
  if (queryId !== undefined && (!origin || !bot.openCallbackQueries.has(queryId))) throw badRequest(QUERY_INVALID)
  // a user id, read as td reads a long field of a JSON object (json.ts tdIntegerFieldText): `5.0` is not one
  let receiver = origin?.userId
  if (o.receiver_user_id !== undefined) {
    try {
      receiver = Number(tdIntegerFieldText(o, 'receiver_user_id', 64))
    } catch (err) {
      const text = errorText(err)
      throw badRequest(text[0].toLowerCase() + text.slice(1))
    }
  }
  if (receiver === undefined) throw badRequest('receiver_user_id or callback_query_id must be specified')
  if (!Number.isSafeInteger(receiver) || receiver <= 0) throw badRequest('invalid receiver_user_id specified')
  const replace = o.replace_callback_query_message === true
  if (replace && origin?.ephemeral)
    throw badRequest("replace_callback_query_message can't be used for a callback query from an ephemeral message")
  return {
    receiverUserId: receiver,
    ...(origin?.chatId !== undefined ? {chatId: origin.chatId} : {}),
    ...(queryId !== undefined ? {callbackQueryId: queryId} : {}),
    replace,
  }
}

/** A reply to a user's ephemeral message: `reply_parameters.ephemeral_message_id` without `message_id`. */
function ephemeralReply(bot: BotState, params: Params): number | undefined {
  const raw = params.get('reply_parameters')
  if (raw === undefined || !raw.includes('ephemeral_message_id')) return undefined
  const value = parseJson(raw, 'reply parameters')
  if (!isObject(value)) return undefined
  const o = value
  if (o.ephemeral_message_id === undefined || o.message_id !== undefined) return undefined
  let id: number
  try {
    id = tdIntField(o, 'ephemeral_message_id')!
  } catch (err) {
    const text = errorText(err)
    throw badRequest(text[0].toLowerCase() + text.slice(1))
  }
  if (id <= 0) throw badRequest('field "ephemeral_message_id" must be a valid Number')
  return id
}

/**
 * A send… handler that also sends ephemeral messages: with `ephemeral_message_parameters` the message is built as
 * the handler builds it (its checks and texts), then taken out of the chat's history and kept as the receiver's
 * ephemeral message; without, the handler runs unchanged.
 */
export function withEphemeral(handler: Handler): Handler {
  return (bot, params, core, ctx) => {
    const raw = params.get('ephemeral_message_parameters')
    const replyTo = ephemeralReply(bot, params)
    // the common case, on every send's hot path: the handler as it is (an answer at once, no promise)
    if ((raw === undefined || raw === '') && replyTo === undefined) return handler(bot, params, core, ctx)
    return sendEphemeral(handler, raw, replyTo, bot, params, core, ctx)
  }
}

async function sendEphemeral(
  handler: Handler,
  raw: string | undefined,
  replyTo: number | undefined,
  ...[bot, params, core, ctx]: Parameters<Handler>
): Promise<Answer> {
  const target = raw !== undefined && raw !== '' ? readEphemeralParameters(bot, raw) : undefined
  const add: Record<string, string> = {}
  if ((params.get('chat_id') ?? '').trim() === '' && target?.chatId !== undefined) add.chat_id = String(target.chatId)
  const chat = chatOf(bot, add.chat_id !== undefined ? rewritten(params, [], add) : params)
  if (chat.type === 'channel') throw badRequest("ephemeral messages can't be sent to channel chats")
  let replied: TgObject | undefined
  if (replyTo !== undefined) {
    const entry = bot.ephemeral.inChat(chat.id, replyTo)
    if (!entry || Date.now() - entry.sentAt > EPHEMERAL_REPLY_MS) throw badRequest('message to be replied not found')
    if (!target) throw badRequest('a reply to an ephemeral message must be an ephemeral message')
    replied = entry.message
  }
  if (!target) return handler(bot, params, core, ctx)
  const key = String(chat.id)
  const lastId = bot.lastMessageId.get(key)
  const drop = ['ephemeral_message_parameters', ...(replyTo !== undefined ? ['reply_parameters'] : [])]
  const sent = (await handler(bot, rewritten(params, drop, add), core, ctx)).result
  if (!isObject(sent) || typeof sent.message_id !== 'number') throw new Error('internal: the send answered no message')
  // the message is the receiver's alone: out of the chat's history, its message_id given back
  bot.messages.markDeleted(chat.id, sent.message_id)
  if (lastId === undefined) bot.lastMessageId.delete(key)
  else bot.lastMessageId.set(key, lastId)
  const receiver = bot.users.known(target.receiverUserId) ?? {
    id: target.receiverUserId,
    is_bot: false,
    first_name: 'User',
  }
  const {message_id: _id, from, chat: sentChat, date, ...content} = sent
  const message: TgObject = {
    message_id: 0,
    from,
    chat: sentChat,
    date,
    receiver_user: receiver,
    ephemeral_message_id: bot.ephemeral.nextId(chat.id),
    ...(replied ? {reply_to_message: replied} : {}),
    ...content,
  }
  bot.ephemeral.put({
    chatId: chat.id,
    receiverUserId: target.receiverUserId,
    message,
    sentAt: Date.now(),
    deleted: false,
  })
  return {result: message}
}

/** The ephemeral message an edit or deletion names: chat_id, receiver_user_id, ephemeral_message_id. */
function ephemeralTarget(bot: BotState, params: Params, what: string) {
  const chat = chatOf(bot, params)
  // integers read as the server reads them (Client::get_user_id, td::to_integer<int32>)
  const receiver = userIdParam(params, 'receiver_user_id')
  const rawId = params.get('ephemeral_message_id') ?? ''
  if (rawId === '') throw badRequest('parameter "ephemeral_message_id" is required')
  const id = toInteger(rawId, 32)
  const entry = id > 0 ? bot.ephemeral.get(chat.id, receiver, id) : undefined
  if (!entry) throw badRequest(`${what} not found`)
  return entry
}

/** New content and keyboard for an ephemeral message; `true`, or `message is not modified` when nothing changes. */
function applyEphemeralEdit(
  entry: {message: TgObject},
  changes: TgObject,
  drop: string[],
  keyboard: TgObject | undefined,
): Answer {
  const next: TgObject = {...entry.message}
  for (const field of [...drop, 'reply_markup']) delete next[field]
  Object.assign(next, changes)
  if (keyboard) next.reply_markup = keyboard
  if (JSON.stringify(next) === JSON.stringify(entry.message)) throw badRequest(NOT_MODIFIED)
  entry.message = next
  return {result: true}
}

export const editEphemeralMessageText: Handler = (bot, params) => {
  const hasRich = (params.get('rich_message') ?? '') !== ''
  if ((params.get('text') ?? '') === '' && !hasRich) throw badRequest('message text is empty')
  const text = hasRich ? () => ({}) : formatted(bot, params, 'text')
  const markup = markupOf(params)
  const entry = ephemeralTarget(bot, params, 'message to edit')
  if (typeof entry.message.text !== 'string' && !hasRich) throw badRequest('there is no text in the message to edit')
  const rich = hasRich ? {rich_message: parseJson(params.get('rich_message'), 'rich message')} : {}
  return applyEphemeralEdit(entry, {...text(), ...rich}, ['text', 'entities'], markup())
}

export const editEphemeralMessageCaption: Handler = (bot, params) => {
  const caption = formatted(bot, params, 'caption')
  const markup = markupOf(params)
  const entry = ephemeralTarget(bot, params, 'message to edit')
  if (!WITH_CAPTION.some((f) => f in entry.message)) throw badRequest('there is no caption in the message to edit')
  return applyEphemeralEdit(entry, caption(), ['caption', 'caption_entities'], markup())
}

export const editEphemeralMessageReplyMarkup: Handler = (bot, params) => {
  const markup = markupOf(params)
  const entry = ephemeralTarget(bot, params, 'message to edit')
  return applyEphemeralEdit(entry, {}, [], markup())
}

export const editEphemeralMessageMedia: Handler = async (bot, params) => {
  const media = readEditMedia(params)
  const markup = markupOf(params)
  const entry = ephemeralTarget(bot, params, 'message to edit')
  if (!WITH_CAPTION.some((f) => f in entry.message)) throw badRequest('there is no media in the message to edit')
  const file = await resolveFile(bot, media.ref, media.type)
  const content = {...messageMedia(bot.files, media.type, file, {fields: {}}), ...media.caption()}
  return applyEphemeralEdit(entry, content, [...WITH_CAPTION, 'caption', 'caption_entities'], markup())
}

export const deleteEphemeralMessage: Handler = (bot, params) => {
  const entry = ephemeralTarget(bot, params, 'message to delete')
  entry.deleted = true
  return {result: true}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const EPHEMERAL_METHODS: Record<string, Handler> = {
  editephemeralmessagetext: editEphemeralMessageText,
  editephemeralmessagecaption: editEphemeralMessageCaption,
  editephemeralmessagemedia: editEphemeralMessageMedia,
  editephemeralmessagereplymarkup: editEphemeralMessageReplyMarkup,
  deleteephemeralmessage: deleteEphemeralMessage,
}
