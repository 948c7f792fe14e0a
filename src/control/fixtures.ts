/**
 * The fixtures of `bot trigger TYPE`: one JSON template per kind of update, shipped with the package
 * (src/control/fixtures/*.json, copied to dist/ by the build), like Stripe's trigger fixtures. A
 * template is an Update whose values may be placeholders (`"{{user}}"`, `"{{chat.id}}"`, or inside
 * a string, `"{{user_message.text}} (edited)"`), filled by the running session with what it has
 * seen (the last chat and user, the bot's newest message, …; see FillContext), after the user's
 * `--set path=value` overrides were written into it. Pure but for reading the fixture files.
 */
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import type {Refusal} from '../lib/refusal.js'
import {type JsonObject as Json, isJsonObject} from '../lib/json-object.js'

/** The types `bot trigger TYPE` sends from a fixture, in the order `--list` shows them. */
export const FIXTURE_TYPES = [
  'photo',
  'edited-message',
  'inline',
  'poll-answer',
  'reaction',
  'join-request',
  'member-joined',
  'member-left',
  'member-blocked',
  'member-unblocked',
  'payment',
  'business-message',
  'web-app-data',
  'subscription',
  'widget-query',
  'shared-widget-query',
  'stopped-generation',
] as const

export type FixtureType = (typeof FIXTURE_TYPES)[number]

export interface Fixture {
  type: string
  summary: string
  /** The command's positional argument: the path it sets, or the file it reads (photo). */
  argument?: {name: string; description: string; set?: string; file?: boolean}
  /** Values of placeholders the session may not know (`invoice`, `poll`…). */
  defaults?: Json
  /** The Update template (no update_id). */
  update: Json
}

/** Where the fixture files are (next to this module, in src/ and in dist/). */
export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url))

const cache = new Map<string, Fixture>()

export function isFixtureType(type: string): type is FixtureType {
  return (FIXTURE_TYPES as readonly string[]).includes(type)
}

/** The fixture of a type, read from its file (a copy: callers may change it). */
export function loadFixture(type: FixtureType): Fixture {
  let fixture = cache.get(type)
  if (!fixture) {
    const raw = JSON.parse(readFileSync(`${FIXTURES_DIR}${type}.json`, 'utf8')) as Omit<Fixture, 'type'>
    fixture = {type, ...raw}
    cache.set(type, fixture)
  }
  return structuredClone(fixture)
}

/** The fixture's file, as `bot trigger --list` names it. */
export function fixturePath(type: FixtureType): string {
  return `${FIXTURES_DIR}${type}.json`
}

/**
 * The template as `bot trigger TYPE --help` shows it: one `path = value` line per field (the paths
 * `--set` takes; help text loses indentation, so no nested JSON), values as JSON.
 */
export function fixtureText(type: FixtureType): string {
  const lines: string[] = []
  const walk = (value: unknown, path: string[]) => {
    if (isJsonObject(value) && Object.keys(value).length > 0)
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k])
    else if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => walk(v, [...path, String(i)]))
    else lines.push(`${path.join('.')} = ${JSON.stringify(value)}`)
  }
  walk(loadFixture(type).update, [])
  return lines.join('\n')
}

/** What each placeholder stands for (the help and the docs list them). */
export const PLACEHOLDERS: Record<string, string> = {
  user: 'the user: the last one the session saw (offline: you), or --user',
  chat: 'the chat: the last one the session saw (offline: yours), or --chat',
  private_chat: "the user's private chat with the bot",
  group: 'the chat when it is a group, supergroup or channel (else pass --chat)',
  bot: 'the bot (getMe)',
  now: 'the current time (Unix seconds)',
  message_id: 'a new message id in the chat (past every one the session saw)',
  query_id: 'a new query id (answered by the api proxy when Telegram does not know it)',
  bot_message: "the bot's newest message in the chat",
  user_message: "the user's newest text message in the chat",
  invoice: "the bot's newest invoice in the chat (payload, currency, total_amount)",
  poll: "the bot's newest poll in the chat (id)",
  photo: 'the PhotoSize list of the file given (its file_id answered by the api proxy)',
  business_connection: 'the newest business connection the session saw (id)',
}

/**
 * A fixture given as a file (`--file`): a fixture (`{"update": {…}, "defaults": …}`) or a bare
 * Update; placeholders work in it as in the shipped ones. A refusal when it is neither.
 */
export function templateFromFile(value: unknown, name: string): {update: Json; defaults?: Json} | Refusal {
  if (!isJsonObject(value))
    return {error: `${name} is not a JSON object.`, fix: 'Write one Update (or a fixture: {"update": {…}}).'}
  const fixtureKeys = ['update', 'defaults', 'summary', 'argument', 'type']
  if (isJsonObject(value.update) && Object.keys(value).every((k) => fixtureKeys.includes(k)))
    return {update: value.update, ...(isJsonObject(value.defaults) ? {defaults: value.defaults} : {})}
  const {update_id: _ignored, ...update} = value
  return {update}
}

const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)\s*\}\}/gi
const WHOLE = /^\{\{\s*([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*)\s*\}\}$/i

/** One `--set` as given: `path=value`. */
export function parseSetArgument(text: string): {path: string[]; raw: string} | Refusal {
  const eq = text.indexOf('=')
  const path = eq < 0 ? '' : text.slice(0, eq).trim()
  if (eq < 0 || path === '')
    return {
      error: `--set "${text.slice(0, 60)}" is not path=value.`,
      fix: 'Write e.g. --set message.text=hello or --set pre_checkout_query.total_amount=50.',
    }
  const segments = path.split('.')
  if (segments.some((s) => !/^[A-Za-z0-9_]+$/.test(s)))
    return {
      error: `--set path "${path.slice(0, 60)}" is not a path of field names and array indexes.`,
      fix: 'Separate names with dots, e.g. message_reaction.new_reaction.0.emoji.',
    }
  return {path: segments, raw: text.slice(eq + 1)}
}

function get(root: unknown, path: string[]): unknown {
  let node = root
  for (const key of path) {
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined
    else if (isJsonObject(node)) node = node[key]
    else return undefined
  }
  return node
}

/**
 * The value a `--set` gives, read as the template's current value there suggests: a string where
 * the template has text (`--set message.text=42` stays text), a number or boolean where it has
 * one; elsewhere JSON when it parses (`50`, `true`, `[1,2]`, `{"a":1}`, `"quoted"`), else text.
 */
export function setValue(template: Json, path: string[], raw: string): {value: unknown} | Refusal {
  let current = get(template, path)
  const where = `--set ${path.join('.')}`
  // A placeholder stands for a value of a known type (PLACEHOLDER_TYPES).
  const placeholder = typeof current === 'string' ? WHOLE.exec(current)?.[1] : undefined
  if (placeholder !== undefined) {
    const kind = placeholderType(placeholder)
    if (kind === 'object') {
      let value: unknown
      try {
        value = JSON.parse(raw)
      } catch {
        value = undefined
      }
      if (!isJsonObject(value))
        return {
          error: `${where}: the fixture has an object there (${current as string}).`,
          fix: `Give it as JSON, e.g. ${where}='{"id": 42, "first_name": "Ada"}'.`,
        }
      return {value}
    }
    current = kind === 'number' ? 0 : kind === 'string' ? '' : undefined
  }
  if (typeof current === 'string') return {value: raw}
  if (typeof current === 'number') {
    const n = Number(raw.trim())
    if (raw.trim() === '' || !Number.isFinite(n))
      return {
        error: `${where}=${raw.slice(0, 40)}: the fixture has a number there.`,
        fix: `Give a number, e.g. ${where}=5.`,
      }
    return {value: n}
  }
  if (typeof current === 'boolean') {
    if (raw !== 'true' && raw !== 'false')
      return {
        error: `${where}=${raw.slice(0, 40)}: the fixture has true or false there.`,
        fix: `Give ${where}=true or =false.`,
      }
    return {value: raw === 'true'}
  }
  try {
    return {value: JSON.parse(raw)}
  } catch {
    return {value: raw}
  }
}

/** The type of what a placeholder stands for (undefined: any JSON). */
function placeholderType(name: string): 'number' | 'string' | 'object' | undefined {
  const [top, ...rest] = name.split('.')
  const field = rest.at(-1)
  if (field === undefined)
    return ['now', 'message_id'].includes(top)
      ? 'number'
      : top === 'query_id'
        ? 'string'
        : top === 'photo'
          ? undefined
          : 'object'
  if (field === 'id') return ['user', 'chat', 'private_chat', 'group', 'bot'].includes(top) ? 'number' : 'string'
  if (['message_id', 'date', 'edit_date', 'total_amount'].includes(field)) return 'number'
  if (['payload', 'currency', 'text'].includes(field)) return 'string'
  return undefined
}

/** The update's own type (its one field): a path may leave it out (`--set caption=hi`). */
function typeOf(update: Json): string | undefined {
  return Object.keys(update).find((k) => k !== 'update_id')
}

/** The path as written into the update: prefixed with its type unless it starts with it. */
export function fullPath(update: Json, path: string[]): string[] {
  const type = typeOf(update)
  return type === undefined || path[0] === type ? path : [type, ...path]
}

/** Writes each `--set` into the template (in order); missing objects on the way are made. */
export function applySets(update: Json, sets: Array<{path: string[]; value?: unknown}>): Json | Refusal {
  const out = structuredClone(update)
  for (const {path: given, value} of sets) {
    const path = fullPath(out, given)
    const where = `--set ${given.join('.')}`
    let node: unknown = out
    for (let i = 0; i < path.length; i++) {
      const key = path[i]
      const last = i === path.length - 1
      const inside = Array.isArray(node) ? node[Number(key)] : isJsonObject(node) ? node[key] : undefined
      if (!last && inside !== undefined && inside !== null && typeof inside !== 'object') {
        const at = path.slice(0, i + 1).join('.')
        return typeof inside === 'string' && WHOLE.test(inside)
          ? {
              error: `${where}: ${at} is filled by the session (${inside}), so a field inside it cannot be set alone.`,
              fix: `Set the whole value instead, e.g. --set ${at}='{"id": 42, …}'.`,
            }
          : {
              error: `${where}: ${at} is ${JSON.stringify(inside).slice(0, 40)}, not an object or a list.`,
              fix: `Set ${at} itself.`,
            }
      }
      if (Array.isArray(node)) {
        if (!/^\d+$/.test(key))
          return {
            error: `${where}: "${key}" names an item of a list, which needs an index.`,
            fix: 'Use a number, e.g. .0.',
          }
        const index = Number(key)
        if (index > node.length)
          return {
            error: `${where}: index ${index} is past the end of a list of ${node.length}.`,
            fix: `Use an index up to ${node.length}.`,
          }
        if (last) node[index] = value
        else {
          if (node[index] === undefined || node[index] === null || typeof node[index] !== 'object')
            node[index] = /^\d+$/.test(path[i + 1]) ? [] : {}
          node = node[index]
        }
      } else if (isJsonObject(node)) {
        if (last) node[key] = value
        else {
          if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object')
            node[key] = /^\d+$/.test(path[i + 1]) ? [] : {}
          node = node[key]
        }
      } else
        return {
          error: `${where}: ${path.slice(0, i).join('.')} is not an object or a list.`,
          fix: 'Set the whole value at that path instead.',
        }
    }
  }
  return out
}

/** What the session fills placeholders with; a name left out is one it does not know. */
export type FillContext = Record<string, unknown>

function lookup(context: FillContext, defaults: Json | undefined, name: string): unknown {
  const path = name.split('.')
  const value = get(context, path)
  return value !== undefined ? value : get(defaults, path)
}

/**
 * The template with its placeholders filled. A placeholder the context and the fixture's defaults
 * do not know is refused, naming what is missing and the `--set` that gives it.
 */
export function fillTemplate(
  update: Json,
  context: FillContext,
  defaults: Json | undefined,
  missing: (name: string) => Refusal,
): Json | Refusal {
  let refusal: Refusal | undefined
  const fill = (value: unknown, path: string[]): unknown => {
    if (refusal) return value
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value)
      if (whole) {
        const found = lookup(context, defaults, whole[1])
        if (found === undefined) {
          refusal = withPath(missing(whole[1]), path)
          return value
        }
        return structuredClone(found)
      }
      if (!value.includes('{{')) return value
      return value.replace(PLACEHOLDER, (text, name: string) => {
        const found = lookup(context, defaults, name)
        if (found === undefined) {
          refusal ??= withPath(missing(name), path)
          return text
        }
        return typeof found === 'string' ? found : JSON.stringify(found)
      })
    }
    if (Array.isArray(value)) return value.map((v, i) => fill(v, [...path, String(i)]))
    if (isJsonObject(value)) {
      const out: Json = {}
      for (const [k, v] of Object.entries(value)) out[k] = fill(v, [...path, k])
      return out
    }
    return value
  }
  const filled = fill(update, [])
  return refusal ?? (isJsonObject(filled) ? filled : {})
}

function withPath(refusal: Refusal, path: string[]): Refusal {
  return {...refusal, fix: refusal.fix.replaceAll('PATH', path.join('.'))}
}

/** The placeholders a template uses (whole or inside strings). */
export function placeholdersOf(update: unknown): string[] {
  const found = new Set<string>()
  const walk = (value: unknown) => {
    if (typeof value === 'string') for (const m of value.matchAll(PLACEHOLDER)) found.add(m[1].split('.')[0])
    else if (Array.isArray(value)) value.forEach(walk)
    else if (isJsonObject(value)) Object.values(value).forEach(walk)
  }
  walk(update)
  return [...found]
}
