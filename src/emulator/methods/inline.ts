/**
 * answerInlineQuery (Client.cpp process_answer_inline_query_query, get_inline_query_result): the button, then
 * each result read as the server reads it (`can't parse inline query result: …` with its reason: a missing required
 * field, an unsupported type, no message content for an article), at most 50; then the query itself (an unknown,
 * answered or expired id is QUERY_ID_INVALID) and duplicate result ids (RESULT_ID_DUPLICATE). The answer is kept for
 * the test to read (control API GET …/inline_queries/{id}, emu.inlineAnswer).
 */
import type {Handler} from './core.js'
import {ApiError, badRequest, errorText} from '../errors.js'
import {readReplyMarkupValue} from './keyboards.js'
import {QUERY_ID_INVALID} from './catalog/validate.js'
import {toBool} from '../http/params.js'
import type {TgObject} from '../types.js'
import {integerFieldText, parseJsonBounded, tdIntegerFieldText} from '../json.js'
import {labeledPrices} from './invoice-params.js'
import {integerArg, jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/**
 * The lifetime of an inline_query update (Client.cpp add_new_inline_query: 30 s): the emulator lets it be answered that
 * long.
 */
export const INLINE_QUERY_LIFETIME_MS = 30_000

class ResultError extends Error {}

/** td JsonObject::get_field: a field that is there, null too (a null String field is not a String). */
const has = (o: TgObject, name: string): boolean => Object.hasOwn(o, name)

function requiredString(o: TgObject, name: string): string {
  if (!has(o, name)) throw new ResultError(`Can't find field "${name}"`)
  if (typeof o[name] !== 'string' && typeof o[name] !== 'number')
    throw new ResultError(`Field "${name}" must be of type String`)
  return typeof o[name] === 'string' ? o[name] : (integerFieldText(o, name) ?? String(o[name])) // a number as written
}

function optionalString(o: TgObject, name: string): string {
  if (!has(o, name)) return ''
  return requiredString(o, name)
}

/** td get_required_double_field / get_optional_double_field: a Number, not a String holding one. */
function doubleField(o: TgObject, name: string, required: boolean): void {
  if (!(name in o)) {
    if (required) throw new ResultError(`Can't find field "${name}"`)
    return
  }
  if (typeof o[name] !== 'number') throw new ResultError(`Field "${name}" must be of type Number`)
}

/** td get_optional_int_field / get_optional_long_field, texts and all (json.ts tdIntegerFieldText). */
function integerFields(o: TgObject, names: string[], bits: 32 | 64 = 32): void {
  for (const name of names) {
    try {
      tdIntegerFieldText(o, name, bits)
    } catch (err) {
      throw new ResultError(errorText(err))
    }
  }
}

/** td get_optional_bool_field. */
function boolFields(o: TgObject, names: string[]): void {
  for (const name of names)
    if (name in o && typeof o[name] !== 'boolean') throw new ResultError(`Field "${name}" must be of type Boolean`)
}

/** Client::get_location of a JSON object: latitude and longitude, horizontal_accuracy. */
function location(o: TgObject): void {
  doubleField(o, 'latitude', true)
  doubleField(o, 'longitude', true)
  doubleField(o, 'horizontal_accuracy', false)
}

/** Client::get_venue: the location, then title and address. */
function venue(o: TgObject): void {
  location(o)
  requiredString(o, 'title')
  requiredString(o, 'address')
}

/**
 * InputMessageContent as Client.cpp get_input_message_content reads it: text, venue or location (both coordinates
 * there), contact, invoice; its integer fields with td's texts (live_period, heading, proximity_alert_radius;
 * max_tip_amount, photo_size, photo_width, photo_height).
 */
function checkContent(content: TgObject): void {
  if (optionalString(content, 'message_text') !== '') return
  if ('latitude' in content && 'longitude' in content) {
    if ('title' in content && 'address' in content) return venue(content)
    location(content)
    integerFields(content, ['live_period', 'heading', 'proximity_alert_radius'])
    return
  }
  if ('phone_number' in content) {
    requiredString(content, 'phone_number')
    requiredString(content, 'first_name')
    return
  }
  if ('payload' in content) {
    for (const name of ['title', 'description', 'payload']) requiredString(content, name)
    optionalString(content, 'provider_token')
    requiredString(content, 'currency')
    if (!('prices' in content)) throw new ResultError('Can\'t find field "prices"')
    if (!Array.isArray(content.prices)) throw new ResultError('Field "prices" must be of type Array')
    try {
      labeledPrices(content.prices)
    } catch (err) {
      throw new ResultError(errorText(err))
    }
    optionalString(content, 'provider_data')
    integerFields(content, ['max_tip_amount'], 64)
    if ('suggested_tip_amounts' in content && !Array.isArray(content.suggested_tip_amounts))
      throw new ResultError('Field "suggested_tip_amounts" must be of type Array')
    optionalString(content, 'photo_url')
    integerFields(content, ['photo_size', 'photo_width', 'photo_height'])
    return
  }
  throw new ResultError('Input message content is not specified')
}

/** One result as get_inline_query_result reads it; returns it. */
function checkResult(value: unknown): TgObject {
  if (!isObject(value)) throw new ResultError('Inline query result must be an object')
  const o = value
  const type = requiredString(o, 'type').toLowerCase()
  requiredString(o, 'id')
  const content = o.input_message_content
  if (has(o, 'input_message_content')) {
    if (!isObject(content)) throw new ResultError('Field "input_message_content" must be of type Object')
    checkContent(content)
  } else {
    // the older fields of a text result
    if (type === 'article') requiredString(o, 'message_text')
    else optionalString(o, 'message_text')
    boolFields(o, ['disable_web_page_preview'])
    optionalString(o, 'parse_mode')
  }
  optionalString(o, 'caption')
  optionalString(o, 'parse_mode')
  boolFields(o, ['show_caption_above_media'])
  if ('reply_markup' in o) {
    if (!isObject(o.reply_markup)) throw new ResultError('Field "reply_markup" must be of type Object')
    try {
      readReplyMarkupValue(o.reply_markup) // get_reply_markup: its own texts, inside this result's
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      const text = err.description.replace(/^Bad Request: /, '')
      throw new ResultError(text[0].toUpperCase() + text.slice(1))
    }
  }
  // thumbnail_* or, when none of the three is there, the older thumb_*
  const thumb = ['thumbnail_url', 'thumbnail_width', 'thumbnail_height'].some((name) => name in o)
    ? 'thumbnail'
    : 'thumb'
  optionalString(o, `${thumb}_url`)
  integerFields(o, [`${thumb}_width`, `${thumb}_height`])
  // the fields of each type in get_inline_query_result's order: a file_id is required when the URL is empty
  switch (type) {
    case 'article':
      optionalString(o, 'url')
      boolFields(o, ['hide_url'])
      requiredString(o, 'title')
      optionalString(o, 'description')
      break
    case 'audio': {
      const url = optionalString(o, 'audio_url')
      integerFields(o, ['audio_duration'])
      if (url !== '') requiredString(o, 'title')
      else optionalString(o, 'title')
      optionalString(o, 'performer')
      if (url === '') requiredString(o, 'audio_file_id')
      break
    }
    case 'contact':
      requiredString(o, 'phone_number')
      requiredString(o, 'first_name')
      optionalString(o, 'last_name')
      optionalString(o, 'vcard')
      break
    case 'document': {
      requiredString(o, 'title')
      optionalString(o, 'description')
      const url = optionalString(o, 'document_url')
      if (url !== '') requiredString(o, 'mime_type')
      else requiredString(o, 'document_file_id')
      break
    }
    case 'game':
      requiredString(o, 'game_short_name')
      break
    case 'gif':
    case 'mpeg4_gif': {
      const prefix = type === 'gif' ? 'gif' : 'mpeg4'
      optionalString(o, 'title')
      const url = optionalString(o, `${prefix}_url`)
      optionalString(o, 'thumbnail_mime_type' in o ? 'thumbnail_mime_type' : 'thumb_mime_type')
      integerFields(o, [`${prefix}_duration`, `${prefix}_width`, `${prefix}_height`])
      if (url === '') requiredString(o, `${prefix}_file_id`)
      break
    }
    case 'location':
      location(o)
      integerFields(
        o,
        !has(o, 'input_message_content') ? ['live_period', 'heading', 'proximity_alert_radius'] : ['live_period'],
      )
      requiredString(o, 'title')
      break
    case 'photo': {
      optionalString(o, 'title')
      optionalString(o, 'description')
      const url = optionalString(o, 'photo_url')
      integerFields(o, ['photo_width', 'photo_height'])
      if (url === '') requiredString(o, 'photo_file_id')
      break
    }
    case 'sticker':
      requiredString(o, 'sticker_file_id')
      break
    case 'venue':
      venue(o)
      break
    case 'video': {
      requiredString(o, 'title')
      optionalString(o, 'description')
      const url = optionalString(o, 'video_url')
      if (url !== '') requiredString(o, 'mime_type')
      else optionalString(o, 'mime_type')
      integerFields(o, ['video_width', 'video_height', 'video_duration', 'video_start_timestamp'])
      if (url === '') requiredString(o, 'video_file_id')
      break
    }
    case 'voice': {
      requiredString(o, 'title')
      const url = optionalString(o, 'voice_url')
      integerFields(o, ['voice_duration'])
      if (url === '') requiredString(o, 'voice_file_id')
      break
    }
    default:
      throw new ResultError(`type "${type}" is unsupported for the inline query result`)
  }
  return o
}

function readResults(raw: string | undefined): TgObject[] {
  if (raw === undefined || raw === '') return []
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch (err) {
    throw badRequest(`can't parse JSON encoded inline query results: ${errorText(err)}`)
  }
  if (value === null) return []
  if (!Array.isArray(value)) throw badRequest('expected an Array of inline query results')
  if (value.length > 50) throw badRequest('too many inline query results specified')
  return value.map((item) => {
    try {
      return checkResult(item)
    } catch (err) {
      if (err instanceof ResultError) throw badRequest(`can't parse inline query result: ${err.message}`)
      throw err
    }
  })
}

export const answerInlineQuery: Handler = (bot, params) => {
  const rawButton = params.get('button')
  const button = rawButton ? jsonArg(rawButton, "can't parse inline query results button JSON object") : undefined
  const results = readResults(params.get('results'))
  const id = params.get('inline_query_id') ?? ''
  const state = bot.inline.queries.get(id)
  const lifetime = INLINE_QUERY_LIFETIME_MS * bot.lifetimeScale
  if (!state || state.answer || Date.now() - state.madeAt > lifetime) throw badRequest(QUERY_ID_INVALID)
  const ids = results.map((r) => String(r.id))
  if (new Set(ids).size !== ids.length) throw badRequest('RESULT_ID_DUPLICATE')
  // process_answer_inline_query_query: get_integer_arg(query, "cache_time", 300, 0, 24 * 60 * 60)
  const cache = integerArg(params, 'cache_time', 300, 0, 86400)
  const switchPm = params.get('switch_pm_text')
  state.answer = {
    results,
    cache_time: params.get('cache_time') === undefined ? 300 : cache,
    is_personal: toBool(params.get('is_personal')),
    next_offset: params.get('next_offset') ?? '',
    ...(button
      ? {button}
      : switchPm
        ? {button: {text: switchPm, start_parameter: params.get('switch_pm_parameter') ?? ''}}
        : {}),
  }
  return {result: true}
}

export const INLINE_METHODS: Record<string, Handler> = {answerinlinequery: answerInlineQuery}
