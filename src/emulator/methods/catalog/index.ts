/**
 * The Bot API as data: every method (name, the version it appeared in, what it returns, its parameters) and every
 * type (its fields, or the variants it is one of), read from methods.ts and types.ts (generated from the official
 * docs by scripts/emulator-catalog.py). Parsed once, on first use.
 */
import {ALIASES, BOT_API_RELEASE_DATE, BOT_API_VERSION, METHODS} from './methods.js'
import {TYPES} from './types.js'

export {BOT_API_RELEASE_DATE, BOT_API_VERSION}

export interface FieldSpec {
  name: string
  /** The type as the docs write it: `Integer`, `String`, `Integer or String`, `Array of MessageEntity`, `User`… */
  type: string
  /** Required parameter / always-present field. */
  required: boolean
  /** The fixed value of a variant's `type` (or `status`, `source`) field, e.g. `article`. */
  constant?: string
}

export interface MethodSpec {
  /** As documented (`sendMessage`). */
  name: string
  since: string
  returns: string
  params: FieldSpec[]
}

export type TypeSpec = {name: string; fields: FieldSpec[]} | {name: string; oneOf: string[]}

function parseFields(text: string): FieldSpec[] {
  if (text === '') return []
  return text.split('; ').map((part) => {
    const colon = part.indexOf(': ')
    let name = part.slice(0, colon)
    let type = part.slice(colon + 2)
    const required = name.endsWith('!')
    if (required) name = name.slice(0, -1)
    const eq = type.indexOf(' = ')
    const constant = eq >= 0 ? type.slice(eq + 3) : undefined
    if (eq >= 0) type = type.slice(0, eq)
    return {name, type, required, ...(constant !== undefined ? {constant} : {})}
  })
}

let methods: Map<string, MethodSpec> | undefined
let types: Map<string, TypeSpec> | undefined

function methodTable(): Map<string, MethodSpec> {
  if (methods) return methods
  methods = new Map()
  for (const [name, m] of Object.entries(METHODS)) {
    methods.set(name.toLowerCase(), {name, since: m.since, returns: m.returns, params: parseFields(m.params)})
  }
  for (const [alias, target] of Object.entries(ALIASES)) {
    const spec = methods.get(target.toLowerCase())
    if (spec) methods.set(alias.toLowerCase(), spec)
  }
  return methods
}

/** The method of a lower-cased name (documented names and the legacy aliases the server answers), if any. */
export function methodSpec(lower: string): MethodSpec | undefined {
  return methodTable().get(lower)
}

/** Every documented method, in the order of the docs (aliases not included). */
export function allMethods(): MethodSpec[] {
  return Object.keys(METHODS).map((name) => methodTable().get(name.toLowerCase())!)
}

/** The legacy names the server answers, and the method each stands for. */
export const methodAliases: Readonly<Record<string, string>> = ALIASES

/** A type of the Bot API by name (`User`, `InlineQueryResultArticle`, `MenuButton`…). */
export function typeSpec(name: string): TypeSpec | undefined {
  if (!types) {
    types = new Map()
    for (const [n, body] of Object.entries(TYPES)) {
      const oneOf = body !== '' && !body.includes(': ') ? body.split(' | ') : undefined
      types.set(n, oneOf ? {name: n, oneOf} : {name: n, fields: parseFields(body)})
    }
  }
  return types.get(name)
}

/** The variant of a one-of type whose constant field (e.g. `type`) has `value`, e.g. (`MenuButton`, `commands`). */
export function variantOf(union: string, value: unknown): (TypeSpec & {fields: FieldSpec[]}) | undefined {
  const spec = typeSpec(union)
  if (!spec || !('oneOf' in spec)) return undefined
  for (const name of spec.oneOf) {
    const variant = typeSpec(name)
    if (variant && 'fields' in variant && variant.fields.some((f) => f.constant !== undefined && f.constant === value))
      return variant
  }
  return undefined
}
