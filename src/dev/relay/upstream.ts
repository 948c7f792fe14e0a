/**
 * The relay's client to the bot: one POST per update over kept-alive connections of its own (no
 * HTTP client library in between: the request is one write, the answer is read from one reused
 * buffer), the bot's status, content type and body collected as they are.
 *
 * - A connection carries one request at a time; an idle one is reused (the most recent first) and
 *   closed after KEEP_ALIVE_MS idle, or sooner when the bot's Keep-Alive header says so, before a
 *   bot that closes idle connections (Node: after 5 s) closes it under a request.
 * - A new target gets a new pool; the old one closes its idle connections at once and each busy one
 *   after its answer, so a bot that is stopping can close its server.
 * - Deadlines, checked by one sweep: connecting (CONNECT_TIMEOUT_MS), the answer (ANSWER_TIMEOUT_MS).
 * - The answer's head and body are bounded (MAX_ANSWER_BYTES, or the limits given); anything
 *   unexpected on a connection (bytes nobody asked for, broken framing) ends that connection.
 * - The bridge (delivery/bridge/post.ts) posts through it too, with its own limits.
 */
import net from 'node:net'

import {ChunkedDecoder, headEnd} from './http1.js'
import {responseHeadOf, type ResponseHead} from './response-head.js'
import {codeOf} from '../../lib/errors.js'

export interface UpstreamTarget {
  host: string
  port: number
  path: string
}

/** The bot's answer. */
export interface BotAnswer {
  status: number
  contentType?: string
  /** The body as a latin1 string (byte for byte): written with the head in one write, cheap to keep. */
  text: string
  /** The Retry-After header, as sent. */
  retryAfter?: string
  /** The body was longer than the bytes kept (UpstreamLimits.keepBytes): `text` is empty. */
  dropped?: boolean
}

export interface UpstreamLimits {
  /** Body bytes kept; beyond, the body is read and dropped (`dropped`). Default MAX_ANSWER_BYTES. */
  keepBytes?: number
  /** Body bytes read at all; beyond, the answer is an error. Default MAX_ANSWER_BYTES. */
  maxBytes?: number
}

/** The connection a request went out on, to end that request early (a deadline of the caller's). */
export interface InFlight {
  /** Ends the request `handler` was told about, if it is still in flight (the connection may carry another by now). */
  cancel(handler: AnswerHandler, error: Error): void
}

/** Told the outcome of one request, exactly once. */
export interface AnswerHandler {
  onAnswer(answer: BotAnswer): void
  onError(error: Error): void
}

/** Connection errors after which the same update may be sent again (the bot is going down or coming up). */
const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH'])

export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has(codeOf(error) ?? '')
}

/** The bot never answered within this time: the update is answered 503 and Telegram sends it again. */
const ANSWER_TIMEOUT_MS = 15 * 60_000
const CONNECT_TIMEOUT_MS = 10_000
/** An idle connection is closed after this time (a bot's own limit, when shorter, wins). */
const KEEP_ALIVE_MS = 4000
/** A larger answer from the bot is an error (a webhook reply is one small JSON object). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024
const MAX_ANSWER_HEAD = 64 * 1024
/** A body up to this size goes out in the same write as the head. */
const ONE_WRITE_MAX = 64 * 1024

function failure(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? {code} : {})
}

export class Upstream {
  #pool: Pool | undefined
  #secret: string
  #limits: Required<UpstreamLimits>
  #retired = new Set<Pool>()

  constructor(secret: string, limits: UpstreamLimits = {}) {
    this.#secret = secret
    this.#limits = {keepBytes: limits.keepBytes ?? MAX_ANSWER_BYTES, maxBytes: limits.maxBytes ?? MAX_ANSWER_BYTES}
  }

  /** The secret sent to the bot from now on (next requests go over new connections). */
  setSecret(secret: string): void {
    if (secret === this.#secret) return
    this.#secret = secret
    this.retire()
  }

  /** POST the update to the bot; the handler hears the answer or a connection error (see isRetryable). */
  send(target: UpstreamTarget, body: Buffer, contentType: string | undefined, handler: AnswerHandler): InFlight {
    let pool = this.#pool
    if (!pool || pool.host !== target.host || pool.port !== target.port || pool.path !== target.path) {
      this.retire()
      pool = this.#pool = new Pool(target.host, target.port, target.path, this.#secret, this.#limits)
    }
    return pool.request(body, contentType, handler)
  }

  /** Next requests go over new connections; the old ones close once idle. */
  retire(): void {
    const old = this.#pool
    this.#pool = undefined
    if (!old) return
    old.retire()
    if (old.size > 0) {
      this.#retired.add(old)
      old.onEmpty = () => this.#retired.delete(old)
    }
  }

  /** Cut every connection now: requests in flight fail. */
  async destroy(): Promise<void> {
    this.#pool?.destroy()
    this.#pool = undefined
    for (const pool of this.#retired) pool.destroy()
    this.#retired.clear()
  }
}

/** One reused buffer for every read from the bot: what is kept is copied out before the next read. */
let readBuffer: Buffer | undefined

class Pool {
  onEmpty: (() => void) | undefined
  readonly #idle: BotConnection[] = []
  readonly #all = new Set<BotConnection>()
  readonly #prefix: string
  #retired = false
  #sweeper: NodeJS.Timeout | undefined

  constructor(
    readonly host: string,
    readonly port: number,
    readonly path: string,
    secret: string,
    readonly limits: Required<UpstreamLimits>,
  ) {
    const hostHeader = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
    this.#prefix = `POST ${path} HTTP/1.1\r\nhost: ${hostHeader}\r\nconnection: keep-alive\r\nx-telegram-bot-api-secret-token: ${secret}\r\ncontent-type: `
  }

  get size(): number {
    return this.#all.size
  }

  request(body: Buffer, contentType: string | undefined, handler: AnswerHandler): InFlight {
    let conn: BotConnection | undefined
    while ((conn = this.#idle.pop()) && !conn.usable) conn = undefined
    conn ??= this.#open()
    conn.send(
      `${this.#prefix}${contentType ?? 'application/json'}\r\ncontent-length: ${body.length}\r\n\r\n`,
      body,
      handler,
    )
    return conn
  }

  /** A connection finished its answer and may carry the next one. */
  idle(conn: BotConnection): void {
    if (this.#retired) conn.close()
    else this.#idle.push(conn)
  }

  forget(conn: BotConnection): void {
    this.#all.delete(conn)
    const at = this.#idle.indexOf(conn)
    if (at >= 0) this.#idle.splice(at, 1)
    if (this.#all.size === 0) {
      clearInterval(this.#sweeper)
      this.#sweeper = undefined
      if (this.#retired) this.onEmpty?.()
    }
  }

  retire(): void {
    this.#retired = true
    for (const conn of this.#idle.splice(0)) conn.close()
  }

  destroy(): void {
    this.#retired = true
    this.#idle.length = 0
    for (const conn of [...this.#all]) conn.fail(failure('the relay is closing', 'ECONNABORTED'))
  }

  #open(): BotConnection {
    readBuffer ??= Buffer.allocUnsafe(64 * 1024)
    const conn = new BotConnection(this, this.host, this.port, readBuffer)
    this.#all.add(conn)
    this.#sweeper ??= setInterval(() => this.#sweep(), 1000).unref()
    return conn
  }

  #sweep(): void {
    const now = performance.now()
    for (const conn of this.#all) conn.sweep(now)
  }
}

class BotConnection implements InFlight {
  readonly #pool: Pool
  readonly #socket: net.Socket
  #handler: AnswerHandler | null = null
  #connected = false
  #dead = false
  /** When the request in flight was sent, or since when the connection is idle. */
  #since: number
  #keepAliveMs = KEEP_ALIVE_MS
  /** Part of the answer's head, copied out of the read buffer. */
  #headPart: Buffer | null = null
  #head: ResponseHead | null = null
  #need = 0
  #decoder: ChunkedDecoder | null = null
  #chunks: Buffer[] = []
  #size = 0

  constructor(pool: Pool, host: string, port: number, buffer: Buffer) {
    this.#pool = pool
    this.#since = performance.now()
    this.#socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: {buffer, callback: (n: number, buf: Uint8Array) => this.#read(buf as Buffer, n)},
    })
    this.#socket.once('connect', () => {
      this.#connected = true
    })
    this.#socket.on('error', (error) => this.fail(error))
    this.#socket.on('close', () => this.#closed())
  }

  get usable(): boolean {
    return !this.#dead && !this.#socket.destroyed && this.#socket.writable
  }

  send(head: string, body: Buffer, handler: AnswerHandler): void {
    this.#handler = handler
    this.#since = performance.now()
    const socket = this.#socket
    if (body.length <= ONE_WRITE_MAX) socket.write(head + body.toString('latin1'), 'latin1')
    else {
      socket.cork()
      socket.write(head, 'latin1')
      socket.write(body)
      socket.uncork()
    }
  }

  close(): void {
    this.#dead = true
    this.#socket.destroy()
  }

  cancel(handler: AnswerHandler, error: Error): void {
    if (this.#handler === handler) this.fail(error)
  }

  /** End the request in flight with `error` and close the connection. */
  fail(error: Error): void {
    this.#dead = true
    const handler = this.#handler
    this.#handler = null
    this.#socket.destroy()
    if (handler) handler.onError(error)
  }

  sweep(now: number): void {
    if (this.#handler) {
      if (!this.#connected && now - this.#since > CONNECT_TIMEOUT_MS)
        this.fail(failure(`could not connect within ${CONNECT_TIMEOUT_MS / 1000} s`, 'ETIMEDOUT'))
      else if (now - this.#since > ANSWER_TIMEOUT_MS)
        this.fail(failure(`no answer within ${ANSWER_TIMEOUT_MS / 60_000} minutes`, 'ETIMEDOUT'))
    } else if (now - this.#since > this.#keepAliveMs) this.close()
  }

  #closed(): void {
    this.#dead = true
    this.#pool.forget(this)
    const handler = this.#handler
    if (!handler) return
    this.#handler = null
    const head = this.#head
    // An answer without a length ends with the connection; any other ends too early.
    if (head?.untilClose) return this.#finish(handler, head)
    handler.onError(failure('the bot closed the connection before answering', 'ECONNRESET'))
  }

  #read(buf: Buffer, n: number): boolean {
    try {
      // Only the first n bytes are this read's: what lies beyond is an earlier read's.
      this.#parse(n === buf.length ? buf : buf.subarray(0, n))
    } catch (error) {
      this.fail(error instanceof Error ? error : failure(String(error)))
    }
    return true
  }

  #parse(buf: Buffer): void {
    let pos = 0
    while (pos < buf.length) {
      if (!this.#handler) return this.fail(failure('the bot sent bytes nobody asked for'))
      const head = this.#head
      if (!head) {
        if (this.#headPart) {
          buf = Buffer.concat([this.#headPart, buf.subarray(pos)])
          pos = 0
          this.#headPart = null
        }
        const at = headEnd(buf, pos)
        if (at < 0) {
          if (buf.length - pos > MAX_ANSWER_HEAD)
            return this.fail(failure("the bot's answer has a head larger than 64 KiB"))
          this.#headPart = Buffer.from(buf.subarray(pos)) // a copy: the read buffer is reused
          return
        }
        const parsed = responseHeadOf(buf.toString('latin1', pos, at))
        if (typeof parsed === 'string') return this.fail(failure(parsed))
        pos = at
        if (parsed.status < 200) {
          if (parsed.status === 101) return this.fail(failure('the bot switched protocols'))
          continue // 1xx: the real answer follows
        }
        if (parsed.keepAliveMs !== undefined) this.#keepAliveMs = Math.min(KEEP_ALIVE_MS, parsed.keepAliveMs - 1000)
        this.#head = parsed
        this.#size = 0
        const length = parsed.contentLength
        if (length > this.#pool.limits.maxBytes) return this.#tooLarge()
        if (parsed.chunked) this.#decoder = new ChunkedDecoder((b, s, e) => this.#keep(b, s, e))
        else this.#need = length
        if (length === 0) return this.#complete(pos < buf.length)
        if (length > 0 && buf.length - pos >= length && length <= this.#pool.limits.keepBytes) {
          // The whole body is in this read (the usual case): one copy, into the string.
          const text = buf.toString('latin1', pos, pos + length)
          return this.#complete(pos + length < buf.length, text)
        }
      } else if (this.#decoder) {
        const at = this.#decoder.feed(buf, pos, buf.length)
        if (at < 0)
          return this.#size > this.#pool.limits.maxBytes
            ? this.#tooLarge()
            : this.fail(failure('the bot answered a broken chunked body'))
        pos = at
        if (this.#decoder.done) return this.#complete(pos < buf.length)
      } else if (head.untilClose) {
        if (!this.#keep(buf, pos, buf.length)) return this.#tooLarge()
        pos = buf.length
      } else {
        const take = Math.min(this.#need, buf.length - pos)
        if (!this.#keep(buf, pos, pos + take)) return this.#tooLarge()
        this.#need -= take
        pos += take
        if (this.#need === 0) return this.#complete(pos < buf.length)
      }
    }
  }

  /** Copy a piece of the body out of the read buffer (dropped past keepBytes); false past maxBytes. */
  #keep(buf: Buffer, start: number, end: number): boolean {
    const limits = this.#pool.limits
    this.#size += end - start
    if (this.#size > limits.maxBytes) return false
    if (this.#size > limits.keepBytes) this.#chunks = []
    else if (end > start) this.#chunks.push(Buffer.from(buf.subarray(start, end)))
    return true
  }

  #tooLarge(): void {
    this.#chunks = []
    this.fail(failure(`the bot's answer is larger than ${Math.round(this.#pool.limits.maxBytes / 1024 / 1024)} MB`))
  }

  /** The answer is whole; bytes after it (`extra`) mean the connection cannot be trusted with another. */
  #complete(extra: boolean, text?: string): void {
    const handler = this.#handler!
    const head = this.#head!
    this.#handler = null
    if (extra || head.close) this.close()
    else {
      this.#since = performance.now()
      this.#pool.idle(this)
    }
    this.#finish(handler, head, text)
  }

  #finish(handler: AnswerHandler, head: ResponseHead, text?: string): void {
    this.#head = null
    this.#decoder = null
    let body = text
    if (body === undefined) {
      const chunks = this.#chunks
      body = chunks.length === 0 ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('latin1')
    }
    const dropped = this.#size > this.#pool.limits.keepBytes
    this.#chunks = []
    this.#size = 0
    const answer: BotAnswer = {status: head.status, contentType: head.contentType, text: dropped ? '' : body}
    if (head.retryAfter !== undefined) answer.retryAfter = head.retryAfter
    if (dropped) answer.dropped = true
    handler.onAnswer(answer)
  }
}
