/**
 * What a control route is made of (api.ts routes requests to them; users.ts, media.ts… add routes of their own):
 * its context, its error, and the readers of JSON fields that name the bad field and the fix.
 */
import type http from 'node:http'
import type {BotState} from '../state/bot.js'
import type {
  CallbackQueryOptions,
  RecordedCall,
  TgObject,
  Update,
  UserMediaOptions,
  UserMessageOptions,
} from '../types.js'
import type {FaultSpec} from '../state/faults.js'
import type {UploadedFile} from '../http/params.js'
import type {VoteOptions} from '../user/polls.js'
import type {InlineQueryOptions} from '../user/inline.js'

/** What the control API asks of the emulator (ControlledEmulator implements it). */
export interface ControlledEmulator {
  sendUserMessage(token: string, options: UserMessageOptions): Update
  sendCallbackQuery(token: string, options: CallbackQueryOptions): Update
  sendUserMedia(token: string, options: UserMediaOptions): Update
  votePoll(token: string, pollId: string, options: VoteOptions): {updates: Update[]; poll: TgObject}
  sendInlineQuery(token: string, options: InlineQueryOptions): Update
  injectUpdate(token: string, body: TgObject): Update
  failNext(token: string, method: string, fault: FaultSpec): void
  blockBot(token: string, chatId: number): Update
  unblockBot(token: string, chatId: number): Update
  migrateChat(token: string, chatId: number): number
  deactivateUser(token: string, userId: number): void
  pendingUpdates(token: string): Update[]
  reset(): void
  on(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
  off(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
}

export interface ControlDeps {
  /** The bot of a token, or undefined when the emulator does not know it. */
  botFor(token: string): BotState | undefined
  /** Fail a pending long poll when the emulator stops; returns its unregistration. */
  onStop(fail: (err: Error) => void): () => void
}

export type RouteHandler = (ctx: Ctx) => unknown

export interface Ctx {
  emu: ControlledEmulator
  deps: ControlDeps
  bot: BotState
  body: Record<string, unknown>
  query: URLSearchParams
  /** The `{chat_id}` / `{user_id}` path segment. */
  id?: number
  /** The `{…}` segment of a route written `collection/{id}` or `collection/{id}/action`, as text. */
  segment?: string
  /** The files of a multipart/form-data body (its other fields are in `body`, as text). */
  files?: Map<string, UploadedFile>
  req: http.IncomingMessage
  res: http.ServerResponse
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** One route: its HTTP method and handler (`withId`: the path has a numeric `{chat_id}`/`{user_id}` segment). */
export interface Route {
  method: 'GET' | 'POST'
  handler: RouteHandler
  withId?: boolean
}

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
