/**
 * `entities` / `caption_entities` given explicitly (Client.cpp get_formatted_text): read as the Bot API server reads
 * them (errors `can't parse MessageEntity: …`, auto-detected types dropped), then checked against the text as td does.
 */
import {type Entity, FormatError} from './entity.js'
import {checkedLink} from './links.js'
import {parseJsonBounded, tdIntegerFieldText} from '../json.js'
import {isObject} from '../telegram.js'
import {errorText} from '../errors.js'

/** An error the client sees as `Bad Request: can't parse MessageEntity: <message>`. */
export class EntityError extends Error {}

/** A td error about explicit entities: the client sees `Bad Request: <message, first letter lower-cased>`. */
export class TdError extends FormatError {}

const DROPPED = new Set([
  'mention',
  'hashtag',
  'cashtag',
  'bot_command',
  'url',
  'email',
  'phone_number',
  'bank_card_number',
])
const PLAIN = new Set([
  'bold',
  'italic',
  'underline',
  'strikethrough',
  'spoiler',
  'code',
  'blockquote',
  'expandable_blockquote',
])

type Json = Record<string, unknown>

/** A required int or long field, as its decimal text (exact for a long). */
function intFieldText(o: Json, name: string, bits: 32 | 64): string {
  // td JsonObject::get_required_int_field / …_long_field, texts and all: the number as written (`1.0`, `-0`, `007` refused)
  try {
    return tdIntegerFieldText(o, name, bits, true)!
  } catch (err) {
    throw new EntityError(errorText(err))
  }
}

function stringField(o: Json, name: string, required: boolean): string | undefined {
  if (!(name in o)) {
    if (required) throw new EntityError(`Can't find field "${name}"`)
    return undefined
  }
  const v = o[name]
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  throw new EntityError(`Field "${name}" must be of type String`)
}

/** One MessageEntity as the server reads it, or undefined for a type it drops. */
function readEntity(value: unknown): Entity | undefined {
  if (!isObject(value)) throw new EntityError('expected an Object')
  const o = value
  const offset = Number(intFieldText(o, 'offset', 32))
  const length = Number(intFieldText(o, 'length', 32))
  const type = stringField(o, 'type', true)!
  if (type === '') throw new EntityError('Type is not specified')
  if (PLAIN.has(type)) return {type, offset, length}
  switch (type) {
    case 'pre': {
      const language = stringField(o, 'language', false)
      return {type, offset, length, ...(language ? {language} : {})}
    }
    case 'text_link':
      return {type, offset, length, url: stringField(o, 'url', true)}
    case 'text_mention': {
      if (!('user' in o)) throw new EntityError('Can\'t find field "user"')
      const user = o.user
      if (!isObject(user)) throw new EntityError('Field "user" must be of type Object')
      return {type, offset, length, user: {id: Number(intFieldText(user, 'id', 64))}}
    }
    case 'custom_emoji':
      return {type, offset, length, custom_emoji_id: intFieldText(o, 'custom_emoji_id', 64)}
    case 'date_time': {
      const unix = Number(intFieldText(o, 'unix_time', 32))
      const format = stringField(o, 'date_time_format', false) ?? ''
      if (format !== '' && format !== 'r' && format !== 'R' && !/^[tTdDwW]+$/.test(format)) {
        throw new EntityError('Invalid date-time format specified')
      }
      return {type, offset, length, unix_time: unix, ...(format ? {date_time_format: format} : {})}
    }
    default:
      if (DROPPED.has(type)) return undefined
      throw new EntityError('Unsupported type specified')
  }
}

/**
 * The entities of a raw `entities` parameter as the Bot API server reads them. Not JSON or not an array: none (the
 * server ignores it). Throws EntityError.
 */
export function readExplicitEntities(raw: string | undefined): Entity[] {
  if (raw === undefined || raw === '') return []
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch {
    return []
  }
  if (!Array.isArray(value)) return []
  const entities: Entity[] = []
  for (const item of value) {
    const e = readEntity(item)
    if (e) entities.push(e)
  }
  return entities
}

/** td's checks of explicit entities against the text; throws TdError (reported without a prefix). */
export function checkExplicitEntities(entities: Entity[], text: string): Entity[] {
  for (const e of entities) {
    if (e.offset < 0 || e.offset > 1_000_000) throw new TdError(`Receive an entity with incorrect offset ${e.offset}`)
    if (e.length < 0 || e.length > 1_000_000) throw new TdError(`Receive an entity with incorrect length ${e.length}`)
  }
  const kept = entities.filter((e) => e.length > 0 && !(e.type === 'text_link' && e.url === ''))
  const sorted = [...kept].sort((a, b) => a.offset - b.offset || b.length - a.length)
  const inPair = (i: number): boolean =>
    i > 0 &&
    i < text.length &&
    text.charCodeAt(i - 1) >= 0xd800 &&
    text.charCodeAt(i - 1) <= 0xdbff &&
    text.charCodeAt(i) >= 0xdc00 &&
    text.charCodeAt(i) <= 0xdfff
  const byteOffset = (i: number): number => Buffer.byteLength(text.slice(0, i + 1))
  for (const e of sorted) {
    if (e.offset > text.length)
      throw new TdError(`Entity begins after the end of the text at UTF-16 offset ${e.offset}`)
    if (inPair(e.offset))
      throw new TdError(`Entity begins in a middle of a UTF-16 symbol at byte offset ${byteOffset(e.offset)}`)
  }
  for (const e of sorted) {
    const end = e.offset + e.length
    if (end > text.length)
      throw new TdError(
        `Entity beginning at UTF-16 offset ${e.offset} ends after the end of the text at UTF-16 offset ${end}`,
      )
    if (inPair(end))
      throw new TdError(
        `Entity beginning at UTF-16 offset ${e.offset} ends in a middle of a UTF-16 symbol at byte offset ${byteOffset(end)}`,
      )
  }
  for (const e of kept) {
    if (e.type === 'text_link') {
      const url = checkedLink(e.url!)
      if (url === '') e.length = 0
      else e.url = url
    }
  }
  return kept.filter((e) => e.length > 0)
}
