/**
 * The relay's client to the bot: one POST per update over keep-alive connections (undici's Pool,
 * which costs less CPU per request than node:http's Agent), the bot's status, content type and body
 * collected as they are. A new target gets a new pool; the old one finishes what it has in flight
 * and closes its idle connections at once, so a bot that is stopping can close its server.
 */
import {Pool, type Dispatcher} from 'undici'

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
}

/** Connection errors after which the same update may be sent again (the bot is going down or coming up). */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
])

export function isRetryable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code ?? ''
  return RETRYABLE.has(code) || /socket hang up|other side closed/.test((error as Error)?.message ?? '')
}

/** The bot never answered within this time: the update is answered 503 and Telegram sends it again. */
const ANSWER_TIMEOUT_MS = 15 * 60_000

const CONTENT_TYPE = 'content-type'
/** A larger answer from the bot is an error (a webhook reply is one small JSON object). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** Collects one answer through undici's dispatch callbacks (no streams, no promises per chunk). */
class AnswerHandler implements Dispatcher.DispatchHandlers {
  #status = 502
  #contentType: string | undefined
  #chunks: Buffer[] = []
  #size = 0
  #abort: ((error?: Error) => void) | undefined
  #resolve: (answer: BotAnswer) => void
  #reject: (error: Error) => void

  constructor(resolve: (answer: BotAnswer) => void, reject: (error: Error) => void) {
    this.#resolve = resolve
    this.#reject = reject
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort
  }

  onHeaders(status: number, headers: Buffer[] | null): boolean {
    if (status < 200) return true // 1xx: the real answer follows
    this.#status = status
    if (headers) {
      for (let i = 0; i + 1 < headers.length; i += 2) {
        const name = headers[i]
        if (name.length === 12 && name.toString('latin1').toLowerCase() === CONTENT_TYPE) {
          this.#contentType = headers[i + 1].toString('latin1')
          break
        }
      }
    }
    return true
  }

  onData(chunk: Buffer): boolean {
    this.#size += chunk.length
    if (this.#size > MAX_ANSWER_BYTES) {
      this.#chunks = []
      this.#abort?.(new Error(`the bot's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`))
      return false
    }
    this.#chunks.push(chunk)
    return true
  }

  onComplete(): void {
    const chunks = this.#chunks
    const text = chunks.length === 0 ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('latin1')
    this.#resolve({status: this.#status, contentType: this.#contentType, text})
  }

  onError(error: Error): void {
    this.#chunks = []
    this.#reject(error)
  }
}

export class Upstream {
  #pool: Pool | undefined
  #origin = ''
  #secret: string

  constructor(secret: string) {
    this.#secret = secret
  }

  /** POST the update to the bot; rejects on a connection error (see isRetryable). */
  send(target: UpstreamTarget, body: Buffer, contentType: string | undefined): Promise<BotAnswer> {
    const pool = this.#poolFor(target)
    return new Promise((resolve, reject) => {
      pool.dispatch(
        {
          path: target.path,
          method: 'POST',
          body,
          headers: [CONTENT_TYPE, contentType ?? 'application/json', 'x-telegram-bot-api-secret-token', this.#secret],
          headersTimeout: ANSWER_TIMEOUT_MS,
          bodyTimeout: ANSWER_TIMEOUT_MS,
        },
        new AnswerHandler(resolve, reject),
      )
    })
  }

  /** Next requests go over new connections; the old ones close once idle. */
  retire(): void {
    const old = this.#pool
    this.#pool = undefined
    this.#origin = ''
    if (old) old.close().catch(() => {})
  }

  /** Cut every connection now. */
  async destroy(): Promise<void> {
    const old = this.#pool
    this.#pool = undefined
    if (old) await old.destroy().catch(() => {})
  }

  #poolFor(target: UpstreamTarget): Pool {
    const origin = `http://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`
    if (this.#pool && this.#origin === origin) return this.#pool
    this.retire()
    this.#origin = origin
    this.#pool = new Pool(origin, {
      keepAliveTimeout: 4000,
      keepAliveMaxTimeout: 60_000,
      pipelining: 1,
      connectTimeout: 10_000,
    })
    return this.#pool
  }
}
