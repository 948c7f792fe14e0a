import {isObject} from './telegram.js'

/** An error answered to the caller in the Bot API envelope: `{"ok":false,"error_code":…,"description":…}`. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: {retry_after?: number; migrate_to_chat_id?: number},
  ) {
    super(description)
    this.name = 'ApiError'
  }
}

/** `400 Bad Request: <detail>` */
export const badRequest = (detail: string): ApiError => new ApiError(400, `Bad Request: ${detail}`)

/** `429 Too Many Requests: retry after N` with `parameters.retry_after` (and a `Retry-After` header). */
export const tooManyRequests = (seconds: number): ApiError =>
  new ApiError(429, `Too Many Requests: retry after ${seconds}`, {retry_after: seconds})

export const CONFLICT_OTHER_POLL =
  'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'
export const CONFLICT_WEBHOOK_ACTIVE =
  "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
export const CONFLICT_SET_WEBHOOK = 'Conflict: terminated by setWebhook request'
export const CONFLICT_OTHER_SET_WEBHOOK = 'Conflict: terminated by other setWebhook'

export const notFound = (detail?: string): ApiError => new ApiError(404, detail ? `Not Found: ${detail}` : 'Not Found')
export const unauthorized = (): ApiError => new ApiError(401, 'Unauthorized')

/** What a caught value says: an Error's message, anything else as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A caught value as an Error (a thrown string or object wrapped). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err))
}

/** A system error's code (`ECONNREFUSED`, `EAI_AGAIN`, `ERR_SSL_…`), or undefined when it has none. */
export function errorCode(err: unknown): string | undefined {
  if (!isObject(err)) return undefined
  return typeof err.code === 'string' ? err.code : undefined
}

/** What a caught system error names: its code (`ENOENT`, `EACCES`…) and path when it has them, and its message. */
export function systemError(err: unknown): {code: string | undefined; path: string | undefined; message: string} {
  const {code, path} = isObject(err) ? err : {}
  return {
    code: typeof code === 'string' ? code : undefined,
    path: typeof path === 'string' ? path : undefined,
    message: errorText(err),
  }
}
