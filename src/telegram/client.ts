import {readFile} from 'node:fs/promises'
import {basename} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {deadline} from '../lib/deadline.js'
import {maskUrl} from '../lib/mask-url.js'
import {describeProxyFailure, proxyFor} from '../lib/proxy.js'
import {BotApiError} from './errors.js'
import {fetchAnswer, type PostAnswer, postJson} from './post.js'
import {redact} from './redact.js'
import type {
  DeleteWebhookParams,
  GetUpdatesParams,
  SetWebhookParams,
  Update,
  UserFromGetMe,
  WebhookInfo,
} from './types.js'
import {messageOf} from '../lib/errors.js'

export const DEFAULT_API_ROOT = 'https://api.telegram.org'

/**
 * True when `apiRoot` is Telegram's cloud Bot API (cloud webhook rules: https, ports
 * 443/80/88/8443, max_connections ≤ 100); false for a local Bot API server or the emulator.
 */
export function isCloudApiRoot(apiRoot: string): boolean {
  try {
    return new URL(apiRoot).hostname.toLowerCase() === 'api.telegram.org'
  } catch {
    return false
  }
}

export interface BotApiOptions {
  token: string
  /** Base URL of the Bot API server, without a trailing slash. Default https://api.telegram.org. */
  apiRoot?: string
  /** Deadline for one HTTP request, in ms (getUpdates adds its long-poll timeout). Default 15000. */
  timeoutMs?: number
  /** 429 answers asking to wait at most this many seconds are retried after the wait. Default 5. */
  maxRetryAfter?: number
  /** How many 429 waits one call may do. Default 2. */
  maxRetries?: number
  /** Receives one redacted line per request and answer. */
  debug?: (line: string) => void
  /** Called before waiting out a 429, so a caller can tell the user why nothing happens. */
  onRetry?: (info: {method: string; retryAfter: number; attempt: number}) => void
}

export interface CallOptions {
  signal?: AbortSignal
  timeoutMs?: number
}

interface Envelope {
  ok: boolean
  result?: unknown
  description?: string
  error_code?: number
  parameters?: {retry_after?: number; migrate_to_chat_id?: number}
}

/** Debug lines must not carry a webhook secret either. */
/**
 * A debug line without the secrets it would carry: the secret_token, and the secret part of every
 * webhook URL (its path and query, masked by lib/mask-url.ts: `bot dev`'s path is half of what a
 * forger needs). A URL cut by the line's length limit is masked too.
 */
function hideSecrets(text: string): string {
  return text
    .replace(/("secret_token"\s*:\s*")[^"]*"/g, '$1<secret>"')
    .replace(/("url"\s*:\s*")((?:[^"\\]|\\.)*)("|\\?$)/g, (_all, head: string, value: string, end: string) => {
      let url = value
      try {
        url = JSON.parse(`"${value}"`) as string
      } catch {
        url = value.replace(/\\\//g, '/')
      }
      return `${head}${JSON.stringify(maskUrl(url)).slice(1, -1)}${end === '"' ? '"' : ''}`
    })
}

/** Turn a low-level fetch failure into words a user can act on. */
function describeNetworkError(code: string | undefined, message: string, apiRoot: string): string {
  let host = apiRoot
  try {
    host = new URL(apiRoot).host
  } catch {}
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${host} (nothing listens there)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host name ${host.replace(/:\d+$/, '')} (${code})`
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `the connection to ${host} was closed before an answer arrived (${code})`
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return `the connection to ${host} timed out (${code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${host} (${code})`
    default:
      if (/certificate|SSL|TLS/i.test(message)) return `TLS failure talking to ${host}: ${message}`
      return `cannot reach ${host}: ${message}${code ? ` (${code})` : ''}`
  }
}

/** " to another host" / " to another path": where a redirect pointed, without the URL (it may hold the token). */
function redirectTarget(response: PostAnswer, apiRoot: string): string {
  const location = response.header('location')
  if (!location) return ''
  try {
    const target = new URL(location, apiRoot)
    const root = new URL(apiRoot)
    return target.origin === root.origin
      ? ' to another path on the same server'
      : ` to ${target.protocol}//${target.host}`
  } catch {
    return ''
  }
}

/** The token goes in the path as is (its ':' included); anything else unsafe is escaped. */
function pathToken(token: string): string {
  return encodeURIComponent(token).replace(/%3A/gi, ':')
}

/** Seconds from a Retry-After header holding an integer (HTTP dates are ignored, like the Bot API server). */
function retryAfterHeader(value: string | undefined): number | undefined {
  if (!value || !/^\s*\d+\s*$/.test(value)) return undefined
  return Number(value)
}

function hasFile(params: Record<string, unknown>): boolean {
  return Object.values(params).some((v) => v instanceof Blob || (typeof v === 'object' && v !== null && 'path' in v))
}

/**
 * A small Bot API client: one `call` plus typed wrappers for the methods this tool uses.
 * Every error is a BotApiError whose message has the token redacted.
 */
export class BotApi {
  readonly apiRoot: string
  readonly #token: string
  readonly #timeoutMs: number
  readonly #maxRetryAfter: number
  readonly #maxRetries: number
  readonly #debug?: (line: string) => void
  readonly #onRetry?: BotApiOptions['onRetry']
  /** The api root is reached without a proxy over http(s): JSON requests skip fetch (post.ts). */
  readonly #direct: boolean

  constructor(options: BotApiOptions) {
    this.#token = options.token
    this.apiRoot = (options.apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, '')
    this.#timeoutMs = options.timeoutMs ?? 15_000
    this.#maxRetryAfter = options.maxRetryAfter ?? 5
    this.#maxRetries = options.maxRetries ?? 2
    this.#debug = options.debug
    this.#onRetry = options.onRetry
    this.#direct = /^https?:\/\//i.test(this.apiRoot) && proxyFor(this.apiRoot) === undefined
  }

  /** Replace the token (and its secret part) in any text with a placeholder. */
  redact(text: string): string {
    return redact(text, this.#token)
  }

  async call<T = unknown>(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<T> {
    return (await this.callEnvelope<T>(method, params, options)).result
  }

  /**
   * Like `call`, but also returns the envelope's `description`, which setWebhook and
   * deleteWebhook use to say whether anything changed ("Webhook is already set").
   */
  async callEnvelope<T = unknown>(
    method: string,
    params: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<{result: T; description?: string}> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once<T>(method, params, options)
      } catch (error) {
        if (
          error instanceof BotApiError &&
          error.kind === 'api' &&
          error.code === 429 &&
          error.retryAfter !== undefined &&
          error.retryAfter <= this.#maxRetryAfter &&
          attempt < this.#maxRetries
        ) {
          this.#log(`${method}: 429, waiting ${error.retryAfter}s as asked`)
          this.#onRetry?.({method, retryAfter: error.retryAfter, attempt: attempt + 1})
          await sleep(error.retryAfter * 1000, undefined, {signal: options.signal}).catch(() => {
            throw new BotApiError({kind: 'aborted', method, description: 'request aborted'})
          })
          continue
        }
        throw error
      }
    }
  }

  async #body(params: Record<string, unknown>): Promise<{body: string | FormData; headers: Record<string, string>}> {
    const defined = Object.entries(params).filter(([, v]) => v !== undefined)
    if (!hasFile(params))
      return {body: JSON.stringify(Object.fromEntries(defined)), headers: {'content-type': 'application/json'}}
    const form = new FormData()
    for (const [key, value] of defined) {
      if (value instanceof Blob) form.append(key, value, key)
      else if (typeof value === 'object' && value !== null && 'path' in value) {
        const path = String((value as {path: string}).path)
        form.append(key, new Blob([await readFile(path)]), basename(path))
      } else form.append(key, typeof value === 'string' ? value : JSON.stringify(value))
    }
    return {body: form, headers: {}}
  }

  async #once<T>(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<{result: T; description?: string}> {
    const url = `${this.apiRoot}/bot${pathToken(this.#token)}/${method}`
    const pollSeconds = method === 'getUpdates' && typeof params.timeout === 'number' ? params.timeout : 0
    const timeoutMs = (options.timeoutMs ?? this.#timeoutMs) + pollSeconds * 1000
    const {body, headers} = await this.#body(params)
    const limit = deadline(timeoutMs, options.signal)
    const started = performance.now()
    this.#log(`→ ${method} ${typeof body === 'string' ? body : '<multipart>'}`)

    let response: PostAnswer
    try {
      // Never follow a redirect: the token is in the path, and a POST turned into a GET by a 302
      // would look like a success. A 3xx is reported below, naming the api root.
      response =
        this.#direct && typeof body === 'string'
          ? await postJson(new URL(url), body, headers, limit.signal)
          : await fetchAnswer(
              await fetch(url, {method: 'POST', body, headers, signal: limit.signal, redirect: 'manual'}),
            )
    } catch (error) {
      if (options.signal?.aborted) throw new BotApiError({kind: 'aborted', method, description: 'request aborted'})
      if (limit.timedOut)
        throw new BotApiError({
          kind: 'timeout',
          method,
          description: this.redact(`no answer from ${this.apiRoot} within ${+(timeoutMs / 1000).toFixed(1)}s`),
        })
      const cause = (error as {cause?: {code?: string; message?: string}}).cause
      const code = cause?.code ?? (error as {code?: string}).code
      const detail = this.redact(cause?.message ?? messageOf(error))
      this.#log(`✗ ${method} ${detail}`)
      throw new BotApiError({
        kind: 'network',
        method,
        causeCode: code,
        description: this.redact(
          describeProxyFailure(this.apiRoot, error) ?? describeNetworkError(code, detail, this.apiRoot),
        ),
      })
    } finally {
      limit.clear()
    }
    if (response.status >= 300 && response.status < 400) {
      this.#log(`← ${method} ${response.status} redirect (not followed)`)
      throw new BotApiError({
        kind: 'http',
        method,
        code: response.status,
        description: this.redact(
          `${this.apiRoot} answered HTTP ${response.status} (a redirect${redirectTarget(response, this.apiRoot)}); a Bot API server never redirects, so the request was not sent on with the token`,
        ),
      })
    }
    const text = response.text
    const ms = Math.round(performance.now() - started)
    this.#log(`← ${method} ${response.status} in ${ms}ms ${text.slice(0, 300)}`)

    let envelope: Envelope | undefined
    try {
      const parsed = JSON.parse(text) as unknown
      if (parsed && typeof parsed === 'object' && 'ok' in parsed) envelope = parsed as Envelope
    } catch {
      envelope = undefined
    }
    if (!envelope) {
      const what = /^\s*</.test(text)
        ? 'an HTML page'
        : text.trim() === ''
          ? 'an empty body'
          : 'a body that is not Bot API JSON'
      const reason = response.statusText ? ` ${response.statusText}` : ''
      throw new BotApiError({
        kind: 'http',
        method,
        code: response.status,
        description: this.redact(
          `${this.apiRoot} answered HTTP ${response.status}${reason} with ${what}, not the Bot API's JSON`,
        ),
      })
    }
    if (!envelope.ok) {
      const retryAfter = envelope.parameters?.retry_after ?? retryAfterHeader(response.header('retry-after'))
      throw new BotApiError({
        kind: 'api',
        method,
        code: envelope.error_code ?? response.status,
        description: this.redact(envelope.description ?? `HTTP ${response.status}`),
        retryAfter: typeof retryAfter === 'number' ? retryAfter : undefined,
        migrateToChatId: envelope.parameters?.migrate_to_chat_id,
      })
    }
    return {
      result: envelope.result as T,
      description: typeof envelope.description === 'string' ? envelope.description : undefined,
    }
  }

  #log(line: string): void {
    this.#debug?.(this.redact(hideSecrets(line)))
  }

  getMe(options?: CallOptions): Promise<UserFromGetMe> {
    return this.call<UserFromGetMe>('getMe', {}, options)
  }

  getUpdates(params: GetUpdatesParams = {}, options?: CallOptions): Promise<Update[]> {
    return this.call<Update[]>('getUpdates', {...params}, options)
  }

  setWebhook(params: SetWebhookParams, options?: CallOptions): Promise<true> {
    return this.call<true>('setWebhook', {...params}, options)
  }

  deleteWebhook(params: DeleteWebhookParams = {}, options?: CallOptions): Promise<true> {
    return this.call<true>('deleteWebhook', {...params}, options)
  }

  getWebhookInfo(options?: CallOptions): Promise<WebhookInfo> {
    return this.call<WebhookInfo>('getWebhookInfo', {}, options)
  }
}
