/**
 * The relay: a local HTTP server between the tunnel and the bot.
 *
 * - POST <path> with the right X-Telegram-Bot-Api-Secret-Token is forwarded to the bot
 *   (PORT + WEBHOOK_PATH) over a keep-alive agent; the bot's status, content type and body go
 *   back unchanged, so webhook replies work and a 5xx makes Telegram retry.
 * - A wrong or missing secret gets 401 and is never forwarded (a tunnel URL is public);
 *   any other path gets 404.
 * - While the bot is restarting or not yet listening, requests are held (up to holdTimeoutMs)
 *   and sent once it listens; after the deadline they get 503 so Telegram retries later.
 * - GET <healthPath> answers `bot-dev <nonce>` for tunnel probes.
 * - One event per update after the answer is sent (the hot path only forwards bytes).
 */
import {timingSafeEqual, randomBytes} from 'node:crypto'
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token'
export const DEFAULT_HEALTH_PATH = '/__bot-dev/health'

export interface RelayTarget {
  host: string
  port: number
  path: string
}

export interface RelayUpdateEvent {
  time: string
  updateId?: number
  updateType?: string
  chatId?: number
  preview?: string
  /** Status sent back to Telegram. */
  status: number
  ms: number
  /** Time spent waiting for the bot to listen. */
  heldMs: number
  /**
   * Telegram sent this update again (its copy of our answer was lost, e.g. a dropped tunnel, or it
   * timed out while the bot worked): the bot's earlier answer was sent back and the bot did not see it twice.
   */
  repeat?: boolean
  /** Why the relay answered by itself (the bot never answered). */
  error?: string
}

export interface RelayRejectedEvent {
  time: string
  status: number
  reason: 'secret' | 'path' | 'method' | 'too-large'
  method: string
  path: string
}

export interface RelayOptions {
  secret: string
  /** The path Telegram posts to (the random webhook path). */
  path: string
  holdTimeoutMs?: number
  healthPath?: string
  host?: string
  port?: number
  maxBodyBytes?: number
  onUpdate?: (event: RelayUpdateEvent) => void
  onRejected?: (event: RelayRejectedEvent) => void
}

export interface RelayStats {
  relayed: number
  failures: number
  rejected: number
  /** Retries of updates the bot had already answered, answered again without the bot. */
  repeats: number
}

interface BotAnswer {
  status: number
  contentType?: string
  /** The body as a latin1 string (byte for byte): written with the head in one write, cheap to keep. */
  text: string
}

const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH'])

function sameSecret(given: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false
  return timingSafeEqual(Buffer.from(given), expected)
}

const UPDATE_ID_RE = /^\s*\{\s*"update_id"\s*:\s*(\d+)/

/**
 * The update_id of a raw update without parsing it: Telegram writes it first ({"update_id":N,…}).
 * Undefined when the body does not start that way.
 */
export function peekUpdateId(body: Buffer): number | undefined {
  const m = UPDATE_ID_RE.exec(body.toString('latin1', 0, Math.min(body.length, 64)))
  return m ? Number(m[1]) : undefined
}

/** How many answered updates the relay remembers, to answer Telegram's retries of them. */
const REMEMBERED = 2000

const PREVIEW_MAX = 40

/** Update id, type, chat and a short text preview of a raw update body; never throws. */
export function describeUpdate(body: Buffer | string): Pick<RelayUpdateEvent, 'updateId' | 'updateType' | 'chatId' | 'preview'> {
  let update: Record<string, unknown>
  try {
    update = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as Record<string, unknown>
  } catch {
    return {}
  }
  if (!update || typeof update !== 'object') return {}
  const updateId = typeof update.update_id === 'number' ? update.update_id : undefined
  const updateType = Object.keys(update).find((k) => k !== 'update_id')
  const payload = (updateType ? update[updateType] : undefined) as Record<string, any> | undefined
  let chatId: number | undefined
  let text: unknown
  if (payload && typeof payload === 'object') {
    chatId = payload.chat?.id ?? payload.message?.chat?.id ?? payload.from?.id ?? payload.user?.id
    text = payload.text ?? payload.caption ?? payload.data ?? payload.query ?? payload.question
  }
  let preview: string | undefined
  if (typeof text === 'string') {
    const flat = text.replace(/\s+/g, ' ').trim()
    preview = flat.length > PREVIEW_MAX ? flat.slice(0, PREVIEW_MAX - 1) + '…' : flat
  }
  return {updateId, updateType, chatId: typeof chatId === 'number' ? chatId : undefined, preview}
}

export class Relay {
  readonly path: string
  readonly healthPath: string
  /** Sent back by the health path, so a probe knows it reached this relay. */
  readonly nonce = randomBytes(8).toString('hex')
  readonly stats: RelayStats = {relayed: 0, failures: 0, rejected: 0, repeats: 0}
  #secret: Buffer
  #secretText: string
  #holdTimeoutMs: number
  #maxBody: number
  #server: http.Server
  #agent = new http.Agent({keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 1000})
  #target: RelayTarget | undefined
  #waiters = new Set<(target: RelayTarget | undefined) => void>()
  #closed = false
  #options: RelayOptions
  #port = 0
  #aliases = new Set<string>()
  /** update_id → the bot's 2xx answer (insertion order = age), and answers still being produced. */
  #answered = new Map<number, BotAnswer>()
  #inflight = new Map<number, Promise<BotAnswer>>()

  constructor(options: RelayOptions) {
    this.#options = options
    this.path = options.path
    this.healthPath = options.healthPath ?? DEFAULT_HEALTH_PATH
    this.#secret = Buffer.from(options.secret)
    this.#secretText = options.secret
    this.#holdTimeoutMs = options.holdTimeoutMs ?? 30_000
    this.#maxBody = options.maxBodyBytes ?? 20 * 1024 * 1024
    this.#server = http.createServer({keepAliveTimeout: 65_000}, (req, res) => this.#handle(req, res))
    this.#server.headersTimeout = 66_000
    this.#server.requestTimeout = 0 // held requests may wait longer than the default
  }

  get port(): number {
    return this.#port
  }

  get target(): RelayTarget | undefined {
    return this.#target
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(this.#options.port ?? 0, this.#options.host ?? '127.0.0.1', () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    this.#port = (this.#server.address() as AddressInfo).port
    return this.#port
  }

  /**
   * Also accept updates on this path: a public URL with a path prefix (https://host/bot) behind a
   * proxy that does not strip it sends /bot/webhook/… instead of /webhook/….
   */
  addAlias(path: string): void {
    this.#aliases.add(path)
  }

  /** Where to forward; undefined holds requests until a target is set again. */
  setTarget(target: RelayTarget | undefined): void {
    if (target !== this.#target) this.#retireAgent()
    this.#target = target
    if (target) {
      const waiters = [...this.#waiters]
      this.#waiters.clear()
      for (const w of waiters) w(target)
    }
  }

  /** Stop accepting; held requests get 503 at once; open connections are closed. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const waiters = [...this.#waiters]
    this.#waiters.clear()
    for (const w of waiters) w(undefined)
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeIdleConnections()
      // In-flight answers get a moment to finish, then everything is cut.
      setTimeout(() => this.#server.closeAllConnections(), 500).unref()
    })
    this.#agent.destroy()
  }

  /**
   * New connections for the next target. The old agent's idle keep-alive sockets are closed now and
   * busy ones once their answer is in, so a bot that is stopping can close its server at once.
   */
  #retireAgent(): void {
    const old = this.#agent
    this.#agent = new http.Agent({keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 1000})
    ;(old as unknown as {keepAlive: boolean}).keepAlive = false // busy sockets are destroyed when freed
    for (const sockets of Object.values(old.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
  }

  /** Requests waiting for the bot right now. */
  get held(): number {
    return this.#waiters.size
  }

  #waitTarget(deadline: number, hold: {cancel?: () => void}): Promise<RelayTarget | undefined> {
    if (this.#closed) return Promise.resolve(undefined)
    const left = deadline - performance.now()
    if (left <= 0) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (t: RelayTarget | undefined) => {
        clearTimeout(timer)
        this.#waiters.delete(done)
        hold.cancel = undefined
        resolve(t)
      }
      const timer = setTimeout(() => done(undefined), left)
      this.#waiters.add(done)
      hold.cancel = () => done(undefined)
    })
  }

  #reject(req: http.IncomingMessage, res: http.ServerResponse, status: number, reason: RelayRejectedEvent['reason'], path: string): void {
    this.stats.rejected++
    res.writeHead(status, {'content-type': 'text/plain', connection: status === 413 ? 'close' : 'keep-alive'})
    res.end(status === 401 ? 'Unauthorized\n' : status === 404 ? 'Not Found\n' : status === 405 ? 'Method Not Allowed\n' : 'Payload Too Large\n')
    req.resume()
    this.#options.onRejected?.({time: new Date().toISOString(), status, reason, method: req.method ?? '', path})
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const started = performance.now()
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    if (path !== this.path && !this.#aliases.has(path)) {
      if (path === this.healthPath && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(200, {'content-type': 'text/plain', 'cache-control': 'no-store'})
        res.end(`bot-dev ${this.nonce}\n`)
        return
      }
      return this.#reject(req, res, 404, 'path', path)
    }
    if (req.method !== 'POST') return this.#reject(req, res, 405, 'method', path)
    if (!sameSecret(req.headers[SECRET_HEADER], this.#secret)) return this.#reject(req, res, 401, 'secret', path)

    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= this.#maxBody) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > this.#maxBody) return this.#reject(req, res, 413, 'too-large', path)
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
      void this.#relay(req, res, body, started)
    })
  }

  async #relay(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, started: number): Promise<void> {
    const deadline = started + this.#holdTimeoutMs
    // Telegram gave up on this request (read timeout, dropped tunnel): it will send the update
    // again, so a request still held is not forwarded (that would process the update twice).
    let gone = false
    const hold: {cancel?: () => void} = {}
    res.once('close', () => {
      if (res.writableFinished) return
      gone = true
      hold.cancel?.()
    })
    let heldMs = 0
    let answer: BotAnswer | undefined
    let error: string | undefined
    let backoff = 20
    // A retry of an update the bot answered (or is answering): give Telegram that answer again.
    const updateId = peekUpdateId(body)
    let repeat = false
    if (updateId !== undefined) {
      answer = this.#answered.get(updateId)
      const pending = answer ? undefined : this.#inflight.get(updateId)
      if (pending) answer = await pending.catch(() => undefined)
      repeat = answer !== undefined
    }
    while (!answer) {
      let target = this.#target
      if (!target) {
        const holdStart = performance.now()
        target = await this.#waitTarget(deadline, hold)
        heldMs += performance.now() - holdStart
        if (gone) {
          error = 'Telegram closed the connection while the update was held; it will retry'
          break
        }
        if (!target) {
          error = this.#closed ? 'dev session is stopping' : `the bot was not listening within ${Math.round(this.#holdTimeoutMs / 1000)}s`
          break
        }
      }
      if (gone) {
        error = 'Telegram closed the connection while the update was held; it will retry'
        break
      }
      try {
        answer = await this.#sendOnce(updateId, target, body, req.headers['content-type'])
        break
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? ''
        const retryable = RETRYABLE.has(code) || /socket hang up/.test((e as Error).message)
        if (!retryable || this.#closed || performance.now() + backoff >= deadline) {
          error = `bot connection failed: ${code || (e as Error).message}`
          break
        }
        // The bot is going down or coming up: wait for it (or for a new target) and try again.
        const holdStart = performance.now()
        await new Promise((r) => setTimeout(r, backoff))
        heldMs += performance.now() - holdStart
        backoff = Math.min(backoff * 2, 250)
      }
    }

    let status: number
    if (gone && !answer) {
      status = 499 // nginx's "client closed request": nothing was sent back
      res.destroy()
    } else if (answer) {
      status = answer.status
      const headers: http.OutgoingHttpHeaders = {'content-length': answer.text.length}
      if (answer.contentType) headers['content-type'] = answer.contentType
      res.writeHead(status, headers)
      // A latin1 string is written together with the head in one write (a Buffer takes a writev).
      res.end(answer.text, 'latin1')
    } else {
      status = 503
      res.writeHead(503, {'content-type': 'text/plain', 'retry-after': '1'})
      res.end(`bot dev: ${error}\n`)
    }
    if (repeat) this.stats.repeats++
    else if (status >= 200 && status < 300) this.stats.relayed++
    else this.stats.failures++
    const onUpdate = this.#options.onUpdate
    if (onUpdate) {
      const ms = performance.now() - started
      onUpdate({time: new Date().toISOString(), ...describeUpdate(body), status, ms: Math.round(ms * 10) / 10, heldMs: Math.round(heldMs), ...(repeat ? {repeat} : {}), ...(error ? {error} : {})})
    }
  }

  /** Send to the bot, remembering the answer by update_id (in flight, then 2xx answers) for retries. */
  #sendOnce(updateId: number | undefined, target: RelayTarget, body: Buffer, contentType: string | undefined): Promise<BotAnswer> {
    const sending = this.#send(target, body, contentType)
    if (updateId === undefined) return sending
    this.#inflight.set(updateId, sending)
    const forget = () => {
      if (this.#inflight.get(updateId) === sending) this.#inflight.delete(updateId)
    }
    sending.then(
      (answer) => {
        forget()
        if (answer.status < 200 || answer.status >= 300) return
        this.#answered.set(updateId, answer)
        if (this.#answered.size > REMEMBERED) this.#answered.delete(this.#answered.keys().next().value as number)
      },
      forget,
    )
    return sending
  }

  #send(target: RelayTarget, body: Buffer, contentType: string | undefined): Promise<BotAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          agent: this.#agent,
          headers: {
            'content-type': contentType ?? 'application/json',
            'content-length': body.length,
            [SECRET_HEADER]: this.#secretText,
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const ct = res.headers['content-type']
            const text = chunks.length === 0 ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('latin1')
            resolve({status: res.statusCode ?? 502, contentType: ct, text})
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body.toString('latin1'), 'latin1')
    })
  }
}
