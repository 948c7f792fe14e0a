/**
 * The relay: a local HTTP server between the tunnel and the bot.
 *
 * - POST <path> with the right X-Telegram-Bot-Api-Secret-Token is forwarded to the bot
 *   (PORT + WEBHOOK_PATH, relay-upstream.ts); the bot's status, content type and body go back
 *   unchanged, so webhook replies work and a 5xx makes Telegram retry.
 * - A wrong or missing secret gets 401, any other path 404, another method 405: answered at once
 *   with `Connection: close`, the body never read, never forwarded (a tunnel URL is public).
 *   They are reported a few at a time, then summarised (relay-refusals.ts).
 * - Bodies are capped per request (413) and in total across requests (503, Telegram retries);
 *   slow headers and slow bodies time out. A held request (complete, waiting for the bot) is not
 *   affected by those timeouts: it waits up to holdTimeoutMs.
 * - While the bot is restarting or not yet listening, requests are held (up to holdTimeoutMs)
 *   and sent once it listens; after the deadline they get 503 so Telegram retries later
 *   (relay-deliver.ts).
 * - A retry of an update the bot already answered gets that answer again (relay-answers.ts).
 * - GET <healthPath> answers `bot-dev <nonce>` for tunnel probes.
 * - One event per update after the answer is sent (the hot path only forwards bytes).
 * - A recorder (the inspector's history, setRecorder) sees each update's body and answer; `inject`
 *   delivers a body like an update from Telegram but past the answer cache (replays, triggers).
 * - Nothing a request does can throw out of the handler: a bug answers 500 and is reported as
 *   an update event with `error`; the server keeps serving.
 */
import {randomBytes} from 'node:crypto'
import http from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

import {waitAtMost} from '../../lib/deadline.js'
import {sanitizeForTerminal} from '../../lib/terminal.js'
import {answerText, Deliverer, detachedLink, responseLink, type Delivered} from './deliver.js'
import {describeUpdate, peekUpdateId} from '../../telegram/describe.js'
import {BodyBudget, readBody, sameSecret, secretBytes} from './intake.js'
import {RefusalLog, type RefusalReason} from './refusals.js'
import type {BotAnswer} from './upstream.js'

import type {InjectResult, RelayOptions, RelayRecorder, RelayStats, RelayTarget, RelayUpdateEvent} from './types.js'

export {describeUpdate, peekUpdateId, safePreview, PREVIEW_MAX} from '../../telegram/describe.js'
export type {
  InjectResult,
  RelayOptions,
  RelayRecorder,
  RelayStats,
  RelayTarget,
  RelayUpdateEvent,
} from './types.js'
export {refusedSummaryText} from './refusals.js'
export type {RelayRefusedSummaryEvent, RelayRejectedEvent, RefusalReason} from './refusals.js'

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token'
export const DEFAULT_HEALTH_PATH = '/__bot-dev/health'

const REFUSAL_BODY: Record<number, string> = {
  401: 'Unauthorized\n',
  404: 'Not Found\n',
  405: 'Method Not Allowed\n',
  413: 'Payload Too Large\n',
  503: 'Busy: too many bytes in flight, retry later\n',
}

export class Relay {
  readonly path: string
  readonly healthPath: string
  /** Sent back by the health path, so a probe knows it reached this relay. */
  readonly nonce = randomBytes(8).toString('hex')
  readonly stats: RelayStats = {relayed: 0, failures: 0, rejected: 0, repeats: 0}
  #secret: Buffer
  #budget: BodyBudget
  #server: http.Server
  #deliverer: Deliverer
  #refusals: RefusalLog
  #closed = false
  #options: RelayOptions
  #port = 0
  #aliases = new Set<string>()
  #recorder: RelayRecorder | undefined
  /** Deliveries under way: close() waits for them, so their lines and counts come before the summary. */
  #pending = new Set<Promise<unknown>>()

  constructor(options: RelayOptions) {
    this.#options = options
    this.path = options.path
    this.healthPath = options.healthPath ?? DEFAULT_HEALTH_PATH
    this.#secret = secretBytes(options.secret)
    this.#deliverer = new Deliverer(options.secret, options.holdTimeoutMs ?? 30_000)
    this.#budget = new BodyBudget(options.maxBodyBytes ?? 4 * 1024 * 1024, options.maxBufferedBytes ?? 32 * 1024 * 1024)
    this.#refusals = new RefusalLog({
      onEach: options.onRejected,
      onSummary: options.onRefusedSummary,
      windowMs: options.refusalWindowMs,
    })
    const headersTimeout = options.headersTimeoutMs ?? 10_000
    const requestTimeout = Math.max(headersTimeout, options.bodyTimeoutMs ?? 30_000)
    this.#server = http.createServer(
      {
        keepAliveTimeout: 65_000, // longer than Telegram's 60 s, so Telegram closes idle connections first
        // Node checks these deadlines only every connectionsCheckingInterval; both cover receiving the
        // request only (not the time a complete request is held), so holding is not cut short.
        headersTimeout,
        requestTimeout,
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
      },
      (req, res) => this.#handle(req, res),
    )
    // A socket error (a reset from the other side) is not a reason to stop.
    this.#server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      try {
        const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        if (socket.writable && !socket.writableEnded && (socket as Partial<Socket>).bytesWritten === 0)
          socket.end(
            timeout
              ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'
              : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
          )
      } finally {
        socket.destroy()
      }
    })
  }

  get port(): number {
    return this.#port
  }

  get target(): RelayTarget | undefined {
    return this.#deliverer.target
  }

  /** Body bytes held right now, and the most held at once so far. */
  get buffered(): {now: number; peak: number} {
    return {now: this.#budget.inUse, peak: this.#budget.peak}
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(this.#options.port ?? 0, this.#options.host ?? '127.0.0.1', () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    this.#server.on('error', () => {}) // after listen: nothing the server reports may crash the process
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
    this.#deliverer.setTarget(target)
  }

  /** Stop accepting; held requests get 503 at once; open connections are closed. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#refusals.close()
    this.#deliverer.close()
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeIdleConnections()
      // In-flight answers get a moment to finish, then everything is cut.
      setTimeout(() => this.#server.closeAllConnections(), 500).unref()
    })
    await this.#deliverer.destroy()
    // Deliveries still under way end quickly now (nothing is held, the bot's connections are gone);
    // wait for them, within a bound, so every update is counted and shown before the session ends.
    if (this.#pending.size > 0) await waitAtMost(Promise.allSettled([...this.#pending]), 2000)
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#pending.add(work)
    const forget = () => this.#pending.delete(work)
    work.then(forget, forget)
    return work
  }

  /** Requests waiting for the bot right now. */
  get held(): number {
    return this.#deliverer.held
  }

  /** Answer by itself and close the connection, without reading what is left of the body. */
  #refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    reason: RefusalReason,
    path: string,
  ): void {
    this.stats.rejected++
    if (!res.headersSent) {
      const headers: http.OutgoingHttpHeaders = {'content-type': 'text/plain', connection: 'close'}
      if (status === 503) headers['retry-after'] = '1'
      res.writeHead(status, headers)
      res.end(REFUSAL_BODY[status] ?? '\n')
    }
    this.#refusals.record({
      time: new Date().toISOString(),
      status,
      reason,
      method: sanitizeForTerminal(req.method ?? '').slice(0, 16),
      path: printablePath(path),
    })
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    try {
      this.#route(req, res)
    } catch (error) {
      this.#failed(res, error, performance.now())
    }
  }

  #route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const started = performance.now()
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    if (path !== this.path && !this.#aliases.has(path)) {
      if (path === this.healthPath && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(200, {'content-type': 'text/plain', 'cache-control': 'no-store', connection: 'close'})
        res.end(`bot-dev ${this.nonce}\n`)
        return
      }
      return this.#refuse(req, res, 404, 'path', path)
    }
    if (req.method !== 'POST') return this.#refuse(req, res, 405, 'method', path)
    if (!sameSecret(req.headers[SECRET_HEADER], this.#secret)) return this.#refuse(req, res, 401, 'secret', path)

    readBody(req, this.#budget, (result) => {
      if (!result.ok) {
        if (result.status === 0) res.destroy()
        else this.#refuse(req, res, result.status, result.status === 413 ? 'too-large' : 'busy', path)
        return
      }
      this.#track(
        this.#forward(req, res, result.body, started).then(
          () => this.#budget.give(result.reserved),
          (error: unknown) => {
            this.#budget.give(result.reserved)
            this.#failed(res, error, started)
          },
        ),
      )
    })
  }

  /** A bug: answer 500 (Telegram retries), report it, keep serving. */
  #failed(res: http.ServerResponse, error: unknown, started: number): void {
    try {
      this.stats.failures++
      if (!res.headersSent) {
        res.writeHead(500, {'content-type': 'text/plain', connection: 'close'})
        res.end('bot dev: relay error\n')
      } else res.destroy()
      const message = error instanceof Error ? error.message : String(error)
      this.#emitUpdate({
        time: new Date().toISOString(),
        status: 500,
        ms: round1(performance.now() - started),
        heldMs: 0,
        error: `relay error: ${sanitizeForTerminal(message).slice(0, 200)}`,
      })
    } catch {
      res.destroy()
    }
  }

  #emitUpdate(event: RelayUpdateEvent): void {
    try {
      this.#options.onUpdate?.(event)
    } catch {
      // A listener that throws must not take the relay down.
    }
  }

  async #forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, started: number): Promise<void> {
    // Telegram gave up on this request when it closes unfinished (see responseLink).
    const link = responseLink(res)
    // A retry of an update the bot answered (or is answering): give Telegram that answer again.
    const updateId = peekUpdateId(body)
    let answer: BotAnswer | undefined
    let repeat = false
    if (updateId !== undefined) {
      const known = this.#deliverer.answers.lookup(updateId)
      answer = known instanceof Promise ? await known.catch(() => undefined) : known
      repeat = answer !== undefined
    }
    const delivering = answer
      ? undefined
      : this.#deliverer.deliver(body, req.headers['content-type'], started, updateId, link)
    // Recorded once it is on its way to the bot: the recorder's work is not in the bot's path.
    const recorder = delivering ? this.#recorder : undefined
    const record = recorder ? guarded(() => recorder.begin(body, 'webhook')) : undefined
    let error: string | undefined
    let heldMs = 0
    if (delivering) ({answer, error, heldMs} = await delivering)

    let status: number
    if (link.gone && !answer) {
      status = 499 // nginx's "client closed request": nothing was sent back
      res.destroy()
    } else if (answer) {
      status = answer.status
      // A latin1 string is written together with the head in one write (a Buffer takes a writev).
      res.writeHead(
        status,
        answer.contentType
          ? ['content-length', String(answer.text.length), 'content-type', answer.contentType]
          : ['content-length', String(answer.text.length)],
      )
      res.end(answer.text, 'latin1')
    } else {
      status = 503
      res.writeHead(503, {'content-type': 'text/plain', 'retry-after': '1'})
      res.end(`bot dev: ${error}\n`)
    }
    if (repeat) this.stats.repeats++
    else if (status >= 200 && status < 300) this.stats.relayed++
    else this.stats.failures++
    const ms = round1(performance.now() - started)
    if (this.#options.onUpdate) {
      this.#emitUpdate({
        time: new Date().toISOString(),
        ...describeUpdate(body, this.#options.secrets),
        status,
        ms,
        heldMs: Math.round(heldMs),
        ...(repeat ? {repeat} : {}),
        ...(error ? {error} : {}),
      })
    }
    if (recorder) guarded(() => recorder.finish(record, {status, body: answerText(answer, error)}, ms))
  }

  /** Record updates from now on (the inspector), or stop (undefined). */
  setRecorder(recorder: RelayRecorder | undefined): void {
    this.#recorder = recorder
  }

  /**
   * Deliver `body` to the bot like an update from Telegram (held while the bot restarts, shown in
   * the log, recorded), but as a new delivery: the answer cache is neither read nor written, so an
   * update_id the bot already answered reaches it again (a replay). Never rejects.
   */
  inject(body: Buffer | string, o: {source: 'trigger' | 'replay'; replayOf?: number}): Promise<InjectResult> {
    return this.#track(this.#inject(body, o))
  }

  async #inject(body: Buffer | string, o: {source: 'trigger' | 'replay'; replayOf?: number}): Promise<InjectResult> {
    const started = performance.now()
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
    const delivering = this.#deliverer.deliver(bytes, 'application/json', started, undefined, detachedLink())
    const recorder = this.#recorder
    const record = recorder ? guarded(() => recorder.begin(bytes, o.source, o.replayOf)) : undefined
    let result: Delivered
    try {
      result = await delivering
    } catch (error) {
      result = {
        heldMs: 0,
        error: `relay error: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error)).slice(0, 200)}`,
      }
    }
    const {answer, error, heldMs} = result
    const status = answer ? answer.status : 503
    if (status >= 200 && status < 300) this.stats.relayed++
    else this.stats.failures++
    const ms = round1(performance.now() - started)
    this.#emitUpdate({
      time: new Date().toISOString(),
      ...describeUpdate(bytes, this.#options.secrets),
      status,
      ms,
      heldMs: Math.round(heldMs),
      ...(error ? {error} : {}),
      source: o.source,
      ...(o.replayOf !== undefined ? {replayOf: o.replayOf} : {}),
    })
    const text = answerText(answer, error)
    if (recorder) guarded(() => recorder.finish(record, {status, body: text}, ms))
    return {status, body: text, ms, ...(error ? {error} : {}), ...(recorder ? {record} : {})}
  }
}

/** A recorder that throws must not take the relay down. */
function guarded<T>(fn: () => T): T | undefined {
  try {
    return fn()
  } catch {
    return undefined
  }
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10
}

/** A path from a request, safe to print: controls escaped, at most 80 characters. */
function printablePath(path: string): string {
  const safe = sanitizeForTerminal(path)
  return safe.length > 80 ? safe.slice(0, 79) + '…' : safe
}
