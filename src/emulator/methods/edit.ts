/**
 * edit* and deleteMessage against the bot's message store and its inline messages, with the server's texts.
 * The target is read as BA reads it: without chat_id and message_id it is the inline message of inline_message_id
 * (`message identifier is not specified`, `invalid inline message identifier specified`, `MESSAGE_ID_INVALID` for one
 * the bot never made); otherwise the chat's message (`chat_id is empty`, `message to edit not found`, `message can't
 * be edited`). Every edit replaces the keyboard: one left out is removed, as on Telegram. Nothing changed is
 * `message is not modified: …`.
 */
import type {BotState} from '../state/bot.js'
import type {Answer, Handler} from './core.js'
import {badRequest, ApiError, errorText} from '../errors.js'
import {checkLinkPreviewOptions, formatted, markupOf, now} from './message-params.js'
import type {Params} from '../http/params.js'
import {type InlineMessageState, readableInlineMessageId} from '../state/inline.js'
import type {TgObject} from '../types.js'
import {type Message, isObject} from '../telegram.js'
import {readInputMedia} from '../media/input-media.js'
import {resolveFile, storeBytes} from '../media/input.js'
import {messageMedia} from '../media/objects.js'
import {toDouble, toInteger} from '../integer.js'
import {INT32_MAX, INT32_MIN, integerArg, jsonArg, required} from './args.js'

export const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'

/** Content types that carry a caption. */
const WITH_CAPTION = ['photo', 'video', 'document', 'audio', 'animation', 'voice', 'paid_media']
/** Content an editMessageMedia may replace. */
const MEDIA_FIELDS = ['photo', 'video', 'document', 'audio', 'animation']

/** BA Client::get_message_id: td::to_integer<int32> (`12abc` is 12; `+5`, ` 5` are 0), a negative one 0. */
function messageIdOf(params: Params): number {
  return Math.max(0, toInteger(params.get('message_id') ?? '', 32))
}

export type Target = {kind: 'message'; message: Message} | {kind: 'inline'; inline: InlineMessageState}

/**
 * The message an edit names (BA: chat_id and message_id, else inline_message_id), with the server's texts; `chatId`
 * as the method read it.
 */
export function targetOf(bot: BotState, params: Params, chatId: string): Target {
  const messageId = messageIdOf(params)
  if (chatId === '' && messageId === 0) {
    const id = params.get('inline_message_id') ?? ''
    if (id === '') throw badRequest('message identifier is not specified')
    if (!readableInlineMessageId(id)) throw badRequest('invalid inline message identifier specified')
    const inline = bot.inline.messages.get(id)
    if (!inline) throw badRequest('MESSAGE_ID_INVALID')
    return {kind: 'inline', inline}
  }
  if (chatId === '') throw badRequest('chat_id is empty')
  const chat = bot.findChat(chatId)
  if (!chat) throw badRequest('chat not found')
  const stored = messageId > 0 ? bot.messages.get(chat.id, messageId) : undefined
  if (!stored || stored.deleted) throw badRequest('message to edit not found')
  if (!stored.byBot) throw badRequest("message can't be edited")
  return {kind: 'message', message: stored.message}
}

/** The message an edit targets; `kind`: what it must contain. */
function editTarget(bot: BotState, params: Params, kind?: 'text' | 'caption' | 'media' | 'live'): Target {
  const target = targetOf(bot, params, (params.get('chat_id') ?? '').trim())
  check(target.kind === 'inline' ? target.inline.content : target.message, kind)
  return target
}

/** td's checks of what the edited message holds. */
function check(message: Record<string, unknown>, kind: 'text' | 'caption' | 'media' | 'live' | undefined): void {
  if (kind === 'text' && typeof message.text !== 'string') throw badRequest('there is no text in the message to edit')
  if (kind === 'caption' && !WITH_CAPTION.some((f) => f in message) && message.media === undefined)
    throw badRequest('there is no caption in the message to edit')
  if (kind === 'media' && !MEDIA_FIELDS.some((f) => f in message) && message.media === undefined)
    throw badRequest('there is no media in the message to edit')
  if (kind === 'live') {
    const location = isObject(message.location) ? message.location : undefined
    const live = location?.live_period ?? message.live_period
    const date = typeof message.date === 'number' ? message.date : 0
    const alive = typeof live === 'number' && live > 0 && (live === 0x7fffffff || date === 0 || date + live > now())
    if (!location || !alive || stopped.has(location)) throw badRequest("message can't be edited")
  }
}

/** Live locations that were stopped (the location objects, which edits replace): they can no longer be edited. */
const stopped = new WeakSet<object>()

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Apply new content (fields to set; `drop` fields to remove) and the new keyboard; `not modified` when nothing changes. */
function applyEdit(
  bot: BotState,
  target: Target,
  changes: TgObject,
  drop: string[],
  keyboard: TgObject | undefined,
): Answer {
  if (target.kind === 'inline') {
    const current = {...target.inline.content, reply_markup: target.inline.replyMarkup}
    const next = {...current}
    change(current, next, changes, drop, keyboard)
    const {reply_markup, ...content} = next
    target.inline.content = content
    target.inline.replyMarkup = isObject(reply_markup) ? reply_markup : undefined
    return {result: true}
  }
  const next: Message = {...target.message}
  change(target.message, next, changes, drop, keyboard)
  next.edit_date = now()
  bot.storeMessage(next)
  return {result: next}
}

/** Make `next` (a copy of `current`) the edited content; `not modified` when nothing changes. */
function change(
  current: Record<string, unknown>,
  next: Record<string, unknown>,
  changes: TgObject,
  drop: string[],
  keyboard: TgObject | undefined,
): void {
  for (const field of drop) delete next[field]
  Object.assign(next, changes)
  delete next.reply_markup
  delete next.edit_date
  if (keyboard) next.reply_markup = keyboard
  const {edit_date: _e, ...before} = current
  if (before.reply_markup === undefined) delete before.reply_markup
  if (same(before, next)) throw badRequest(NOT_MODIFIED)
}

export const editMessageText: Handler = (bot, params) => {
  checkLinkPreviewOptions(params)
  if ((params.get('text') ?? '') === '') throw badRequest('message text is empty')
  const text = formatted(bot, params, 'text')
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'text')
  const keyboard = markup()
  return applyEdit(bot, target, text(), ['text', 'entities'], keyboard)
}

export const editMessageCaption: Handler = (bot, params) => {
  const caption = formatted(bot, params, 'caption')
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'caption')
  const keyboard = markup()
  return applyEdit(bot, target, caption(), ['caption', 'caption_entities'], keyboard)
}

export const editMessageReplyMarkup: Handler = (bot, params) => {
  const markup = markupOf(params)
  const target = editTarget(bot, params)
  const keyboard = markup()
  return applyEdit(bot, target, {}, [], keyboard)
}

/** The `media` parameter of an edit (editMessageMedia, editEphemeralMessageMedia), with the server's two texts. */
export function readEditMedia(params: Params): ReturnType<typeof readInputMedia> {
  // BA Client.cpp get_input_media(query, field_name): get_required_string_arg first
  const value = jsonArg(required(params, 'media'), "can't parse input media JSON object")
  try {
    return readInputMedia(params, value, false)
  } catch (err) {
    throw badRequest(`can't parse InputMedia: ${errorText(err)}`)
  }
}

/**
 * editMessageMedia: the new InputMedia (`can't parse input media JSON object`, `can't parse InputMedia: …`) replaces
 * the message's media and caption; its file is resolved like a send's.
 */
export const editMessageMedia: Handler = async (bot, params) => {
  const media = readEditMedia(params)
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'media')
  const keyboard = markup()
  const file = await resolveFile(bot, media.ref, media.type)
  const thumbnail =
    media.thumbnail && 'upload' in media.thumbnail
      ? storeBytes(bot, 'thumbnail', media.thumbnail.upload.data, media.thumbnail.upload.filename)
      : undefined
  const fields = media.type === 'audio' ? {title: media.attributes.title, performer: media.attributes.performer} : {}
  const content = {
    ...messageMedia(bot.files, media.type, file, {fields, ...(thumbnail ? {thumbnail} : {})}),
    ...media.caption(),
  }
  return applyEdit(bot, target, content, [...MEDIA_FIELDS, 'media', 'caption', 'caption_entities'], keyboard)
}

/** get_location: `latitude is empty` / `longitude is empty`, read before the target. */
function pointOf(params: Params): TgObject {
  const latitude = (params.get('latitude') ?? '').trim()
  if (latitude === '') throw new ApiError(400, 'Bad Request: latitude is empty')
  const longitude = (params.get('longitude') ?? '').trim()
  if (longitude === '') throw new ApiError(400, 'Bad Request: longitude is empty')
  const accuracy = toDouble(params.get('horizontal_accuracy') ?? '')
  return {
    latitude: toDouble(latitude),
    longitude: toDouble(longitude),
    ...(accuracy > 0 ? {horizontal_accuracy: accuracy} : {}),
  }
}

/** The live location the target holds (check made sure there is one). */
function locationOf(target: Target): Record<string, unknown> {
  const location = target.kind === 'message' ? target.message.location : target.inline.content.location
  return isObject(location) ? location : {}
}

/** editMessageLiveLocation: a live location still live; the new point (and heading, alert radius). */
export const editMessageLiveLocation: Handler = (bot, params) => {
  const point = pointOf(params)
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'live')
  const keyboard = markup()
  const current = locationOf(target)
  // process_edit_message_live_location_query: get_integer_arg(…, 0), td::to_integer<int32>
  const heading = integerArg(params, 'heading', 0, INT32_MIN, INT32_MAX)
  const radius = integerArg(params, 'proximity_alert_radius', 0, INT32_MIN, INT32_MAX)
  const location: TgObject = {
    ...point,
    ...(current.live_period !== undefined ? {live_period: current.live_period} : {}),
    ...(heading > 0 ? {heading} : {}),
    ...(radius > 0 ? {proximity_alert_radius: radius} : {}),
  }
  return applyEdit(bot, target, {location}, ['location'], keyboard)
}

/** stopMessageLiveLocation: the live location stops (it can no longer be edited or stopped again). */
export const stopMessageLiveLocation: Handler = (bot, params) => {
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'live')
  const keyboard = markup()
  const current = locationOf(target)
  const location = {...current}
  stopped.add(location)
  // the content is the same point: only the keyboard can make it "modified", so apply it without the check
  if (target.kind === 'inline') {
    target.inline.content = {...target.inline.content, location}
    target.inline.replyMarkup = keyboard
    return {result: true}
  }
  const next: Message = {...target.message, location, edit_date: now()}
  delete next.reply_markup
  if (keyboard) next.reply_markup = keyboard
  bot.storeMessage(next)
  return {result: next}
}

/**
 * deleteMessage (BA Client.cpp process_delete_message_query): an empty chat_id is `chat identifier is not specified`
 * and a message_id that reads as 0 `message identifier is not specified`, both before the chat is looked up
 * (check_message: `chat not found`, then `message to delete not found`).
 */
export const deleteMessage: Handler = (bot, params) => {
  const raw = params.get('chat_id') ?? ''
  if (raw === '') throw badRequest('chat identifier is not specified')
  const id = messageIdOf(params)
  if (id === 0) throw badRequest('message identifier is not specified')
  const chat = bot.findChat(raw)
  if (!chat) throw badRequest('chat not found')
  if (!bot.messages.markDeleted(chat.id, id)) throw badRequest('message to delete not found')
  return {result: true}
}
