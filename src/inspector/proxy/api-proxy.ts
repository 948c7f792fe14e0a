/**
 * The recording Bot API proxy of `bot dev`: the bot's BOT_API_ROOT points here (127.0.0.1), every
 * request is forwarded to the real api root (or the emulator) with its body streamed both ways
 * (a 50 MB upload is never held whole), and each `/bot<token>/<method>` call becomes one ApiCall
 * (method, parameters summarised, the answer's ok/error_code/description/retry_after, time taken;
 * never the token). getUpdates results go to onUpdates, so polling bots are seen too. Listeners run
 * after the answer was sent and cannot break it. `/file/bot…` downloads and any other path stream
 * through unrecorded, but for the emulator's control API (`/_emulator/…`: the bot has no business
 * resetting its own test server), which is refused.
 *
 * Before anything is forwarded, the checks the inspector and the control port make too
 * (lib/loopback-http.ts): exactly one Host header naming this port on loopback (else 403: DNS
 * rebinding), and no sign of a web page of another site (an Origin, Sec-Fetch-Site cross-site or
 * same-site: 403). Bot clients send neither header. Connections with no request in progress are
 * bounded (lib/connection-guard.ts, the oldest idle closed first).
 */
import http from 'node:http'
import type {Socket} from 'node:net'
import {performance} from 'node:perf_hooks'
import type {Dispatcher} from 'undici'
import {ConnectionGuard} from '../../lib/connection-guard.js'
import {fromAnotherSite, isLoopbackBind, keyMatches, requestHostAllowed} from '../../lib/loopback-http.js'
import {RequestTee, PARAMS_TEE_BYTES} from './call-params.js'
import {buildCall, parseEnvelope, redactorFor, type CallFacts} from './call-record.js'
import type {LocalAnswers} from './local-answers.js'
import {
  answerHeaders,
  validHeaderValue,
  BODY_TIMEOUT_MS,
  HEADERS_TIMEOUT_MS,
  openUpstream,
  passHeaders,
  unreachableReason,
  type UpstreamRoot,
} from './upstream.js'
import type {ApiCall} from '../types.js'
import {toError, codeOf} from '../../lib/errors.js'
import {listeningPort} from '../../lib/server-port.js'

export interface ApiProxyOptions {
  /** The api root requests go to, e.g. https://api.telegram.org or the emulator's. */
  upstream: string
  /** Strings never to record besides the token (e.g. the session's webhook secret and path). */
  secrets?: string[]
  /**
   * The session's bot token: when given, only `/bot<token>/…` and `/file/bot<token>/…` are served;
   * any other token (another local user's, whose calls would go out as this session's and show up
   * in its log) gets Telegram's `401 Unauthorized`, and other paths `404 Not Found`: nothing
   * forwarded, nothing recorded.
   */
  token?: string
  host?: string
  port?: number
  /** Each call once answered, with its parameters and result as sent and received (not kept by the proxy). */
  onCall: (call: ApiCall, raw: RawCall) => void
  onUpdates?: (updates: unknown[]) => void
  /**
   * Asked before a call is forwarded (by its method name): a promise holds it until it settles (a
   * bot's getUpdates while `bot dev` switches the session to polling), undefined lets it go now.
   */
  holdCall?: (method: string) => Promise<void> | undefined
  /** A client must have sent its request headers within this long (default 60 s). */
  headersTimeoutMs?: number
  /** Most connections kept open with no request in progress (default 256; the oldest idle go first). */
  maxIdleConnections?: number
  /** Most connections in all (default 2048); beyond, a request is answered 503. */
  maxConnections?: number
  /** Calls about ids `bot trigger` made up, answered here instead of upstream (local-answers.ts). */
  local?: Pick<LocalAnswers, 'answer' | 'file'>
}

/** A call's parameters and result before they are summarised for the record. */
export interface RawCall {
  params: Record<string, unknown>
  result?: unknown
}

export const PROXY_MAX_IDLE = 256
export const PROXY_MAX_CONNECTIONS = 2048

export interface ApiProxy {
  /** http://127.0.0.1:PORT, to pass as the bot's BOT_API_ROOT. */
  url: string
  port: number
  close(): Promise<void>
}

/** The copy of an answer kept to read its envelope; getUpdates gets more room for its updates. */
const ANSWER_TEE_BYTES = 1024 * 1024
const UPDATES_TEE_BYTES = 16 * 1024 * 1024
/**
 * The most all copies together may hold: 200 bots' clients reading 16 MiB getUpdates answers slowly
 * would otherwise hold 3 GiB. An answer that finds no room is passed on untouched but not recorded.
 */
const ANSWERS_TEE_BYTES = 64 * 1024 * 1024
/** A connection with no traffic for this long is closed (longer than any long poll). */
const IDLE_MS = HEADERS_TIMEOUT_MS + 60_000

/** `/bot<token>/<method>` (also `/bot<token>/test/<method>`), with an optional query string. */
const CALL_PATH = /^\/bot([^/?#]*)\/(?:test\/)?([^/?#]*)(?:\?(.*))?$/s

interface Context {
  root: UpstreamRoot
  /** Set by close(): exchanges cut by it are not reported. */
  closed: boolean
  /** Bytes held by all answer copies now (at most ANSWERS_TEE_BYTES). */
  answerBytes: number
  secrets: string[]
  onCall: (call: ApiCall, raw: RawCall) => void
  onUpdates?: (updates: unknown[]) => void
  local?: ApiProxyOptions['local']
  holdCall?: (method: string) => Promise<void> | undefined
}

interface CallInfo {
  token: string
  method: string
  query: string
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function guarded(fn: () => void): void {
  try {
    fn()
  } catch {
    // A listener's failure changes nothing for the bot or the proxy.
  }
}

/** One request from the bot, forwarded and answered; implements undici's dispatch callbacks. */
class Exchange implements Dispatcher.DispatchHandlers {
  readonly #ctx: Context
  readonly #req: http.IncomingMessage
  readonly #res: http.ServerResponse
  readonly #call: CallInfo | undefined
  readonly #started = Date.now()
  readonly #t0 = performance.now()
  #ms = 0
  #tee: RequestTee | undefined
  #abort: ((error?: Error) => void) | undefined
  #resume: (() => void) | undefined
  #status = 0
  #encoding: string | undefined
  #answer: Buffer[] = []
  #answerSize = 0
  #answerCap: number
  #answerTruncated = false
  #bodyDone = false
  #clientGone = false
  #completed = false
  #reported = false
  /** Answered by the proxy itself (#answerLocally). */
  #local = false
  #failure: CallFacts['failure']

  constructor(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse) {
    this.#ctx = ctx
    this.#req = req
    this.#res = res
    const match = CALL_PATH.exec(req.url ?? '')
    this.#call = match ? {token: match[1], method: match[2], query: match[3] ?? ''} : undefined
    this.#answerCap = this.#call?.method.toLowerCase() === 'getupdates' ? UPDATES_TEE_BYTES : ANSWER_TEE_BYTES
    res.on('close', () => this.#onResponseClose())
    res.on('error', () => {})
    req.on('error', () => {})
  }

  start(): void {
    const req = this.#req
    if (this.#call) this.#tee = new RequestTee(req.headers)
    const length = req.headers['content-length']
    const hasBody = length !== undefined ? Number(length) > 0 : req.headers['transfer-encoding'] !== undefined
    if (!hasBody) {
      this.#bodyDone = true
      req.resume()
      if (!this.#answerLocally()) this.#whenLetThrough(() => this.#dispatch(null))
    } else if (length !== undefined && Number(length) <= PARAMS_TEE_BYTES) {
      // A small body (the usual JSON call) is read whole: one write upstream, parsed from the same bytes.
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        this.#bodyDone = true
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
        this.#tee?.push(body)
        this.#tee?.end()
        if (!this.#answerLocally()) this.#whenLetThrough(() => this.#dispatch(body))
      })
    } else {
      this.#whenLetThrough(() => this.#dispatch(this.#stream()))
    }
  }

  /**
   * A call about an id `bot trigger` made up (a synthetic query, file or charge): answered here as
   * Telegram would answer it for a real one, never sent upstream. False when the call goes upstream.
   */
  #answerLocally(): boolean {
    const local = this.#ctx.local
    const call = this.#call
    if (!local || !call || this.#clientGone) return false
    let reply: ReturnType<NonNullable<ApiProxyOptions['local']>['answer']>
    try {
      const params = this.#tee?.params(call.query) ?? {}
      const method = call.method || (typeof params.method === 'string' ? params.method : '')
      reply = local.answer(safeDecode(method), params)
    } catch {
      return false
    }
    if (!reply) return false
    this.#local = true
    const body = Buffer.from(JSON.stringify(reply.envelope))
    this.#status = reply.status
    this.#answer = [body]
    this.#answerSize = body.length
    this.#ctx.answerBytes += body.length
    this.#ms = performance.now() - this.#t0
    this.#completed = true
    try {
      this.#res.writeHead(reply.status, {'content-type': 'application/json', 'content-length': body.length})
      this.#res.end(body, () => this.#report())
    } catch {
      this.#res.destroy()
      this.#report()
    }
    return true
  }

  /** Forward now, or once the session lets this call through (see ApiProxyOptions.holdCall). */
  #whenLetThrough(forward: () => void): void {
    const hold = this.#ctx.holdCall
    let wait: Promise<void> | undefined
    if (hold && this.#call)
      try {
        wait = hold(safeDecode(this.#call.method))
      } catch {
        wait = undefined
      }
    if (!wait) return forward()
    wait.then(forward, forward)
  }

  /** The request body as it arrives, copied (bounded) for the parameters, with undici's backpressure. */
  async *#stream(): AsyncGenerator<Buffer> {
    const tee = this.#tee?.wanted ? this.#tee : undefined
    for await (const chunk of this.#req.iterator({destroyOnReturn: false}) as AsyncIterable<Buffer>) {
      tee?.push(chunk)
      yield chunk
    }
    this.#bodyDone = true
    tee?.end()
  }

  #dispatch(body: Buffer | AsyncGenerator<Buffer> | null): void {
    if (this.#clientGone) return
    const {root} = this.#ctx
    const req = this.#req
    try {
      root.dispatcher.dispatch(
        {
          origin: root.origin,
          path: root.prefix + (req.url ?? '/'),
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers: passHeaders(req.rawHeaders),
          // undici sends an async iterable body chunk by chunk (its types only name streams).
          body: body as Buffer | null,
          headersTimeout: HEADERS_TIMEOUT_MS,
          bodyTimeout: BODY_TIMEOUT_MS,
        },
        this,
      )
    } catch (error) {
      this.onError(toError(error))
    }
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort
    if (this.#clientGone) abort(new Error('the bot closed the connection'))
  }

  onHeaders(status: number, headers: Buffer[] | string[] | null, resume: () => void, statusText?: string): boolean {
    if (status < 200) return true // 1xx: the real answer follows
    this.#status = status
    this.#resume = resume
    const res = this.#res
    if (res.destroyed) return false
    const passed = answerHeaders(headers)
    this.#encoding = passed.encoding
    try {
      // A reason phrase Node would refuse (controls, escapes) is replaced by the standard one.
      if (statusText && validHeaderValue(statusText)) res.writeHead(status, statusText, passed.headers)
      else res.writeHead(status, passed.headers)
    } catch {
      this.#failure = {
        errorCode: 502,
        description: `the answer (HTTP ${status}) could not be passed on: it is not valid HTTP`,
      }
      res.destroy()
      return false
    }
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.#call && !this.#answerTruncated) {
      if (
        this.#answerSize + chunk.length > this.#answerCap ||
        this.#ctx.answerBytes + chunk.length > ANSWERS_TEE_BYTES
      ) {
        this.#answerTruncated = true
        this.#releaseAnswer()
      } else {
        this.#answer.push(chunk)
        this.#answerSize += chunk.length
        this.#ctx.answerBytes += chunk.length
      }
    }
    const res = this.#res
    if (res.destroyed) return false
    if (res.write(chunk)) return true
    res.once('drain', () => this.#resume?.())
    return false
  }

  onComplete(): void {
    this.#ms = performance.now() - this.#t0
    this.#completed = true
    this.#res.end(() => this.#report())
  }

  onError(error: Error): void {
    this.#ms = performance.now() - this.#t0
    const res = this.#res
    if (this.#clientGone || res.destroyed) {
      this.#clientGone = true
      this.#report()
      return
    }
    if (res.headersSent) {
      // The answer was cut half way: the bot sees its connection close.
      this.#failure = {
        errorCode: this.#status || 502,
        description: `the answer was cut: ${unreachableReason(error, this.#ctx.root.href)}`,
      }
      res.destroy()
      this.#report()
      return
    }
    const description = `Bad Gateway: bot dev could not reach ${this.#ctx.root.host}: ${unreachableReason(error, this.#ctx.root.href)}`
    this.#failure = {errorCode: 502, description}
    const body = JSON.stringify({ok: false, error_code: 502, description: this.#clean(description)})
    try {
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      }
      // A body the bot is still sending is not read any further: close the connection after the answer.
      if (!this.#bodyDone) headers.connection = 'close'
      res.writeHead(502, headers)
      res.end(body, () => {
        if (!this.#bodyDone) res.socket?.destroySoon?.()
        this.#report()
      })
    } catch {
      res.destroy()
      this.#report()
    }
  }

  #onResponseClose(): void {
    if (this.#reported) return
    // The answer came whole from upstream but the bot left before it was all written: still one call.
    if (this.#completed) return this.#report()
    if (!this.#res.writableFinished) {
      // The bot went away before the answer was complete: stop the upstream request too.
      this.#clientGone = true
      this.#abort?.(new Error('the bot closed the connection'))
    }
  }

  /** Drops the answer's copy and gives its bytes back to the shared bound. */
  #releaseAnswer(): void {
    this.#ctx.answerBytes -= this.#answerSize
    this.#answerSize = 0
    this.#answer = []
  }

  #clean(text: string): string {
    return redactorFor([
      this.#call?.token,
      this.#call ? safeDecode(this.#call.token) : undefined,
      ...this.#ctx.secrets,
    ])(text)
  }

  /** After the answer was sent (or the exchange ended): one ApiCall, getUpdates results. Never throws. */
  #report(): void {
    if (this.#reported || !this.#call) return
    this.#reported = true
    const answer = this.#answer
    this.#releaseAnswer()
    if (this.#ctx.closed) return
    const call = this.#call
    guarded(() => {
      const params = this.#tee?.params(call.query) ?? {}
      const method = call.method || (typeof params.method === 'string' ? params.method : '')
      if (this.#clientGone && !this.#completed) {
        // A long poll cancelled by a stopping bot is routine, not a failed call.
        if (method.toLowerCase() === 'getupdates') return
        this.#failure ??= {description: 'cancelled: the bot closed the connection before the answer'}
      }
      const envelope =
        !this.#failure && !this.#answerTruncated && answer.length > 0
          ? parseEnvelope(answer.length === 1 ? answer[0] : Buffer.concat(answer), this.#encoding)
          : undefined
      const clean = redactorFor([call.token, safeDecode(call.token), ...this.#ctx.secrets])
      const record = buildCall(
        {
          method: safeDecode(method),
          params,
          started: this.#started,
          ms: this.#ms,
          status: this.#status,
          envelope,
          answerTruncated: this.#answerTruncated,
          failure: this.#failure,
          answeredLocally: this.#local,
        },
        clean,
      )
      const onUpdates = this.#ctx.onUpdates
      if (
        onUpdates &&
        envelope?.ok === true &&
        Array.isArray(envelope.result) &&
        method.toLowerCase() === 'getupdates'
      ) {
        const updates = envelope.result
        guarded(() => onUpdates(updates))
      }
      guarded(() => this.#ctx.onCall(record, {params, result: envelope?.ok === true ? envelope.result : undefined}))
    })
  }
}

/** Answers a refused request with a Bot API error envelope, closing the connection after it. */
function refuse(res: http.ServerResponse, status: number, description: string): void {
  const body = JSON.stringify({ok: false, error_code: status, description})
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
  res.end(body)
}

/** Tells whether a path names the emulator's control API, however it is spelled (`//`, `..`, `%5F`, `\`). */
export function emulatorControlPath(target: string): boolean {
  const raw = target.split(/[?#]/)[0]
  let decoded = raw
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    // not percent-encoded text: checked as it is
  }
  const control = /^\/*_emulator(?:[/\\]|$)/i
  for (const path of [raw, decoded]) {
    if (control.test(path)) return true
    try {
      if (control.test(new URL(`http://h${path.startsWith('/') ? '' : '/'}${path}`).pathname)) return true
    } catch {
      return true // not a path a Bot API client sends
    }
  }
  return false
}

/**
 * A request target that is not a path (`GET http://host/… HTTP/1.1`, `OPTIONS *`, `CONNECT`-style
 * `host:port`): the bot was pointed at the proxy as an HTTP proxy, not as its api root. Nothing is
 * forwarded (the proxy is no relay to other hosts); the answer says what to set instead.
 */
function refuseTarget(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume()
  const description =
    "Bad Request: bot dev's api proxy is the bot's api root (BOT_API_ROOT), not an HTTP proxy: it takes paths like /bot<token>/<method>"
  const body = JSON.stringify({ok: false, error_code: 400, description})
  res.writeHead(400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
  res.end(body)
}

function loopbackNames(port: number): string {
  return `127.0.0.1:${port}, localhost:${port} or [::1]:${port}`
}

/** The token of a `/bot<token>/…` or `/file/bot<token>/…` path (percent-decoded), undefined for any other path. */
function tokenOfPath(url: string): string | undefined {
  const match = /^\/(?:file\/)?bot([^/?#]*)\//s.exec(url)
  return match ? safeDecode(match[1]) : undefined
}

/** `/file/bot<token>/<file_path>`: the download path of a file. */
const FILE_PATH = /^\/file\/bot[^/?#]*\/([^?#]+)(?:\?.*)?$/s

/** A download of a file `bot trigger` made up (its getFile was answered locally): served from memory. */
function serveLocalFile(
  local: NonNullable<ApiProxyOptions['local']>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const match = FILE_PATH.exec(req.url ?? '')
  const file = match ? local.file(safeDecode(match[1])) : undefined
  if (!file) return false
  req.resume()
  res.writeHead(200, {'content-type': file.mime, 'content-length': file.bytes.length})
  res.end(req.method === 'HEAD' ? undefined : file.bytes)
  return true
}

/** Start the proxy on 127.0.0.1 (a free port unless one is given). */
export async function startApiProxy(o: ApiProxyOptions): Promise<ApiProxy> {
  const root = await openUpstream(o.upstream)
  const ctx: Context = {
    root,
    closed: false,
    answerBytes: 0,
    secrets: (o.secrets ?? []).filter(Boolean),
    onCall: o.onCall,
    onUpdates: o.onUpdates,
    local: o.local,
    holdCall: o.holdCall,
  }
  const headersTimeout = o.headersTimeoutMs ?? 60_000
  // Node looks for connections past the deadline every 30 s by default; a shorter deadline is checked more often.
  const connectionsCheckingInterval = Math.min(30_000, headersTimeout / 2)
  const server = http.createServer(
    {requestTimeout: 0, headersTimeout, keepAliveTimeout: 65_000, connectionsCheckingInterval},
    (req, res) => {
      try {
        req.on('error', () => {})
        if (guard.over(req)) {
          req.resume()
          return refuse(res, 503, "Service Unavailable: bot dev's api proxy has too many connections open")
        }
        if (!req.url?.startsWith('/')) return refuseTarget(req, res)
        if (!requestHostAllowed(req, port, {anyHost})) {
          req.resume()
          return refuse(
            res,
            403,
            `Forbidden: bot dev's api proxy answers only on ${loopbackNames(port)} (this request named another host)`,
          )
        }
        const foreign = fromAnotherSite(req, port, {anyHost})
        if (foreign) {
          req.resume()
          return refuse(
            res,
            403,
            `Forbidden: bot dev's api proxy refuses requests from web pages (${foreign}); bot clients send no Origin`,
          )
        }
        if (emulatorControlPath(req.url)) {
          req.resume()
          return refuse(
            res,
            403,
            "Forbidden: bot dev's api proxy does not pass the emulator's control API (/_emulator/…) through: a bot has no business resetting its own test server",
          )
        }
        if (o.token !== undefined) {
          const presented = tokenOfPath(req.url)
          if (presented === undefined || !keyMatches(presented, o.token)) {
            req.resume()
            return presented === undefined ? refuse(res, 404, 'Not Found') : refuse(res, 401, 'Unauthorized')
          }
        }
        guard.busy(req, res)
        if (ctx.local && serveLocalFile(ctx.local, req, res)) return
        new Exchange(ctx, req, res).start()
      } catch {
        if (!res.headersSent) {
          res.writeHead(500, {'content-type': 'application/json', connection: 'close'})
          res.end(JSON.stringify({ok: false, error_code: 500, description: 'Internal Server Error: bot dev api proxy'}))
        } else res.destroy()
      }
    },
  )
  server.timeout = IDLE_MS
  const host = o.host ?? '127.0.0.1'
  // Bound on purpose to another interface: any Host name is served (the cross-site check stays).
  const anyHost = !isLoopbackBind(host)
  let port = 0
  const guard = new ConnectionGuard(server, {
    maxIdle: o.maxIdleConnections ?? PROXY_MAX_IDLE,
    maxTotal: o.maxConnections ?? PROXY_MAX_CONNECTIONS,
  })
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('error', () => {})
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(o.port ?? 0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await root.dispatcher.destroy().catch(() => {})
    const code = codeOf(error)
    throw new Error(`The api proxy could not listen on ${host}:${o.port ?? 0}${code ? ` (${code})` : ''}.`)
  }
  port = listeningPort(server)
  let closing: Promise<void> | undefined
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      (closing ??= (async () => {
        ctx.closed = true
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        for (const socket of sockets) socket.destroy()
        await closed
        await root.dispatcher.destroy().catch(() => {})
      })()),
  }
}
