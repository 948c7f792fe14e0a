/**
 * The parameters of a user action: each one a valibot schema that checks and converts a raw value (a JSON body's
 * field, a route's path segment, an MCP tool's argument) and fails in our own words, plus the JSON Schema and the
 * one-line description a caller that lists the actions is shown (the chat page, MCP tools).
 */
import * as v from 'valibot'
import {isObject} from '../telegram.js'
import {errorText} from '../errors.js'

/** A JSON Schema fragment (draft 2020-12 keywords only), as MCP tools and forms read it. */
export type JsonSchema = Record<string, unknown>

/** Where a value came from: a path segment of a control API route is text, and its error says "in the path". */
export type Source = 'input' | 'path'

/** A field whose value is a `T`; `Required` says (to TypeScript too) whether the input must have it. */
export interface Field<T = unknown, Required extends boolean = boolean> {
  /** The checker for the field named `name`: its issues are our error texts. */
  schema(name: string, source: Source): v.GenericSchema<unknown, T | undefined>
  json: JsonSchema
  description: string
  required: Required
}

/** The checked values an action's `read` gets for its params: a required field's value, an optional one's or undefined. */
export type FieldValues<P extends Record<string, Field>> = {
  [K in keyof P]: P[K] extends Field<infer T, infer Required> ? (Required extends true ? T : T | undefined) : never
}

/** What a field is told: its JSON Schema, its description and, for a required field, the text when it is missing. */
interface FieldSpec {
  json: JsonSchema
  description: string
  missing?: (name: string) => string
}

/** A failed check: the text a caller sees, and the status the control API answers with (404: no such thing). */
export class InputError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message)
  }
}

/**
 * A field from a reader: `read(value, name, source)` returns the value as the action takes it or throws an
 * InputError. An absent value (undefined or null) is `undefined`, or fails with `missing` when the field is required.
 */
export function field<T>(
  spec: FieldSpec & {missing: (name: string) => string},
  read: (value: unknown, name: string, source: Source) => T,
): Field<T, true>
export function field<T>(
  spec: FieldSpec & {missing?: undefined},
  read: (value: unknown, name: string, source: Source) => T,
): Field<T, false>
export function field<T>(spec: FieldSpec, read: (value: unknown, name: string, source: Source) => T): Field<T>
export function field<T>(spec: FieldSpec, read: (value: unknown, name: string, source: Source) => T): Field<T> {
  return {
    json: spec.json,
    description: spec.description,
    required: spec.missing !== undefined,
    schema: (name, source) =>
      v.pipe(
        v.unknown(),
        v.rawTransform(({dataset, addIssue, NEVER}) => {
          const value = dataset.value
          if (value === undefined || value === null) {
            if (!spec.missing) return undefined
            addIssue({message: spec.missing(name)})
            return NEVER
          }
          try {
            return read(value, name, source)
          } catch (err) {
            addIssue({message: errorText(err)})
            return NEVER
          }
        }),
      ),
  }
}

type IntRule = {min?: number; nonZero?: boolean}

/** An integer (a JSON number, or its digits as text: a form field, a path segment). */
export function int(description: string, rule: IntRule & {required: true}): Field<number, true>
export function int(description: string, rule?: IntRule & {required?: false}): Field<number, false>
export function int(description: string, rule: IntRule & {required?: boolean} = {}): Field<number> {
  const json: JsonSchema = {type: 'integer', ...(rule.min !== undefined ? {minimum: rule.min} : {})}
  return field(
    {json, description, ...(rule.required ? {missing: (name) => `${name} is required (an integer)`} : {})},
    (value, name, source) => {
      const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value
      if (source === 'path') {
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || (rule.nonZero && n === 0) || n < (rule.min ?? n)) {
          const want = rule.min !== undefined ? `an integer ≥ ${rule.min}` : 'a non-zero integer'
          throw new InputError(`${name} "${String(value)}" in the path must be ${want}`)
        }
        return n
      }
      if (typeof n !== 'number' || !Number.isSafeInteger(n))
        throw new InputError(`${name} ${JSON.stringify(value)} must be an integer`)
      if (rule.min !== undefined && n < rule.min) throw new InputError(`${name} ${n} must be ≥ ${rule.min}`)
      if (rule.nonZero && n === 0) throw new InputError(`${name} must not be 0`)
      return n
    },
  )
}

/** A non-empty string. */
export function text(description: string, rule: {required: true}): Field<string, true>
export function text(description: string, rule?: {required?: false}): Field<string, false>
export function text(description: string, rule: {required?: boolean} = {}): Field<string> {
  return field(
    {
      json: {type: 'string', minLength: 1},
      description,
      ...(rule.required ? {missing: (name) => `${name} is required (a non-empty string)`} : {}),
    },
    (value, name) => {
      if (typeof value !== 'string' || value === '') throw new InputError(`${name} must be a non-empty string`)
      return value
    },
  )
}

/** true or false. */
export function bool(description: string): Field<boolean, false> {
  return field({json: {type: 'boolean'}, description}, (value, name) => {
    if (typeof value !== 'boolean') throw new InputError(`${name} must be true or false`)
    return value
  })
}

/** A JSON object (e.g. `order_info`). */
export function object(description: string): Field<Record<string, unknown>, false> {
  return field({json: {type: 'object'}, description}, (value, name) => {
    if (!isObject(value)) throw new InputError(`${name} must be a JSON object`)
    return value
  })
}

/** One of a few strings. */
export function oneOf<T extends string>(
  description: string,
  values: readonly T[],
  rule: {required: true},
): Field<T, true>
export function oneOf<T extends string>(
  description: string,
  values: readonly T[],
  rule?: {required?: false},
): Field<T, false>
export function oneOf<T extends string>(
  description: string,
  values: readonly T[],
  rule: {required?: boolean} = {},
): Field<T> {
  const missing = rule.required ? {missing: (name: string) => `${name} is required (one of ${values.join(', ')})`} : {}
  const isOne = (value: unknown): value is T => values.some((one) => one === value)
  return field({json: {type: 'string', enum: [...values]}, description, ...missing}, (value, name) => {
    if (!isOne(value)) throw new InputError(`${name} "${String(value)}" must be one of ${values.join(', ')}`)
    return value
  })
}

/** Whether the value is a list whose every item passes `isItem`. */
export function isListOf<T>(value: unknown, isItem: (item: unknown) => item is T): value is T[] {
  return Array.isArray(value) && value.every((item) => isItem(item))
}

/** A required non-empty list of ids (integers ≥ 1); `missing` and `bad` are the texts when it is absent or wrong. */
export function idList(description: string, texts: {missing: string; bad: string}): Field<number[], true> {
  const isId = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 1
  return field(
    {
      json: {type: 'array', items: {type: 'integer', minimum: 1}, minItems: 1},
      description,
      missing: () => texts.missing,
    },
    (value) => {
      if (!isListOf(value, isId) || value.length === 0) throw new InputError(texts.bad)
      return value
    },
  )
}

/** The fields that say who the user is; every action that acts as a user takes them. */
export const who = {
  user_id: int('the user who acts (default 1111, or the chat when private)', {min: 1}),
  first_name: text("the user's first name (kept for their later updates)"),
  username: text("the user's username, without @"),
}
