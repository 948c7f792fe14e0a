/**
 * One webhook POST the way Telegram sends it (WebhookActor.cpp send_update): the update's JSON as the body,
 * `Content-Type: application/json` and the secret header, over keep-alive connections. Each POST
 * has a total deadline; the answer's body is read up to a bound (a webhook reply is small).
 *
 * To an http: URL (the relay, or a bot on loopback) it goes through the relay's own client
 * (relay/upstream.ts: the request in one write, the answer read from one reused buffer), the
 * cheapest hop there is; to an https: URL through node:https.
 */
import http from 'node:http'
import https from 'node:https'

import {type AnswerHandler, type BotAnswer, type InFlight, Upstream, type UpstreamTarget} from '../../relay/upstream.js'
import {toError} from '../../../lib/errors.js'

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
    case 'ETIMEDOUT':
      return error.message
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
  readonly #timeoutMs: number
  readonly #maxReplyBytes: number
  /** http: the relay's client; https: node:https with its agent. */
  readonly #upstream: Upstream | undefined
  readonly #target: UpstreamTarget
  readonly #agent: https.Agent | undefined
  readonly #posts = new Set<Post>()
  readonly #requests = new Set<http.ClientRequest>()

  constructor(target: PostTarget, options: PosterOptions) {
    this.#url = new URL(target.url)
    this.#secret = target.secret
    this.#timeoutMs = options.timeoutMs
    this.#maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES
    const secure = this.#url.protocol === 'https:'
    this.#target = {
      host: this.#url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(this.#url.port || (secure ? 443 : 80)),
      path: `${this.#url.pathname}${this.#url.search}`,
    }
    if (secure) this.#agent = new https.Agent({keepAlive: true, maxSockets: options.maxSockets})
    // A reply beyond the bound is read and dropped (the update still counts as acknowledged); the
    // POST's own deadline bounds how long that can go on.
    else
      this.#upstream = new Upstream(this.#secret, {keepBytes: this.#maxReplyBytes, maxBytes: Number.POSITIVE_INFINITY})
  }

  /** POST `body` (the update's JSON); never rejects. */
  post(body: string): Promise<PostResult> {
    const upstream = this.#upstream
    if (!upstream) return this.#postHttps(body)
    return new Promise<PostResult>((resolve) => {
      const post = new Post(this.#posts, performance.now(), resolve)
      this.#posts.add(post)
      try {
        post.inFlight = upstream.send(this.#target, Buffer.from(body), 'application/json', post)
      } catch (error) {
        post.onError(toError(error))
        return
      }
      post.timer = setTimeout(
        () => post.cancel(new Error(`no answer within ${Math.round(this.#timeoutMs / 100) / 10} s`)),
        this.#timeoutMs,
      )
    })
  }

  /** How many POSTs are waiting for an answer. */
  get active(): number {
    return this.#posts.size + this.#requests.size
  }

  /** Abort every POST in flight (each settles as a failure) and close the connections. */
  destroy(): void {
    for (const post of [...this.#posts]) post.cancel(new Error('the bridge stopped'))
    this.#posts.clear()
    void this.#upstream?.destroy()
    for (const req of this.#requests) req.destroy(new Error('the bridge stopped'))
    this.#requests.clear()
    this.#agent?.destroy()
  }

  #postHttps(body: string): Promise<PostResult> {
    const started = performance.now()
    const payload = Buffer.from(body)
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': payload.length,
      'X-Telegram-Bot-Api-Secret-Token': this.#secret,
    }
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
      const req = https.request(
        {
          method: 'POST',
          hostname: this.#target.host,
          port: this.#target.port,
          path: this.#target.path,
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
            const reply =
              ok && !tooLarge && size > 0
                ? {contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks)}
                : undefined
            settle(
              resultOf(
                status,
                reply,
                tooLarge,
                retryAfterOf(res.headers['retry-after']),
                res.statusMessage || undefined,
              ),
            )
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
}

/** What a POST's answer means: acknowledged (with a possible webhook reply), or why not. */
function resultOf(
  status: number,
  reply: {contentType: string; body: Buffer} | undefined,
  tooLarge: boolean,
  retryAfter: number | undefined,
  reason = http.STATUS_CODES[status],
): Omit<PostResult, 'ms'> {
  if (status >= 200 && status < 300)
    return {ok: true, status, ...(reply ? {reply} : {}), ...(tooLarge ? {replyTooLarge: true} : {})}
  return {
    ok: false,
    status,
    error: `the bot answered ${status}${reason ? ` ${reason}` : ''}`,
    ...(retryAfter !== undefined ? {retryAfter} : {}),
  }
}

/** One POST over the relay's client: told its answer or its failure once, and settles the promise. */
class Post implements AnswerHandler {
  inFlight: InFlight | undefined
  timer: NodeJS.Timeout | undefined
  #done = false

  constructor(
    readonly posts: Set<Post>,
    readonly started: number,
    readonly resolve: (result: PostResult) => void,
  ) {}

  cancel(error: Error): void {
    if (this.inFlight) this.inFlight.cancel(this, error)
    else this.onError(error)
    this.onError(error) // settles now if the connection had already moved on
  }

  onAnswer(answer: BotAnswer): void {
    const ok = answer.status >= 200 && answer.status < 300
    const reply =
      ok && answer.text.length > 0
        ? {contentType: answer.contentType ?? '', body: Buffer.from(answer.text, 'latin1')}
        : undefined
    this.#settle(resultOf(answer.status, reply, answer.dropped === true, retryAfterOf(answer.retryAfter)))
  }

  onError(error: Error): void {
    this.#settle({ok: false, error: describeConnectionError(error)})
  }

  #settle(result: Omit<PostResult, 'ms'>): void {
    if (this.#done) return
    this.#done = true
    clearTimeout(this.timer)
    this.posts.delete(this)
    this.resolve({...result, ms: performance.now() - this.started})
  }
}
