/**
 * InputMedia as BA get_input_media reads it (sendMediaGroup's items, editMessageMedia's media): a JSON object with
 * `type`, `media` (a file_id, URL or `attach://<field>`), a caption with its formatting, a thumbnail upload, and the
 * attributes of its kind. A refusal is an Error whose message is the server's reason; callers add their prefix.
 */
import {entitiesJson, formatText} from '../format/index.js'
import {ApiError} from '../errors.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {tdIntField} from '../json.js'
import {type FileRef, fileRef} from './input.js'
import {isObject} from '../telegram.js'

export interface InputMedia {
  type: 'photo' | 'video' | 'animation' | 'audio' | 'document'
  ref: NonNullable<FileRef>
  /** The thumbnail upload (`attach://` only, as the server takes it). */
  thumbnail?: FileRef
  /** The caption's message fields (td's checks run when this is called). */
  caption: () => TgObject
  showCaptionAboveMedia: boolean
  hasSpoiler: boolean
  /** width, height, duration, title, performer as given. */
  attributes: {width?: number; height?: number; duration?: number; title?: string; performer?: string}
}

const TYPES: ReadonlySet<string> = new Set<InputMedia['type']>(['photo', 'video', 'animation', 'audio', 'document'])
const isMediaType = (type: string): type is InputMedia['type'] => TYPES.has(type)

/** td's description of an ApiError, as a reason inside another message (`Can't parse entities: …`). */
export const reasonOf = (err: ApiError): string => {
  const text = err.description.replace(/^Bad Request: /, '')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

const optionalString = (o: TgObject, name: string): string | undefined => {
  const v = o[name]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new Error(`Field "${name}" must be of type String`)
  return v
}

const optionalInt = (o: TgObject, name: string): number | undefined => {
  // JsonObject::get_optional_int_field (json.ts tdIntField): the number as written, td::to_integer_safe (`1.0`, `""`
  // refused), null is a field that is not a Number
  const n = tdIntField(o, name)
  return n === undefined ? undefined : Math.max(0, n)
}

/** One InputMedia; `forAlbum`: sendMediaGroup's rules (no animation). */
export function readInputMedia(params: Params, value: unknown, forAlbum: boolean): InputMedia {
  if (!isObject(value)) throw new Error('expected an Object')
  const o = value
  const rawCaption = optionalString(o, 'caption')
  const parseMode = optionalString(o, 'parse_mode')
  let captionFields: () => TgObject
  try {
    const formatted = formatText({
      raw: rawCaption ?? '',
      kind: 'caption',
      parseMode,
      entities: o.caption_entities === undefined ? undefined : JSON.stringify(o.caption_entities),
    })
    captionFields = () => {
      const {text, entities} = formatted()
      return text === ''
        ? {}
        : {caption: text, ...(entities.length > 0 ? {caption_entities: entitiesJson(entities)} : {})}
    }
  } catch (err) {
    if (err instanceof ApiError) throw new Error(reasonOf(err))
    throw err
  }
  const showCaptionAboveMedia = o.show_caption_above_media === true || o.show_caption_above_media === 'true'
  const hasSpoiler = o.has_spoiler === true || o.has_spoiler === 'true'
  if (!('type' in o)) throw new Error('Can\'t find field "type"')
  const type = optionalString(o, 'type') ?? ''
  const media = optionalString(o, 'media')
  const ref = fileRef(params, '', media ?? '')
  if (!ref) throw new Error('media not found')
  if (type === 'animation' && forAlbum) throw new Error(`type "${type}" can't be used in sendMediaGroup`)
  if (!isMediaType(type)) throw new Error(`type "${type}" is unsupported`)
  const thumb = optionalString(o, 'thumbnail') ?? optionalString(o, 'thumb')
  const thumbnail = thumb?.startsWith('attach://') ? fileRef(params, '', thumb) : undefined
  return {
    type,
    ref,
    ...(thumbnail ? {thumbnail} : {}),
    caption: captionFields,
    showCaptionAboveMedia,
    hasSpoiler,
    attributes: {
      width: optionalInt(o, 'width'),
      height: optionalInt(o, 'height'),
      duration: optionalInt(o, 'duration'),
      title: optionalString(o, 'title'),
      performer: optionalString(o, 'performer'),
    },
  }
}
