/**
 * The HTTP front: `/bot<token>/METHOD` routing, GET/POST only, the JSON envelope with the server's key order,
 * HTTP status = error_code, `Retry-After` on 429 (core.telegram.org/bots/api#making-requests; HttpConnection.cpp
 * send_response).
 */
import http from 'node:http'
import type {BotState} from '../state/bot.js'
import {ApiError, notFound} from '../errors.js'
import {readParams, type Params} from './params.js'
import {refusal, type Scope} from './guard.js'

export interface Router {
  /** The bot of a token, or an ApiError (401 unknown/revoked, 404 malformed). */
  botFor(token: string): BotState
  /** Run a method for the bot; records the call. A method that does not wait answers at once (no promise). */
  invoke(
    bot: BotState,
    method: string,
    params: Params,
    onAbort: (fn: () => void) => () => void,
  ): Answer | Promise<Answer>
  /** The control API under /_emulator (see control/api.ts). */
  control(req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string): Promise<void>
  /** A page served beside the API (BotApiEmulator.servePage): undefined when none is, then the path is the API's 404. */
  page?(req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string): Promise<void> | undefined
  /** The bytes served at /file/bot<token>/<file_path> (what getFile's file_path names), if any. */
  file(token: string, filePath: string): Buffer | undefined
}

/** A successful answer: `{"ok":true,"result":…}` plus `description` when set. */
export interface Answer {
  result: unknown
  /** `result` already encoded as JSON (the server then writes it as it is). */
  raw?: string
  description?: string
}

export function okBody(answer: Answer): string {
  const result = answer.raw ?? JSON.stringify(answer.result)
  const description = answer.description !== undefined ? `,"description":${JSON.stringify(answer.description)}` : ''
  return `{"ok":true,"result":${result}${description}}`
}

export function errorBody(error: ApiError): string {
  const body: Record<string, unknown> = {ok: false, error_code: error.code, description: error.description}
  if (error.parameters) body.parameters = error.parameters
  return JSON.stringify(body)
}

/** What a Bot API request is answered: the HTTP status (the error_code of an error), the envelope, Retry-After. */
export interface Reply {
  status: number
  body: string
  retryAfter?: number
}

const okReply = (answer: Answer): Reply => ({status: 200, body: okBody(answer)})

/** The reply for whatever a request threw: an ApiError as it is, anything else `500 Internal Server Error: …`. */
export function errorReply(err: unknown): Reply {
  const error = err instanceof ApiError ? err : new ApiError(500, `Internal Server Error: ${describe(err)}`)
  return {status: error.code, body: errorBody(error), retryAfter: error.parameters?.retry_after}
}

/** Whether a value is a promise (or another thenable) rather than an answer at hand. */
export const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as {then?: unknown} | null)?.then === 'function'

/**
 * A Bot API call `/bot<token>/<method>` (the path's part after `/bot`), as both fronts serve it (server.ts below, and
 * fast.ts): the token's bot first (401/404 before the body is read), then the parameters, then the method. The reply
 * comes at once when nothing waited (a body already read, a method that answers at once), else as a promise; it never
 * throws nor rejects.
 */
export function serveBotCall(
  router: Router,
  rest: string,
  readParams: () => Params | Promise<Params>,
  onAbort: (fn: () => void) => () => void,
): Reply | Promise<Reply> {
  try {
    const slash = rest.indexOf('/')
    if (slash < 0) throw notFound()
    const token = safeDecode(rest.slice(0, slash))
    let method = safeDecode(rest.slice(slash + 1))
    if (method.startsWith('test/')) method = method.slice(5) // the test data centre: same emulated bots
    const bot = router.botFor(token)
    const params = readParams()
    if (isPromise(params)) return params.then((p) => invokeFor(router, bot, method, p, onAbort), errorReply)
    return invokeFor(router, bot, method, params, onAbort)
  } catch (err) {
    return errorReply(err)
  }
}

function invokeFor(
  router: Router,
  bot: BotState,
  method: string,
  params: Params,
  onAbort: (fn: () => void) => () => void,
): Reply | Promise<Reply> {
  try {
    const answer = router.invoke(bot, method === '' ? (params.get('method') ?? '') : method, params, onAbort)
    return isPromise(answer) ? answer.then(okReply, errorReply) : okReply(answer)
  } catch (err) {
    return errorReply(err)
  }
}

function send(res: http.ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return
  const headers: http.OutgoingHttpHeaders = {
    Connection: 'keep-alive',
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(reply.body),
  }
  if (reply.retryAfter && reply.retryAfter > 0) headers['Retry-After'] = String(reply.retryAfter)
  res.writeHead(reply.status, headers)
  res.end(reply.body)
}

const sendError = (res: http.ServerResponse, error: unknown): void => send(res, errorReply(error))

/** The request handler of the emulator's HTTP server; `scope` says who may call it (guard.ts). */
export function createHandler(router: Router, scope: Scope): http.RequestListener {
  return (req, res) => {
    const refused = refusal(req.headers, scope)
    if (refused !== undefined) {
      forbid(req, res, refused)
      return
    }
    void handle(router, req, res).catch((err: unknown) => {
      try {
        sendError(res, err)
      } catch {
        res.destroy() // nothing a request does may take the process down
      }
    })
  }
}

/** 403 in the words of the surface asked: the control API's `{"error": …}`, else the Bot API's envelope. */
function forbid(req: http.IncomingMessage, res: http.ServerResponse, reason: string): void {
  req.resume()
  const url = req.url ?? ''
  if (url === '/_emulator' || url.startsWith('/_emulator/') || url.startsWith('/_emulator?')) {
    const body = JSON.stringify({error: reason})
    res.writeHead(403, {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body)})
    res.end(body)
    return
  }
  sendError(res, new ApiError(403, `Forbidden: ${reason}`))
}

async function handle(router: Router, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'POST') {
    // The server's HTTP parser fails with 501 and a bare status line, then closes the connection.
    req.resume()
    res.writeHead(501, {'Content-Length': 0, Connection: 'close'})
    res.end()
    return
  }
  const url = req.url ?? ''
  if (!url.startsWith('/')) throw notFound('absolute URI is specified in the Request-Line')
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  const search = q < 0 ? '' : url.slice(q + 1)
  if (path === '/_emulator' || path.startsWith('/_emulator/')) return router.control(req, res, path, search)
  if (path.startsWith('/file/bot')) return download(router, req, res, path.slice('/file/bot'.length))
  if (!path.startsWith('/bot')) {
    const served = router.page?.(req, res, path, search)
    if (served) return served
    throw notFound()
  }

  // The caller is gone when the response closes before it was sent (client disconnect, or stop() closing it).
  const onAbort = (fn: () => void): (() => void) => {
    const listener = (): void => {
      if (!res.writableFinished) fn()
    }
    res.once('close', listener)
    return () => res.off('close', listener)
  }
  const reply = serveBotCall(router, path.slice(4), () => readParams(search, req.headers, req), onAbort)
  send(res, isPromise(reply) ? await reply : reply)
}

/**
 * GET /file/bot<token>/<file_path>: the file's bytes, as the cloud serves downloads
 * (core.telegram.org/bots/api#getfile); anything else is the cloud's `404
 * {"ok":false,"error_code":404,"description":"Not Found"}`.
 */
function download(router: Router, req: http.IncomingMessage, res: http.ServerResponse, rest: string): void {
  req.resume()
  const slash = rest.indexOf('/')
  const data = slash > 0 ? router.file(safeDecode(rest.slice(0, slash)), safeDecode(rest.slice(slash + 1))) : undefined
  if (!data) {
    sendError(res, notFound())
    return
  }
  res.writeHead(200, {
    'Content-Type': contentType(rest),
    'Content-Length': data.length,
    Connection: 'keep-alive',
  })
  res.end(req.method === 'GET' ? data : undefined)
}

const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  pdf: 'application/pdf',
  zip: 'application/zip',
  txt: 'text/plain',
  json: 'application/json',
}

const contentType = (path: string): string =>
  CONTENT_TYPES[/\.([a-z0-9]+)$/i.exec(path)?.[1].toLowerCase() ?? ''] ?? 'application/octet-stream'

/** An unexpected error in a few words (whatever was thrown: its String() may throw too). */
function describe(err: unknown): string {
  try {
    return String(err)
  } catch {
    return 'unexpected error'
  }
}

function safeDecode(text: string): string {
  if (!text.includes('%')) return text // nothing to decode (a token and a method name, on every call)
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
