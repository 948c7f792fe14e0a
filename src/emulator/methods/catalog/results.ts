/**
 * A value of a documented type, for the methods the emulator answers generically: every field the Bot API marks as
 * always present, filled from what the call said where a parameter has the field's name (a ChatInviteLink's `name`,
 * a StickerSet's `title`, a Venue's `latitude`…), else with a plausible value (0, '', false, [] or the object's own
 * required fields). Optional fields are left out, as the server leaves out what it does not have.
 */
import {randomBytes} from 'node:crypto'
import type {TgObject} from '../../types.js'
import {typeSpec, variantOf} from './index.js'

export interface Fill {
  /** Values by field name (the call's parameters, decoded). */
  values: Record<string, unknown>
  /** Objects to use for a type, e.g. `User` → the bot, `Chat` → the chat of the call. */
  objects?: Partial<Record<string, TgObject>>
}

const MAX_DEPTH = 6

/** A value of the type expression `type` (`Integer`, `Array of Sticker`, `ChatInviteLink`, `Message or Boolean`…). */
export function valueOf(type: string, fill: Fill, depth = 0): unknown {
  const or = type.indexOf(' or ')
  if (or >= 0) return valueOf(type.slice(0, or), fill, depth)
  if (type.startsWith('Array of ')) return []
  switch (type) {
    case 'Boolean':
    case 'True':
      return true
    case 'Integer':
    case 'Float':
      return 0
    case 'String':
      return ''
  }
  const given = fill.objects?.[type]
  if (given) return given
  return objectOf(type, fill, depth)
}

/** An object of a named type with its always-present fields (a one-of type: its first variant). */
export function objectOf(name: string, fill: Fill, depth = 0, variant?: string): TgObject {
  const spec = variant !== undefined ? (variantOf(name, variant) ?? typeSpec(name)) : typeSpec(name)
  if (!spec) return {}
  if ('oneOf' in spec) return objectOf(spec.oneOf[0], fill, depth)
  const out: TgObject = {}
  for (const field of spec.fields) {
    if (field.constant !== undefined) {
      out[field.name] = field.constant
      continue
    }
    const given = fill.values[field.name]
    if (given !== undefined && given !== '' && fits(field.type, given)) {
      out[field.name] = coerce(field.type, given)
      continue
    }
    if (!field.required) continue
    if (depth >= MAX_DEPTH) continue
    out[field.name] = plausible(field.name, field.type, fill, depth + 1)
  }
  return out
}

/** A field nobody gave: an id, a date, false, 0, '', [] or the object's own always-present fields. */
function plausible(name: string, type: string, fill: Fill, depth: number): unknown {
  if (type === 'String') return name.endsWith('_id') ? randomBytes(12).toString('base64url') : ''
  if (type === 'Integer' && name.endsWith('date')) return Math.floor(Date.now() / 1000)
  if (type === 'Boolean') return false
  return valueOf(type, fill, depth)
}

function fits(type: string, value: unknown): boolean {
  switch (type) {
    case 'Integer':
    case 'Float':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && isNumeric(value))
    case 'Boolean':
      return typeof value === 'boolean' || (typeof value === 'string' && /^(true|false|1|0)$/i.test(value.trim()))
    case 'String':
      return typeof value === 'string'
    default:
      if (type.startsWith('Array of ')) return Array.isArray(value)
      return value !== null && typeof value === 'object' && !Array.isArray(value)
  }
}

const isNumeric = (text: string): boolean => /^\s*-?\d+(\.\d+)?\s*$/.test(text)

function coerce(type: string, value: unknown): unknown {
  if ((type === 'Integer' || type === 'Float') && typeof value === 'string') return Number(value)
  if (type === 'Boolean' && typeof value === 'string') return /^(true|1)$/i.test(value.trim())
  return value
}
