/** Parameters the outgoing methods share: JSON values, the target chat, formatted text, the reply target, the markup. */
import type {BotState} from '../state/bot.js'
import {ApiError, badRequest, errorText} from '../errors.js'
import {type Entity, entitiesJson, formatText} from '../format/index.js'
import {type Markup, finishInlineKeyboard, readReplyMarkup} from './keyboards.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {type Chat, type Message, type User, isObject} from '../telegram.js'
import {integerFieldText, tdIntField} from '../json.js'
import {toInteger} from '../integer.js'
import {longField, stringField, jsonArg} from './args.js'

export const now = (): number => Math.floor(Date.now() / 1000)

export function parseJson(raw: string | undefined, what: string): unknown {
  if (raw === undefined || raw === '') return undefined
  return jsonArg(raw, `can't parse ${what} JSON object`)
}

/** The chat named by chat_id: required, and the bot must have seen it (an update from it, or addChat). */
export function chatOf(bot: BotState, params: Params, name = 'chat_id'): Chat {
  const raw = params.get(name)
  // Client::check_chat: only an empty value is "empty"; the rest is read as it is (td::to_integer, no trimming)
  if (raw === undefined || raw === '') throw badRequest('chat_id is empty')
  const chat = bot.findChat(raw)
  if (!chat) throw badRequest('chat not found')
  return chat
}

/** The user of a text_mention entity as the bot knows them. */
const mentionedUser =
  (bot: BotState) =>
  (id: number): User => {
    const chat = bot.findChat(String(id))
    return {
      id,
      is_bot: false,
      first_name: chat?.first_name ?? 'User',
      ...(chat?.username ? {username: chat.username} : {}),
    }
  }

/**
 * `text` + `parse_mode` + `entities` (or `caption` + `parse_mode` + `caption_entities`): the server's checks now,
 * td's when the returned function runs; it gives the message fields (`{text, entities?}` or `{caption, caption_entities?}`).
 */
export function formatted(bot: BotState, params: Params, kind: 'text' | 'caption'): () => TgObject {
  const raw = params.get(kind) ?? ''
  const finish = formatText({
    raw,
    parseMode: params.get('parse_mode'),
    kind,
    user: mentionedUser(bot),
    entities: params.get(kind === 'text' ? 'entities' : 'caption_entities'),
  })
  return () => {
    const {text, entities} = finish()
    if (text === '') return {}
    const field = kind === 'text' ? 'entities' : 'caption_entities'
    return {[kind]: text, ...(entities.length > 0 ? {[field]: entitiesJson(entities)} : {})}
  }
}

export interface ReplyTarget {
  messageId: number
  chatId?: string
  allowWithout: boolean
  /** reply_parameters.quote (+ quote_parse_mode, quote_entities) read; its td stage, and quote_position. */
  quote?: {finish: () => {text: string; entities: Entity[]}; position: number}
}

/** reply_parameters, or reply_to_message_id + allow_sending_without_reply, as the server reads them. */
export function replyTarget(params: Params): ReplyTarget | undefined {
  const raw = params.get('reply_parameters')
  if (raw === undefined) {
    const id = toInteger(params.get('reply_to_message_id') ?? '', 32)
    if (!(id > 0)) return undefined
    return {messageId: id, allowWithout: toBoolParam(params.get('allow_sending_without_reply'))}
  }
  if (raw === '') return undefined
  const value = parseJson(raw, 'reply parameters')
  if (!isObject(value)) throw badRequest('object expected as reply parameters')
  const o = value
  if (Object.keys(o).length === 0) return undefined
  // Client::get_reply_parameters, in its order and with td's texts (JsonObject::get_*_field)
  const chatId = optionalString(o, 'chat_id') // a number is its literal (get_optional_string_field)
  const id = tdField(() => tdIntField(o, 'message_id', true)!)
  if ('allow_sending_without_reply' in o && typeof o.allow_sending_without_reply !== 'boolean')
    throw badRequest('field "allow_sending_without_reply" must be of type Boolean')
  const quote = readQuote(o)
  tdField(() => tdIntField(o, 'checklist_task_id'))
  optionalString(o, 'poll_option_id')
  if (id <= 0) return undefined
  return {
    messageId: id,
    ...(chatId !== undefined ? {chatId} : {}),
    allowWithout: o.allow_sending_without_reply === true,
    ...(quote ? {quote} : {}),
  }
}

/** A td JsonObject reader's error as the server answers it (`Bad Request: field "X" must be a valid Number`). */
function tdField<T>(read: () => T): T {
  try {
    return read()
  } catch (err) {
    const text = errorText(err)
    throw badRequest(text[0].toLowerCase() + text.slice(1))
  }
}

/**
 * `quote`, `quote_parse_mode`, `quote_entities`, `quote_position` of reply_parameters, read in the order of
 * telegram-bot-api Client.cpp `Client::get_reply_parameters` (the quote is a formatted text as a message's is).
 */
function readQuote(o: TgObject): ReplyTarget['quote'] {
  const text = optionalString(o, 'quote')
  const parseMode = optionalString(o, 'quote_parse_mode')
  const entities = o.quote_entities === undefined ? undefined : JSON.stringify(o.quote_entities)
  const finish = formatText({raw: text ?? '', parseMode, entities, kind: 'caption'})
  const position = tdField(() => tdIntField(o, 'quote_position')) ?? 0
  if ((text ?? '') === '') return undefined
  return {finish, position}
}

function optionalString(o: TgObject, name: string): string | undefined {
  const v = o[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest(`field "${name}" must be of type String`)
  return typeof v === 'string' ? v : (integerFieldText(o, name) ?? String(v)) // a number's literal, as written
}

/** The entity types a quote keeps (td MessageQuote.cpp, the entities allowed in a quote). */
const QUOTE_ENTITIES = new Set(['bold', 'italic', 'underline', 'strikethrough', 'spoiler', 'custom_emoji'])

/** An entity of a stored message: its type, offset and length checked (the rest passed on as it is). */
const isEntity = (e: unknown): e is Entity =>
  isObject(e) && typeof e.type === 'string' && typeof e.offset === 'number' && typeof e.length === 'number'

/**
 * Message.quote (TextQuote) of a reply with reply_parameters.quote: the quoted part of the replied message's text
 * or caption, its formatting entities, its position, `is_manual`. A quote that is not part of that text is refused
 * by Telegram's server (QUOTE_TEXT_INVALID); of several occurrences, the one nearest to quote_position is taken.
 */
export function quoteOf(target: ReplyTarget | undefined, replied: Message | undefined): TgObject | undefined {
  if (!target?.quote || !replied) return undefined
  let quote: {text: string}
  try {
    quote = target.quote.finish()
  } catch (err) {
    if (err instanceof ApiError && /too long/.test(err.message)) throw badRequest('QUOTE_TEXT_INVALID')
    throw err
  }
  if (quote.text === '') return undefined
  const source = replied.text ?? replied.caption
  let best = -1
  for (let at = source?.indexOf(quote.text) ?? -1; at !== -1; at = source!.indexOf(quote.text, at + 1)) {
    if (best === -1 || Math.abs(at - target.quote.position) < Math.abs(best - target.quote.position)) best = at
  }
  if (best === -1) throw badRequest('QUOTE_TEXT_INVALID')
  const end = best + quote.text.length
  const stored = replied.entities ?? replied.caption_entities
  const entities = (Array.isArray(stored) ? stored : [])
    .filter(
      (e): e is Entity => isEntity(e) && QUOTE_ENTITIES.has(e.type) && e.offset < end && e.offset + e.length > best,
    )
    .map((e) => {
      const offset = Math.max(e.offset, best)
      return {...e, offset: offset - best, length: Math.min(e.offset + e.length, end) - offset}
    })
  return {
    text: quote.text,
    ...(entities.length > 0 ? {entities: entitiesJson(entities)} : {}),
    position: best,
    is_manual: true,
  }
}

const toBoolParam = (v: string | undefined): boolean => ['true', 'yes', '1'].includes((v ?? '').trim().toLowerCase())

/** The message replied to, or undefined (sent without a reply); `message to be replied not found` otherwise. */
export function repliedMessage(bot: BotState, chat: Chat, target: ReplyTarget | undefined): Message | undefined {
  if (!target) return undefined
  const inChat = target.chatId !== undefined ? bot.findChat(target.chatId) : chat
  if (!inChat) throw badRequest('chat not found')
  const replied = bot.message(inChat.id, target.messageId)
  if (!replied && !target.allowWithout) throw badRequest('message to be replied not found')
  return replied
}

/** The reply_markup parameter: read now; the inline keyboard the message keeps, once the chat is known. */
export function markupOf(params: Params): () => TgObject | undefined {
  const markup: Markup = readReplyMarkup(params.get('reply_markup'))
  return () => (markup && 'inline' in markup ? finishInlineKeyboard(markup.inline, markup.forceReply) : undefined)
}

/**
 * `link_preview_options` as the server reads it before the text (telegram-bot-api Client.cpp
 * `Client::get_link_preview_options`, called first by `get_input_message_text`): JSON, an object, its booleans
 * Booleans and its url a String (td JsonBuilder.cpp get_optional_bool_field / get_optional_string_field).
 */
export function checkLinkPreviewOptions(params: Params): void {
  const raw = params.get('link_preview_options') ?? ''
  if (raw === '') return
  const value = jsonArg(raw, "can't parse link preview options JSON object")
  if (!isObject(value)) throw badRequest('object expected as link preview options')
  const o = value
  for (const name of ['is_disabled', 'url', 'prefer_small_media', 'prefer_large_media', 'show_above_text']) {
    if (!(name in o)) continue
    const v = o[name]
    if (name === 'url') {
      if (typeof v !== 'string' && typeof v !== 'number') throw badRequest(`field "url" must be of type String`)
    } else if (typeof v !== 'boolean') throw badRequest(`field "${name}" must be of type Boolean`)
  }
}

/**
 * `suggested_post_parameters` as the server reads it for every send, copy and forward (telegram-bot-api Client.cpp
 * `Client::get_input_suggested_post_info`, after reply_parameters and before reply_markup): JSON, an object, its
 * send_date an int32 and its price an object with a currency (XTR or TON) and an amount (`get_suggested_post_price`),
 * in td's words (JsonBuilder.cpp get_optional_int_field, get_required_string_field, get_required_long_field).
 */
export function checkSuggestedPost(params: Params): void {
  const raw = params.get('suggested_post_parameters') ?? ''
  if (raw === '') return
  const value = jsonArg(raw, "can't parse suggested post parameters JSON object")
  if (!isObject(value)) throw badRequest('object expected as suggested post parameters')
  const tdError = (err: unknown): never => {
    const text = errorText(err)
    throw badRequest(text[0].toLowerCase() + text.slice(1))
  }
  // get_input_suggested_post_info: get_optional_int_field("send_date")
  try {
    tdIntField(value, 'send_date')
  } catch (err) {
    tdError(err)
  }
  if (!('price' in value)) return
  const price = value.price
  if (!isObject(price)) throw badRequest('field "price" must be of type Object')
  let currency: string
  let amount: number
  try {
    currency = stringField(price, 'currency')
    amount = longField(price, 'amount')
  } catch (err) {
    return tdError(err)
  }
  if (currency === 'TON') {
    if (amount % 10000000 !== 0) throw badRequest('suggested post price must be divisible by 10000000 nanotoncoins')
  } else if (currency !== 'XTR') throw badRequest('invalid suggested post price currency specified')
}
