/**
 * Parameters as the Bot API server reads them: required strings, booleans, clamped integers, user ids (BA
 * `get_required_string_arg` 12367, `to_bool` 9357, `get_integer_arg` 12360, `get_user_id` 12451), and the fields of
 * JSON objects as td reads them (TD `JsonBuilder.cpp`). Errors carry the server's texts.
 */
import {badRequest} from '../errors.js'
import type {Params} from '../http/params.js'
import {integerFieldText, parseJsonBounded, tdIntegerFieldText} from '../json.js'
import {toInteger} from '../integer.js'
import {isObject} from '../telegram.js'

/** True for `true`, `yes` or `1` (any case, trimmed). */
export const toBool = (v: string | undefined): boolean => ['true', 'yes', '1'].includes((v ?? '').trim().toLowerCase())

/** A required string parameter: missing or empty → `parameter "X" is required` (BA get_required_string_arg). */
export function required(params: Params, name: string): string {
  const value = params.get(name) ?? ''
  if (value === '') throw badRequest(`parameter "${name}" is required`)
  return value
}

/**
 * td's `to_integer_safe<int64>` (tdutils misc.h; its error from misc.cpp get_to_integer_safe_error): the integer's own
 * decimal form within int64, else `Can't parse as an integer string "x"` (callers answer their own texts).
 */
export function int64Text(text: string): string {
  const ok = /^(0|-?[1-9]\d*)$/.test(text) && BigInt(text) >= -(2n ** 63n) && BigInt(text) < 2n ** 63n
  if (!ok) throw new Error(`Can't parse as an integer string "${text}"`)
  return BigInt(text).toString()
}

/** The same, as a number (exact up to 2^53; larger values are beyond every amount the emulator checks). */
export function integerSafe(text: string): number {
  return Number(int64Text(text))
}

/**
 * A JSON object's required long field as td reads it, as its decimal text (a Number as written, or a String holding
 * one): td JsonObject::get_required_long_field's texts (json.ts tdIntegerFieldText), `Field "amount" must be a valid
 * Number` for `50.0` or `"abc"`.
 */
export function longFieldText(o: Record<string, unknown>, name: string): string {
  return tdIntegerFieldText(o, name, 64, true)!
}

/** A JSON object's long field as td reads it (a Number, or a String holding one). */
export function longField(o: Record<string, unknown>, name: string): number {
  return Number(longFieldText(o, name))
}

/** A JSON object's string field as td reads it (a String, or a Number taken as its text). */
export function stringField(o: Record<string, unknown>, name: string): string {
  if (!(name in o)) throw new Error(`Can't find field "${name}"`)
  const v = o[name]
  if (typeof v === 'string') return v
  if (typeof v === 'number') return integerFieldText(o, name) ?? String(v) // its literal, as written
  throw new Error(`Field "${name}" must be of type String`)
}

/**
 * A JSON parameter's value (bounded as json.ts parseJsonBounded reads it), or `Bad Request: <error>` when it is not
 * JSON: the server's text names the parameter its own way (`can't parse media JSON object`, `can't parse input media
 * JSON object`, …).
 */
export function jsonArg(raw: string, error: string): unknown {
  try {
    return parseJsonBounded(raw)
  } catch {
    throw badRequest(error)
  }
}

/** The bounds of an int32 (get_integer_arg's default min and max). */
export const INT32_MIN = -2147483648
export const INT32_MAX = 2147483647

/**
 * BA `Client::get_strings`: a JSON array of at most `max` strings; empty → none. Its texts: `can't parse <name> JSON
 * object`, `expected an Array of String`, `too many items specified`.
 */
export function stringsParam(params: Params, name: string, max: number): string[] {
  const raw = params.get(name) ?? ''
  if (raw === '') return []
  const value = jsonArg(raw, `can't parse ${name} JSON object`)
  if (!Array.isArray(value)) throw badRequest('expected an Array of String')
  if (value.length > max) throw badRequest('too many items specified')
  return value.map((item: unknown) => {
    if (typeof item !== 'string') throw badRequest('expected an Array of String')
    return item
  })
}

/** BA `get_integer_arg`: empty → default, else the integer clamped to [min, max]. */
export function integerArg(params: Params, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name) ?? ''
  if (raw === '') return fallback
  return Math.min(max, Math.max(min, toInteger(raw, 32)))
}

/** An int32 parameter as `td::to_integer<int32>` reads it (Client::get_message_id and others): absent → 0. */
export const int32Param = (params: Params, name: string): number => toInteger(params.get(name) ?? '', 32)

/** BA `get_user_id`: a positive id, else `invalid user_id specified`. */
export function userIdParam(params: Params, name = 'user_id'): number {
  const n = toInteger(params.get(name) ?? '')
  if (n <= 0) throw badRequest(`invalid ${name} specified`)
  return n
}

/**
 * The `permissions` parameter, a ChatPermissions object (BA `get_chat_permissions`): its `can_*` fields, each a
 * Boolean; setChatPermissions and restrictChatMember read it alike.
 */
export function permissionsArg(params: Params): Record<string, boolean> {
  const value = jsonArg(params.get('permissions') ?? '', "can't parse permissions JSON object")
  if (!isObject(value)) throw badRequest('object expected as permissions')
  const permissions: Record<string, boolean> = {}
  for (const [name, v] of Object.entries(value)) {
    if (!name.startsWith('can_')) continue
    if (typeof v !== 'boolean')
      throw badRequest(`can't parse chat permissions: Field "${name}" must be of type Boolean`)
    permissions[name] = v
  }
  return permissions
}
