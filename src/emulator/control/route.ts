/**
 * What a control API route is made of: its context (the emulator, the bot, the JSON body, the path's parameters),
 * the error it answers with (`{"error": "…"}` and a status), and the readers that check a body's fields and name
 * the bad one (for the routes that are no user action: the actions are checked by their table, ../actions/). api.ts
 * routes to the handlers; the handlers live in files of their own (api.ts, actions.ts, payments.ts, …).
 */
import type http from 'node:http'
import type {BotState} from '../state/bot.js'
import type {UploadedFile} from '../http/params.js'
import type {ControlledEmulator} from './host.js'

export interface ControlDeps {
  /** The bot of a token, or undefined when the emulator does not know it. */
  botFor(token: string): BotState | undefined
  /** Fail a pending long poll when the emulator stops; returns its unregistration. */
  onStop(fail: (err: Error) => void): () => void
}

export interface Ctx {
  emu: ControlledEmulator
  deps: ControlDeps
  bot: BotState
  body: Record<string, unknown>
  query: URLSearchParams
  /** The `{chat_id}` / `{user_id}` path segment (routes with `withId`). */
  id?: number
  /** The `:name` segments of a pattern route (`invoices/:invoice/pay` → `{invoice: '7'}`), decoded. */
  path: Record<string, string>
  /** The files of a multipart/form-data body (its other fields are in `body`, as text). */
  files?: Map<string, UploadedFile>
  req: http.IncomingMessage
  res: http.ServerResponse
}

export type Handler = (ctx: Ctx) => unknown

/**
 * One route under `/_emulator/bots/{token}/`. Its key in the table is the path after the token: a fixed name
 * (`messages`), `chats/block` with `withId` for `chats/{chat_id}/block`, or a pattern whose `:name` segments match
 * any one segment (`chats/:chat_id/messages/:message_id/reactions`). A key may start with its HTTP method
 * (`GET users/:user_id`) where one path has a route per method.
 */
export interface Route {
  method: 'GET' | 'POST'
  handler: Handler
  withId?: boolean
  /** The body may be multipart/form-data too (a user's media); every other POST body is JSON. */
  multipart?: boolean
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

// ---------------------------------------------------------------- field readers

export function only(body: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw new ControlError(400, `unknown field "${key}"; the fields are ${allowed.join(', ')}`)
  }
}

export function int(
  body: Record<string, unknown>,
  name: string,
  rule: {required?: boolean; min?: number; nonZero?: boolean} = {},
): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) {
    if (rule.required) throw new ControlError(400, `${name} is required (an integer)`)
    return undefined
  }
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isSafeInteger(n))
    throw new ControlError(400, `${name} ${JSON.stringify(value)} must be an integer`)
  if (rule.min !== undefined && n < rule.min) throw new ControlError(400, `${name} ${n} must be ≥ ${rule.min}`)
  if (rule.nonZero && n === 0) throw new ControlError(400, `${name} must not be 0`)
  return n
}

export function str(body: Record<string, unknown>, name: string, required = false): string | undefined {
  const value = body[name]
  if (value === undefined || value === null) {
    if (required) throw new ControlError(400, `${name} is required (a non-empty string)`)
    return undefined
  }
  if (typeof value !== 'string' || value === '') throw new ControlError(400, `${name} must be a non-empty string`)
  return value
}

/** A path segment that must be an integer (`:chat_id`, `:message_id`…). */
export function pathInt(ctx: Ctx, name: string, rule: {min?: number; nonZero?: boolean} = {}): number {
  const raw = ctx.path[name] ?? ''
  const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(n) || (rule.nonZero && n === 0) || (rule.min !== undefined && n < rule.min)) {
    const want = rule.min !== undefined ? `an integer ≥ ${rule.min}` : 'a non-zero integer'
    throw new ControlError(400, `${name} "${raw}" in the path must be ${want}`)
  }
  return n
}

/** Match `rest` (the path segments after the token) against a pattern key; the `:name` values, or undefined. */
export function matchPattern(pattern: string, rest: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/')
  if (parts.length !== rest.length) return undefined
  const out: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith(':')) {
      if (rest[i] === '') return undefined
      out[parts[i].slice(1)] = safeDecode(rest[i])
    } else if (parts[i] !== rest[i]) return undefined
  }
  return out
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
