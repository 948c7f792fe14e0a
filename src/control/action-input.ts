/**
 * A user action's input (JSON, as `POST /actions/{name}` and `bot mcp` send it) as the session reads it before the
 * table's own check: its integer ids, its reactions, and which fields the table's entry has.
 */
import {listActions} from '../emulator/actions/index.js'
import {ActionError} from './protocol.js'
import type {JsonObject as Json} from './requests.js'
import {isJsonObject} from '../lib/json-object.js'

/** An integer field of the input, or undefined when it is absent; 400 when it is something else. */
export function intOf(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  throw new ActionError(400, `${name} ${JSON.stringify(value)} is not an integer.`, `Pass ${name} as a number.`)
}

/** Reactions as emoji strings or ReactionType objects (a single emoji string too). */
export function reactionOf(value: unknown): unknown {
  const list = typeof value === 'string' ? [value] : value === undefined ? ['👍'] : value
  if (!Array.isArray(list)) return list
  return list.map((r) => (typeof r === 'string' ? {type: 'emoji', emoji: r} : r))
}

/** The fields of the table's action `name` (its input schema's properties). */
export function paramsOf(name: string): Json {
  const properties = listActions().find((a) => a.name === name)?.params.properties
  return isJsonObject(properties) ? properties : {}
}

export function hasField(name: string, field: string): boolean {
  return Object.hasOwn(paramsOf(name), field)
}
