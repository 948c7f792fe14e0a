/**
 * answerInlineQuery (Client.cpp process_answer_inline_query_query, get_inline_query_result): the button, then
 * each result read as the server reads it (`can't parse inline query result: …` with its reason: a missing required
 * field, an unsupported type, no message content for an article), at most 50; then the query itself (an unknown,
 * answered or expired id is QUERY_ID_INVALID) and duplicate result ids (RESULT_ID_DUPLICATE). The answer is kept for
 * the test to read (control API GET …/inline_queries/{id}, emu.inlineAnswer).
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {QUERY_ID_INVALID} from './catalog/validate.js'
import {toBool} from '../http/params.js'
import type {TgObject} from '../types.js'
import {parseJsonBounded} from '../json.js'
import {integerArg} from './args.js'

/**
 * The lifetime of an inline_query update (Client.cpp add_new_inline_query: 30 s): the emulator lets it be answered that
 * long.
 */
export const INLINE_QUERY_LIFETIME_MS = 30_000

class ResultError extends Error {}

const has = (o: TgObject, name: string): boolean => o[name] !== undefined && o[name] !== null

function requiredString(o: TgObject, name: string): string {
  if (!has(o, name)) throw new ResultError(`Can't find field "${name}"`)
  if (typeof o[name] !== 'string' && typeof o[name] !== 'number')
    throw new ResultError(`Field "${name}" must be of type String`)
  return String(o[name])
}

function optionalString(o: TgObject, name: string): string {
  if (!has(o, name)) return ''
  if (typeof o[name] !== 'string' && typeof o[name] !== 'number')
    throw new ResultError(`Field "${name}" must be of type String`)
  return String(o[name])
}

function requiredNumber(o: TgObject, name: string): void {
  if (!has(o, name)) throw new ResultError(`Can't find field "${name}"`)
  if (typeof o[name] !== 'number' && !(typeof o[name] === 'string' && Number.isFinite(Number(o[name]))))
    throw new ResultError(`Field "${name}" must be a valid Number`)
}

/** InputMessageContent: text, location/venue, contact or invoice (BA get_input_message_content). */
function checkContent(content: TgObject): void {
  if (optionalString(content, 'message_text') !== '') return
  if (has(content, 'latitude') || has(content, 'longitude')) {
    requiredNumber(content, 'latitude')
    requiredNumber(content, 'longitude')
    if (has(content, 'title') || has(content, 'address')) {
      requiredString(content, 'title')
      requiredString(content, 'address')
    }
    return
  }
  if (has(content, 'phone_number')) {
    requiredString(content, 'first_name')
    return
  }
  if (has(content, 'payload')) return
  throw new ResultError('Input message content is not specified')
}

/** One result as get_inline_query_result reads it; returns its id. */
function checkResult(value: unknown): string {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ResultError('Inline query result must be an object')
  const o = value as TgObject
  const type = requiredString(o, 'type').toLowerCase()
  const id = requiredString(o, 'id')
  const content = o.input_message_content
  if (content !== undefined && content !== null) {
    if (typeof content !== 'object' || Array.isArray(content))
      throw new ResultError('Field "input_message_content" must be of type Object')
    checkContent(content as TgObject)
  } else if (type === 'article') requiredString(o, 'message_text')
  if (o.reply_markup !== undefined && (typeof o.reply_markup !== 'object' || o.reply_markup === null))
    throw new ResultError('Field "reply_markup" must be of type Object')
  const url = (name: string, fileId: string, whenUrl: string[] = []): void => {
    if (optionalString(o, name) === '') requiredString(o, fileId)
    else for (const field of whenUrl) requiredString(o, field)
  }
  switch (type) {
    case 'article':
      requiredString(o, 'title')
      break
    case 'audio':
      url('audio_url', 'audio_file_id', ['title'])
      break
    case 'contact':
      requiredString(o, 'phone_number')
      requiredString(o, 'first_name')
      break
    case 'document':
      requiredString(o, 'title')
      url('document_url', 'document_file_id', ['mime_type'])
      break
    case 'game':
      requiredString(o, 'game_short_name')
      break
    case 'gif':
      url('gif_url', 'gif_file_id')
      break
    case 'location':
      requiredNumber(o, 'latitude')
      requiredNumber(o, 'longitude')
      requiredString(o, 'title')
      break
    case 'mpeg4_gif':
      url('mpeg4_url', 'mpeg4_file_id')
      break
    case 'photo':
      url('photo_url', 'photo_file_id')
      break
    case 'sticker':
      requiredString(o, 'sticker_file_id')
      break
    case 'venue':
      requiredNumber(o, 'latitude')
      requiredNumber(o, 'longitude')
      requiredString(o, 'title')
      requiredString(o, 'address')
      break
    case 'video':
      requiredString(o, 'title')
      url('video_url', 'video_file_id', ['mime_type'])
      break
    case 'voice':
      requiredString(o, 'title')
      url('voice_url', 'voice_file_id')
      break
    default:
      throw new ResultError(`type "${type}" is unsupported for the inline query result`)
  }
  return id
}

function readResults(raw: string | undefined): TgObject[] {
  if (raw === undefined || raw === '') return []
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch (err) {
    throw badRequest(`can't parse JSON encoded inline query results: ${(err as Error).message}`)
  }
  if (value === null) return []
  if (!Array.isArray(value)) throw badRequest('expected an Array of inline query results')
  if (value.length > 50) throw badRequest('too many inline query results specified')
  for (const item of value) {
    try {
      checkResult(item)
    } catch (err) {
      if (err instanceof ResultError) throw badRequest(`can't parse inline query result: ${err.message}`)
      throw err
    }
  }
  return value as TgObject[]
}

export const answerInlineQuery: Handler = (bot, params) => {
  const rawButton = params.get('button')
  let button: unknown
  if (rawButton) {
    try {
      button = parseJsonBounded(rawButton)
    } catch {
      throw badRequest("can't parse inline query results button JSON object")
    }
  }
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
