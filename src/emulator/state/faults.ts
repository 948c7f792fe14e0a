/**
 * Failure injection (texts as Client.cpp fail_query_with_error gives them): errors a method answers instead of running,
 * checked at dispatch before the method's handler. One-shot faults per method (failNext), and per-chat states that make
 * every send to the chat fail the way Telegram does: a user who blocked the bot, a group upgraded to a supergroup, a
 * deleted user.
 */
import {ApiError} from '../errors.js'

/** What failNext makes a method answer. */
export interface FaultSpec {
  /** HTTP status and `error_code` (e.g. 400, 403, 429, 500). */
  errorCode: number
  /** The `description`, verbatim (e.g. `Too Many Requests: retry after 5`). */
  description: string
  /** `parameters.retry_after` (and the `Retry-After` header). */
  retryAfter?: number
  /** `parameters.migrate_to_chat_id`. */
  migrateToChatId?: number
  /** How many calls in a row answer this error (default 1). */
  times?: number
}

export const BLOCKED = 'Forbidden: bot was blocked by the user'
export const DEACTIVATED = 'Forbidden: user is deactivated'
export const MIGRATED = 'Bad Request: group chat was upgraded to a supergroup chat'

/** Methods that write into the chat named by `chat_id`: these fail for a blocked, migrated or deactivated chat. */
export const WRITES_TO_CHAT = /^(send|copy|forward|edit|stopmessage|stoppoll|pinchat|unpinchat|setmessagereaction)/

/** Check a FaultSpec given by a caller; throws an Error naming the bad field. */
export function checkFaultSpec(spec: FaultSpec, where: string): void {
  const {errorCode, description, retryAfter, migrateToChatId, times} = spec
  if (!Number.isInteger(errorCode) || errorCode < 400 || errorCode > 599) {
    throw new Error(`${where}: errorCode ${String(errorCode)} must be an HTTP error status (an integer 400–599)`)
  }
  if (typeof description !== 'string' || description === '')
    throw new Error(`${where}: description must be a non-empty string`)
  if (retryAfter !== undefined && (!Number.isInteger(retryAfter) || retryAfter < 1)) {
    throw new Error(`${where}: retryAfter ${String(retryAfter)} must be a whole number of seconds ≥ 1`)
  }
  if (migrateToChatId !== undefined && !Number.isSafeInteger(migrateToChatId)) {
    throw new Error(`${where}: migrateToChatId ${String(migrateToChatId)} must be an integer chat id`)
  }
  if (times !== undefined && (!Number.isInteger(times) || times < 1)) {
    throw new Error(`${where}: times ${String(times)} must be a whole number ≥ 1`)
  }
}

export class Faults {
  /** Pending one-shot faults by lower-cased method, in the order they were added. */
  private readonly next = new Map<string, Array<{spec: FaultSpec; left: number}>>()
  /** Private chats whose user blocked the bot. */
  readonly blocked = new Set<string>()
  /** Basic groups upgraded to a supergroup: old chat id → new chat id. */
  readonly migrated = new Map<string, number>()
  /** Users whose account is deleted. */
  readonly deactivated = new Set<string>()

  failNext(method: string, spec: FaultSpec): void {
    const key = method.toLowerCase()
    const list = this.next.get(key) ?? []
    list.push({spec, left: spec.times ?? 1})
    this.next.set(key, list)
  }

  /** How many injected failures are still waiting, by method (lower-cased). */
  pending(): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [method, list] of this.next) out[method] = list.reduce((n, f) => n + f.left, 0)
    return out
  }

  /**
   * The error this call must answer instead of running, if any. One-shot faults come first; then the state of
   * the chat the call writes to. `resolveChat` turns a `chat_id` parameter (number or @username) into a chat id.
   */
  check(
    method: string,
    params: {get(name: string): string | undefined},
    resolveChat: (raw: string) => number | undefined,
  ): ApiError | undefined {
    const list = this.next.get(method)
    if (list && list.length > 0) {
      const fault = list[0]
      fault.left -= 1
      if (fault.left <= 0) list.shift()
      if (list.length === 0) this.next.delete(method)
      return toApiError(fault.spec)
    }
    if (!WRITES_TO_CHAT.test(method)) return undefined
    if (this.blocked.size === 0 && this.migrated.size === 0 && this.deactivated.size === 0) return undefined
    const raw = params.get('chat_id')?.trim()
    if (!raw) return undefined
    const chatId = resolveChat(raw)
    if (chatId === undefined) return undefined
    const key = String(chatId)
    const target = this.migrated.get(key)
    if (target !== undefined) return new ApiError(400, MIGRATED, {migrate_to_chat_id: target})
    if (this.deactivated.has(key)) return new ApiError(403, DEACTIVATED)
    if (this.blocked.has(key)) return new ApiError(403, BLOCKED)
    return undefined
  }

  clear(): void {
    this.next.clear()
    this.blocked.clear()
    this.migrated.clear()
    this.deactivated.clear()
  }
}

function toApiError(spec: FaultSpec): ApiError {
  const parameters: {retry_after?: number; migrate_to_chat_id?: number} = {}
  if (spec.migrateToChatId !== undefined) parameters.migrate_to_chat_id = spec.migrateToChatId
  if (spec.retryAfter !== undefined) parameters.retry_after = spec.retryAfter
  return new ApiError(spec.errorCode, spec.description, Object.keys(parameters).length > 0 ? parameters : undefined)
}

/** The supergroup id a basic group gets when it is upgraded: `-100` followed by the group's id on 10 digits. */
export function supergroupIdFor(chatId: number): number {
  return -(1_000_000_000_000 + (Math.abs(chatId) % 1_000_000_000_000))
}
