/**
 * BotApiError: every failure of a Bot API call, with the token already redacted.
 *
 * kind:
 * - 'api'          Telegram answered {ok:false}: `code` and `description` are Telegram's.
 * - 'http'         the server answered something that is not the Bot API envelope
 *                  (an HTML 502 page from a proxy, an empty body, a 3xx redirect, which is
 *                  never followed): `code` is the HTTP status.
 * - 'network'      no answer at all (DNS failure, connection refused, reset).
 * - 'timeout'      no answer within the deadline.
 * - 'aborted'      the caller's AbortSignal fired.
 */
export type BotApiErrorKind = 'api' | 'http' | 'network' | 'timeout' | 'aborted'

export interface BotApiErrorInit {
  kind: BotApiErrorKind
  method: string
  code?: number
  description: string
  retryAfter?: number
  migrateToChatId?: number
  /** A low-level cause code such as ECONNREFUSED or ENOTFOUND. */
  causeCode?: string
}

export class BotApiError extends Error {
  readonly kind: BotApiErrorKind
  readonly method: string
  /** Telegram's error_code for 'api', the HTTP status for 'http', 0 otherwise. */
  readonly code: number
  readonly description: string
  readonly retryAfter?: number
  readonly migrateToChatId?: number
  readonly causeCode?: string

  constructor(init: BotApiErrorInit) {
    super(`${init.method}: ${init.description}`)
    this.name = 'BotApiError'
    this.kind = init.kind
    this.method = init.method
    this.code = init.code ?? 0
    this.description = init.description
    this.retryAfter = init.retryAfter
    this.migrateToChatId = init.migrateToChatId
    this.causeCode = init.causeCode
  }

  /** A 3xx answer: the api root redirects (not followed, so the token went nowhere else). */
  get isRedirect(): boolean {
    return this.kind === 'http' && this.code >= 300 && this.code < 400
  }

  /** 409 Conflict: another getUpdates request took over. */
  get isPollerConflict(): boolean {
    return this.kind === 'api' && this.code === 409 && this.description.includes('other getUpdates')
  }

  /** 409 Conflict: getUpdates is not allowed while a webhook is set. */
  get isWebhookActiveConflict(): boolean {
    return this.kind === 'api' && this.code === 409 && this.description.includes('webhook is active')
  }
}

export function isBotApiError(e: unknown): e is BotApiError {
  return e instanceof BotApiError
}
