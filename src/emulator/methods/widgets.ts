/**
 * Widgets (Bot API 10.4; core.telegram.org/bots/widgets and the method pages under /bots/api/methods/): sendWidget
 * sends a message with an HTML widget (`html` 1-32768 bytes, at most 4096 once compressed by zlib at the maximum
 * level; `public_data`/`chat_data` 0-1024 bytes; `is_shared` makes a shared widget whose `id` sendSharedWidget
 * sends again); editMessageWidgetData and editSharedWidgetData change the widget's data (a shared widget's public
 * data at most once a second); answerWidgetQuery answers a widget_query or shared_widget_query once, within 15
 * seconds (`data` 0-1024 bytes). As in production, widgets go to private chats only, and a sent widget has protected
 * content. Error texts the sources do not give are Telegram's MTProto error names (INPUT_MEDIA_WIDGET_TOO_LARGE,
 * INPUT_MEDIA_WIDGET_NOT_ALLOWED) or the emulator's own (docs/emulator.md, "The Bot API version").
 */
import {deflateSync} from 'node:zlib'
import type {BotState} from '../state/bot.js'
import type {Core, Handler} from './core.js'
import {badRequest, tooManyRequests} from '../errors.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {formatted, now} from './message-params.js'
import {prepareSend, finishSend} from './send.js'
import {required} from './args.js'
import {toInteger} from '../integer.js'
import {QUERY_INVALID} from './callbacks.js'
import {WIDGET_QUERY_LIFETIME_MS} from '../state/widgets.js'
import {targetOf} from './edit.js'
import {isObject} from '../telegram.js'

export const MAX_WIDGET_HTML = 32_768
export const MAX_WIDGET_COMPRESSED = 4096
export const MAX_WIDGET_DATA = 1024

/** A data parameter of at most 1024 bytes (undefined when left out). */
function dataParam(params: Params, name: string): string | undefined {
  const value = params.get(name)
  if (value !== undefined && Buffer.byteLength(value) > MAX_WIDGET_DATA) throw badRequest(`${name} is too long`)
  return value
}

function optionalInt(params: Params, name: string): number | undefined {
  const n = toInteger(params.get(name) ?? '') // td::to_integer
  return n > 0 ? n : undefined
}

/** A widget message in a private chat: the chat checks of every send, then the widget's own. */
function sendWidgetMessage(bot: BotState, params: Params, widget: () => TgObject): TgObject {
  const caption = formatted(bot, params, 'caption')
  const prepared = prepareSend(bot, params)
  if (prepared.chat.type !== 'private') throw badRequest('INPUT_MEDIA_WIDGET_NOT_ALLOWED')
  const above = ['true', '1'].includes((params.get('show_caption_above_media') ?? '').toLowerCase())
  return finishSend(bot, prepared, {
    widget: widget(),
    ...caption(),
    ...(above ? {show_caption_above_media: true} : {}),
    has_protected_content: true,
  })
}

export const sendWidget: Handler = (bot, params) => {
  const html = required(params, 'html')
  if (Buffer.byteLength(html) > MAX_WIDGET_HTML) throw badRequest('INPUT_MEDIA_WIDGET_TOO_LARGE')
  if (deflateSync(html, {level: 9}).length > MAX_WIDGET_COMPRESSED) throw badRequest('INPUT_MEDIA_WIDGET_TOO_LARGE')
  const publicData = dataParam(params, 'public_data')
  const chatData = dataParam(params, 'chat_data')
  const width = optionalInt(params, 'width')
  const height = optionalInt(params, 'height')
  const shared = ['true', '1'].includes((params.get('is_shared') ?? '').toLowerCase())
  const message = sendWidgetMessage(bot, params, () => {
    const id = shared ? bot.widgets.newSharedId(bot.id) : undefined
    if (id) bot.widgets.addShared({id, html, width, height, publicData, cacheTime: 30, editedAt: 0})
    return {
      html,
      ...(id ? {id} : {}),
      ...(width ? {width} : {}),
      ...(height ? {height} : {}),
      ...(publicData ? {public_data: publicData} : {}),
      ...(chatData ? {chat_data: chatData} : {}),
    }
  })
  return {result: message}
}

export const sendSharedWidget: Handler = (bot, params) => {
  const id = required(params, 'widget_id')
  const chatData = dataParam(params, 'chat_data')
  const widget = bot.widgets.shared.get(id)
  if (!widget) throw badRequest('widget not found')
  const message = sendWidgetMessage(bot, params, () => ({
    html: widget.html,
    id,
    ...(widget.width ? {width: widget.width} : {}),
    ...(widget.height ? {height: widget.height} : {}),
    ...(widget.publicData ? {public_data: widget.publicData} : {}),
    ...(chatData ? {chat_data: chatData} : {}),
  }))
  return {result: message}
}

/** The widget's data with `public_data`/`chat_data` applied ("" removes one; left out keeps it). */
function withData(widget: TgObject, publicData: string | undefined, chatData: string | undefined): TgObject {
  const next: TgObject = {...widget}
  if (publicData !== undefined) {
    delete next.public_data
    if (publicData !== '') next.public_data = publicData
  }
  if (chatData !== undefined) {
    delete next.chat_data
    if (chatData !== '') next.chat_data = chatData
  }
  return next
}

/** A shared widget's public data changes at most once a second (on the emulator's clock: timeScale applies). */
function touchShared(bot: BotState, core: Core, id: unknown, publicData: string | undefined): void {
  const shared = typeof id === 'string' ? bot.widgets.shared.get(id) : undefined
  if (!shared || publicData === undefined) return
  const since = Date.now() - shared.editedAt
  if (since < core.scale(1000)) throw tooManyRequests(1)
  shared.publicData = publicData === '' ? undefined : publicData
  shared.editedAt = Date.now()
}

export const editMessageWidgetData: Handler = (bot, params, core) => {
  const publicData = dataParam(params, 'public_data')
  const chatData = dataParam(params, 'chat_data')
  const target = targetOf(bot, params, params.get('chat_id') ?? '') // chat_id as it is (not trimmed)
  const widget = target.kind === 'inline' ? target.inline.content.widget : target.message.widget
  if (!isObject(widget)) throw badRequest('there is no widget in the message to edit')
  touchShared(bot, core, widget.id, publicData)
  const edited = withData(widget, publicData, chatData)
  if (target.kind === 'inline') target.inline.content = {...target.inline.content, widget: edited}
  else bot.storeMessage({...target.message, widget: edited, edit_date: now()})
  return {result: true}
}

export const editSharedWidgetData: Handler = (bot, params, core) => {
  const id = required(params, 'widget_id')
  const raw = params.get('public_data')
  if (raw === undefined) throw badRequest('parameter "public_data" is required')
  const publicData = dataParam(params, 'public_data')
  const rawCache = params.get('cache_time') ?? ''
  const cacheTime = rawCache === '' ? undefined : toInteger(rawCache, 32) // td::to_integer<int32>
  if (cacheTime !== undefined && !(cacheTime >= 5 && cacheTime <= 3600))
    throw badRequest('cache_time must be between 5 and 3600')
  const shared = bot.widgets.shared.get(id)
  if (!shared) throw badRequest('widget not found')
  touchShared(bot, core, id, publicData)
  if (cacheTime !== undefined) shared.cacheTime = cacheTime
  // every message showing the widget shows its new public data
  for (const [, message] of bot.messages) {
    const widget = message.widget
    if (isObject(widget) && widget.id === id)
      bot.storeMessage({...message, widget: withData(widget, publicData, undefined)})
  }
  return {result: true}
}

export const answerWidgetQuery: Handler = (bot, params, core) => {
  const id = params.get('widget_query_id') ?? ''
  const data = dataParam(params, 'data')
  const query = bot.widgets.queries.get(id)
  const expired = query && Date.now() - query.madeAt > core.scale(WIDGET_QUERY_LIFETIME_MS)
  if (!query || query.answer !== undefined || expired) throw badRequest(QUERY_INVALID)
  query.answer = data ?? ''
  return {result: true}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const WIDGET_METHODS: Record<string, Handler> = {
  sendwidget: sendWidget,
  sendsharedwidget: sendSharedWidget,
  editmessagewidgetdata: editMessageWidgetData,
  editsharedwidgetdata: editSharedWidgetData,
  answerwidgetquery: answerWidgetQuery,
}
