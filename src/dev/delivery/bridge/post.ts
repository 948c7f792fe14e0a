/**
 * One webhook POST the way Telegram sends it (bot-api-facts §6.1): the update's JSON as the body,
 * `Content-Type: application/json` and the secret header, over keep-alive connections. Each POST
 * has a total deadline; the answer's body is read up to a bound (a webhook reply is small).
 */
import http from 'node:http'
import https from 'node:https'

export interface PostTarget {
  url: string
  secret: string
}

export interface PostResult {
  /** A 2xx answer: the update is acknowledged. */
  ok: boolean
  status?: number
  /** Why it failed, in words ("the bot answered 500 Internal Server Error", "connection refused"). */
  error?: string
  /** Seconds from the answer's Retry-After header (an integer, clamped to 0..3600). */
  retryAfter?: number
  /** The 2xx answer's body and content type, when it had one (a possible webhook reply). */
  reply?: {contentType: string; body: Buffer}
  /** The 2xx answer's body was larger than the bound and was not kept. */
  replyTooLarge?: boolean
  ms: number
}

export interface PosterOptions {
  maxSockets: number
  timeoutMs: number
  /** Largest answer body kept for a webhook reply. */
  maxReplyBytes?: number
}

const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024

function describeConnectionError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)'
    case 'ECONNRESET':
      return 'the connection was reset before an answer arrived'
    case 'EPIPE':
      return 'the connection was closed while sending'
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to the host (${error.code})`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host name (${error.code})`
  }
  if (error.message === 'socket hang up') return 'the connection was closed before an answer arrived'
  return error.message
}

function retryAfterOf(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined
  return Math.min(3600, Number(text))
}

export class WebhookPoster {
  readonly #url: URL
  readonly #secret: string
  readonly #agent: http.Agent
  readonly #timeoutMs: number
  readonly #maxReplyBytes: number
  readonly #requests = new Set<http.ClientRequest>()

  constructor(target: PostTarget, options: PosterOptions) {
    this.#url = new URL(target.url)
    this.#secret = target.secret
    this.#timeoutMs = options.timeoutMs
    this.#maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES
    const agentOptions = {keepAlive: true, maxSockets: options.maxSockets}
    this.#agent = this.#url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions)
  }

  /** POST `body` (the update's JSON); never rejects. */
  post(body: string): Promise<PostResult> {
    const started = performance.now()
    const payload = Buffer.from(body)
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': payload.length,
      'X-Telegram-Bot-Api-Secret-Token': this.#secret,
    }
    const secure = this.#url.protocol === 'https:'
    return new Promise<PostResult>((resolve) => {
      let settled = false
      let timer: NodeJS.Timeout | undefined
      const settle = (result: Omit<PostResult, 'ms'>): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.#requests.delete(req)
        resolve({...result, ms: performance.now() - started})
      }
      const req = (secure ? https : http).request(
        {
          method: 'POST',
          hostname: this.#url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.#url.port || (secure ? 443 : 80),
          path: `${this.#url.pathname}${this.#url.search}`,
          headers,
          agent: this.#agent,
        },
        (res) => {
          const status = res.statusCode ?? 0
          const ok = status >= 200 && status < 300
          const chunks: Buffer[] = []
          let size = 0
          let tooLarge = false
          res.on('data', (chunk: Buffer) => {
            if (!ok || tooLarge) return // drained, not kept
            size += chunk.length
            if (size > this.#maxReplyBytes) {
              tooLarge = true
              chunks.length = 0
            } else chunks.push(chunk)
          })
          res.on('error', (error) => settle({ok: false, status, error: describeConnectionError(error)}))
          res.on('end', () => {
            if (ok) {
              const reply =
                !tooLarge && size > 0
                  ? {contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks)}
                  : undefined
              settle({ok: true, status, ...(reply ? {reply} : {}), ...(tooLarge ? {replyTooLarge: true} : {})})
              return
            }
            const reason = res.statusMessage || http.STATUS_CODES[status] || ''
            const retryAfter = retryAfterOf(res.headers['retry-after'])
            settle({
              ok: false,
              status,
              error: `the bot answered ${status}${reason ? ` ${reason}` : ''}`,
              ...(retryAfter !== undefined ? {retryAfter} : {}),
            })
          })
        },
      )
      this.#requests.add(req)
      timer = setTimeout(() => {
        settle({ok: false, error: `no answer within ${Math.round(this.#timeoutMs / 100) / 10} s`})
        req.destroy()
      }, this.#timeoutMs)
      req.on('error', (error) => settle({ok: false, error: describeConnectionError(error)}))
      req.end(payload)
    })
  }

  /** How many POSTs are waiting for an answer. */
  get active(): number {
    return this.#requests.size
  }

  /** Abort every POST in flight (each settles as a failure) and close the connections. */
  destroy(): void {
    for (const req of this.#requests) req.destroy(new Error('the bridge stopped'))
    this.#requests.clear()
    this.#agent.destroy()
  }
}
