/**
 * The inspector: a web page and JSON API on loopback over the session's update history.
 *
 *   GET  /                              the page (plain HTML/CSS/JS from ./page)
 *   GET  /app.js, /style.css, /favicon.svg
 *   GET  /api/updates[?chat=&type=&tag=&thread=]  entries, newest first
 *   GET  /api/threads/{id}              the entries of a thread (a payment's updates), oldest first
 *   GET  /api/updates/{updateId}        the newest entry with that update_id
 *   POST /api/updates/{updateId}/replay deliver it again (optional JSON body: the edited update)
 *   GET  /api/events                    SSE: `event: entry` per new or changed entry
 *   POST /api/chat-script               a range of entries as an anonymised chat script
 *                                       (JSON body {first, last, chat?, name?}; with name, written to test/NAME.chat.yml)
 *
 * Every request needs the session's key (`?key=` or `x-bot-dev-key`; the header wins when both
 * are sent, the first `?key=` when it is repeated), or the cookie a one-time code of openUrl()
 * was exchanged for (`GET /?code=…`: once, within openCodeTtlMs) and exactly one loopback Host header naming this
 * port (a page on another site that rebinds its DNS name to 127.0.0.1 gets 403). A POST made by a
 * page of another origin is refused (403) even with the key: an `Origin` other than this server's
 * own (127.0.0.1, localhost or [::1] with this port), `Origin: null`, or `Sec-Fetch-Site` other than
 * same-origin / none; tools that send neither (curl, scripts) are served (lib/loopback-http.ts, the
 * checks the control port and the api proxy share). An edited update nested deeper than a real one
 * ever is (MAX_EDIT_DEPTH) is refused before anything walks it; whether it is an Update is checked
 * by the replay the session injects (control/synthetic.ts checkUpdateObject, the control port's
 * check), and a replay
 * the session does not answer within `actionTimeoutMs` gets 504. Connections that have not sent a
 * request with the key are bounded (lib/connection-guard.ts: the oldest idle ones are closed first).
 * Listens on 127.0.0.1 only; no CORS; nothing cached; answers run through the token redaction.
 */
import {randomBytes} from 'node:crypto'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'

import {ConnectionGuard} from '../../lib/connection-guard.js'
import {
  BodyTooLarge,
  BODY_LIMIT,
  fromAnotherSite,
  keyMatches,
  readBody,
  requestHostAllowed,
} from '../../lib/loopback-http.js'
import {presentedKey, SECURITY_HEADERS, send, sendError, sendJson} from './http.js'
import {MAX_EDIT_DEPTH, nestedDeeperThan} from '../../lib/json-depth.js'
import {FAVICON_SVG, loadPage, NO_KEY_HTML, pageHtml, type PageFiles} from './page-files.js'
import {SseHub} from './sse.js'
import {ChatScriptError, chatScriptFromHistory} from '../chat-script.js'
import type {ActionFailure, HistoryView, UpdateEntry} from '../types.js'
import {messageOf} from '../../lib/errors.js'
import {listeningPort} from '../../lib/server-port.js'
import {isJsonObject, objectOf, type JsonObject} from '../../lib/json-object.js'

export interface InspectorServerOptions {
  history: HistoryView
  actions: {
    /**
     * Deliver a recorded update again (optionally edited); rejects with an ActionFailure when it
     * cannot, a 400 one when the edited update is not an Update (the session's check).
     */
    replay(updateId: number, edited?: JsonObject): Promise<UpdateEntry>
  }
  key: string
  host?: string
  port?: number
  /** Strings never to appear in an answer (the token, the webhook secret and path). */
  secrets?: string[]
  /** SSE heartbeat period (default 15 s). */
  heartbeatMs?: number
  /** Bytes one SSE client may have queued before it is dropped (default 1 MiB). */
  sseMaxBuffered?: number
  /** How long a replay may take before the request gets 504 (default 60 s; the session's own deadline is shorter). */
  actionTimeoutMs?: number
  /** A client must have sent its request headers within this long (default 60 s, Node's). */
  headersTimeoutMs?: number
  /** Most connections kept open without a request that has the key (default 32; the oldest idle go first). */
  maxIdleConnections?: number
  /** Most connections in all (default 256); beyond, a request is answered 503. */
  maxConnections?: number
  /** How long a one-time code of openUrl() may be exchanged (default 60 s). */
  openCodeTtlMs?: number
  /**
   * The chat page (src/chat/server.ts), served at `/chat` behind the same key, cookie, Host and Origin checks: its
   * handler gets the path after `/chat` ('/' for the page itself).
   */
  chat?: {
    handle(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void>
    close(): void
  }
  /** The project folder "Save as chat script" writes `test/NAME.chat.yml` in (without it: the text only). */
  projectDir?: string
  /** The script's `bot:` line: the session's bot command when `bot test` would not run it by default. */
  scriptCommand?: string
}

export interface InspectorServer {
  /** http://127.0.0.1:PORT/?key=KEY */
  url: string
  /**
   * http://127.0.0.1:PORT/?code=CODE, for a browser started by `bot dev` (`o`, `:o`): its argv is
   * public (`ps`), so it gets a code instead of the key, valid once and for openCodeTtlMs, that the
   * page exchanges for an HttpOnly, SameSite=Strict cookie (then it redirects to the page without it).
   */
  openUrl(path?: '/' | '/chat'): string
  /** http://127.0.0.1:PORT/chat?key=KEY when the chat page is served (the `chat` option), else undefined. */
  chatUrl?: string
  port: number
  /** Stop taking connections and close those with no request in progress (a session's teardown). */
  quiesce(): void
  close(): Promise<void>
}

/** Default bounds on the inspector's connections: a page uses a handful (its files, the API, one event stream). */
export const INSPECTOR_MAX_IDLE = 32
export const INSPECTOR_MAX_CONNECTIONS = 256

const JS = 'text/javascript; charset=utf-8'
const CSS = 'text/css; charset=utf-8'
const HTML = 'text/html; charset=utf-8'

interface Context {
  o: InspectorServerOptions
  secrets: string[]
  page: PageFiles
  sse: SseHub
  guard: ConnectionGuard
  /** One-time codes not exchanged yet → when they expire (performance.now()). */
  codes: Map<string, number>
  /** The cookie values the codes were exchanged for (each as good as the key). */
  cookies: Set<string>
}

/** Bounds: codes not exchanged (the oldest dropped), cookies handed out (the oldest dropped). */
const MAX_CODES = 16
const MAX_COOKIES = 64
const DEFAULT_OPEN_CODE_TTL_MS = 60_000

/** The cookie's name: per port, as browsers send a host's cookies to all its ports. */
const cookieName = (port: number) => `bot_dev_inspector_${port}`

function cookieOf(req: IncomingMessage, port: number): string | undefined {
  const header = req.headers.cookie
  if (!header) return undefined
  const name = cookieName(port)
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

function cookieMatches(ctx: Context, req: IncomingMessage, port: number): boolean {
  const presented = cookieOf(req, port)
  if (presented === undefined) return false
  let ok = false
  for (const value of ctx.cookies) if (keyMatches(presented, value)) ok = true
  return ok
}

/** `GET /?code=…`: a valid code once, for a cookie and a redirect to the page; anything else 401. */
function exchangeCode(ctx: Context, port: number, code: string, res: ServerResponse, path = '/'): void {
  const expires = ctx.codes.get(code)
  ctx.codes.delete(code)
  if (expires === undefined || performance.now() > expires) {
    send(res, 401, HTML, CODE_USED_HTML)
    return
  }
  const value = randomBytes(16).toString('hex')
  ctx.cookies.add(value)
  if (ctx.cookies.size > MAX_COOKIES) ctx.cookies.delete(ctx.cookies.values().next().value as string)
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    Location: path,
    'Set-Cookie': `${cookieName(port)}=${value}; HttpOnly; SameSite=Strict; Path=/`,
    'Content-Length': 0,
  })
  res.end()
}

const CODE_USED_HTML = `<!doctype html><meta charset="utf-8"><title>bot dev inspector</title>
<p>This link to the inspector was used already, or it is older than a minute: each one opens it once.</p>
<p>Press <code>o</code> in <code>bot dev</code>'s terminal (<code>:o</code> in the offline chat) for a new one, or open the URL it printed at start-up (it carries <code>?key=…</code>).</p>
`

export async function startInspectorServer(o: InspectorServerOptions): Promise<InspectorServer> {
  if (!o.key) throw new Error('the inspector needs a non-empty key')
  const host = o.host ?? '127.0.0.1'
  const secrets = (o.secrets ?? []).filter(Boolean)
  const page = await loadPage()
  const sse = new SseHub({history: o.history, secrets, heartbeatMs: o.heartbeatMs, maxBuffered: o.sseMaxBuffered})
  let port = 0
  const headersTimeout = o.headersTimeoutMs ?? 60_000
  // Node looks for connections past the deadline every 30 s by default; a shorter deadline is checked more often.
  const connectionsCheckingInterval = Math.min(30_000, headersTimeout / 2)
  const server: Server = createServer({headersTimeout, connectionsCheckingInterval}, (req, res) => {
    if (ctx.guard.over(req)) {
      res.shouldKeepAlive = false
      sendError(res, 503, 'the inspector has too many connections open', 'close some inspector tabs', secrets)
      return
    }
    handle(ctx, port, req, res).catch((err: unknown) => {
      try {
        sendError(
          res,
          500,
          `the inspector failed: ${err instanceof Error ? err.message : String(err)}`,
          undefined,
          secrets,
        )
      } catch {
        res.destroy()
      }
    })
  })
  const guard = new ConnectionGuard(server, {
    maxIdle: o.maxIdleConnections ?? INSPECTOR_MAX_IDLE,
    maxTotal: o.maxConnections ?? INSPECTOR_MAX_CONNECTIONS,
  })
  const ctx: Context = {o, secrets, page, sse, guard, codes: new Map(), cookies: new Set()}
  server.on('clientError', (_err, socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', () => {})
  port = listeningPort(server)
  let closing: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}/?key=${encodeURIComponent(o.key)}`,
    openUrl(path = '/') {
      const code = randomBytes(16).toString('hex')
      ctx.codes.set(code, performance.now() + (o.openCodeTtlMs ?? DEFAULT_OPEN_CODE_TTL_MS))
      if (ctx.codes.size > MAX_CODES) ctx.codes.delete(ctx.codes.keys().next().value as string)
      return `http://127.0.0.1:${port}${path}?code=${code}`
    },
    ...(o.chat ? {chatUrl: `http://127.0.0.1:${port}/chat?key=${encodeURIComponent(o.key)}`} : {}),
    port,
    quiesce() {
      server.close()
      guard.closeIdle()
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        sse.close()
        o.chat?.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}

async function handle(ctx: Context, port: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const {o, secrets} = ctx
  const target = req.url ?? '/'
  const api = target.startsWith('/api/')
  // Host first: a foreign Host learns nothing else, not even whether its request parses.
  if (!requestHostAllowed(req, port)) {
    const error = 'this inspector answers only on 127.0.0.1, localhost or [::1] with its own port'
    if (api) sendError(res, 403, error, 'open the URL printed by bot dev', secrets)
    else send(res, 403, 'text/plain; charset=utf-8', error + '\n')
    return
  }
  let url: URL
  try {
    url = new URL(target, 'http://127.0.0.1')
  } catch {
    sendError(res, 400, 'the request target is not a URL path', 'open the URL printed by bot dev', secrets)
    return
  }
  const path = url.pathname
  const code = (path === '/' || path === '/chat') && req.method === 'GET' ? url.searchParams.get('code') : null
  if (code !== null) return exchangeCode(ctx, port, code, res, path)
  if (!keyMatches(presentedKey(req, url), o.key) && !cookieMatches(ctx, req, port)) {
    if (api)
      sendError(
        res,
        401,
        'the inspector key is missing or wrong',
        'use the URL printed by bot dev (?key=…) or send the key in the x-bot-dev-key header',
        secrets,
      )
    else send(res, 401, HTML, NO_KEY_HTML)
    return
  }
  // With the key: this connection is no longer one of the idle ones bounded.
  ctx.guard.busy(req, res)
  const method = req.method ?? 'GET'
  if (method !== 'GET' && method !== 'HEAD' && fromAnotherSite(req, port) !== undefined) {
    sendError(
      res,
      403,
      'a request from another site is refused',
      'use the inspector page itself, or send the request without an Origin header (curl, scripts)',
      secrets,
    )
    return
  }
  if (o.chat && (path === '/chat' || path.startsWith('/chat/')))
    return o.chat.handle(req, res, path.slice('/chat'.length) || '/', url.search.slice(1))
  if (path === '/' || path === '/app.js' || path === '/style.css' || path === '/favicon.svg') {
    if (method !== 'GET' && method !== 'HEAD') return notAllowed(res, 'GET', secrets)
    if (path === '/') send(res, 200, HTML, pageHtml(ctx.page, o.key, o.chat !== undefined))
    else if (path === '/app.js') send(res, 200, JS, ctx.page.js)
    else if (path === '/style.css') send(res, 200, CSS, ctx.page.css)
    else send(res, 200, 'image/svg+xml', FAVICON_SVG)
    return
  }
  if (path === '/api/updates') {
    if (method !== 'GET') return notAllowed(res, 'GET', secrets)
    sendJson(res, 200, filtered(o.history.list(), url.searchParams), secrets)
    return
  }
  if (path === '/api/events') {
    if (method !== 'GET') return notAllowed(res, 'GET', secrets)
    ctx.sse.attach(res)
    return
  }
  if (path === '/api/chat-script') {
    if (method !== 'POST') return notAllowed(res, 'POST', secrets)
    await chatScript(ctx, req, res)
    return
  }
  const thread = /^\/api\/threads\/([A-Za-z0-9_-]{1,40})$/.exec(path)
  if (thread) {
    if (method !== 'GET') return notAllowed(res, 'GET', secrets)
    const list = o.history.thread?.(thread[1]) ?? []
    if (list.length > 0) sendJson(res, 200, {id: thread[1], kind: list[0].thread?.kind, entries: list}, secrets)
    else
      sendError(
        res,
        404,
        `no thread ${thread[1]} in this session's history`,
        'an entry of GET /api/updates names its thread (thread.id)',
        secrets,
      )
    return
  }
  const one = /^\/api\/updates\/([^/]+)(\/replay)?$/.exec(path)
  if (one) {
    const updateId = parseUpdateId(one[1])
    if (updateId === undefined) {
      sendError(
        res,
        400,
        `"${one[1].slice(0, 40)}" is not an update_id`,
        'use the updateId of an entry of GET /api/updates (an integer)',
        secrets,
      )
      return
    }
    if (one[2]) {
      if (method !== 'POST') return notAllowed(res, 'POST', secrets)
      await replay(ctx, req, res, updateId)
      return
    }
    if (method !== 'GET') return notAllowed(res, 'GET', secrets)
    const entry = o.history.find(updateId)
    if (entry) sendJson(res, 200, entry, secrets)
    else
      sendError(
        res,
        404,
        `no update ${updateId} in this session's history`,
        'GET /api/updates lists the recorded updates',
        secrets,
      )
    return
  }
  sendError(
    res,
    404,
    `no route ${method} ${path}`,
    'the API is GET /api/updates, GET /api/updates/{updateId}, POST /api/updates/{updateId}/replay, GET /api/threads/{id}, GET /api/events, POST /api/chat-script',
    secrets,
  )
}

async function replay(ctx: Context, req: IncomingMessage, res: ServerResponse, updateId: number): Promise<void> {
  const {secrets} = ctx
  let text: string
  try {
    text = await readBody(req)
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      // Answer, close the connection after it, and discard (not keep) what the client still sends,
      // up to a bound past which its socket is cut.
      res.shouldKeepAlive = false
      sendError(res, 413, `the edited update is over ${BODY_LIMIT / 1024 / 1024} MiB`, 'send a smaller update', secrets)
      let discarded = 0
      req.on('data', (chunk: Buffer) => {
        discarded += chunk.length
        if (discarded > 16 * BODY_LIMIT) req.socket.destroy()
      })
      req.resume()
      return
    }
    throw err
  }
  let edited: JsonObject | undefined
  if (text.trim() !== '') {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (err) {
      sendError(
        res,
        400,
        `the edited update is not valid JSON: ${messageOf(err)}`,
        'send the update as a JSON object, or no body to replay it unchanged',
        secrets,
      )
      return
    }
    if (!isJsonObject(parsed)) {
      sendError(
        res,
        400,
        'the edited update must be a JSON object',
        'send the update as a JSON object ({"update_id": …, "message": {…}}), or no body to replay it unchanged',
        secrets,
      )
      return
    }
    // A bound on what this server holds, before anything walks it; what makes an Update is the
    // session's check, in the injected replay.
    if (nestedDeeperThan(parsed, MAX_EDIT_DEPTH)) {
      sendError(
        res,
        400,
        `the edited update is nested more than ${MAX_EDIT_DEPTH} levels deep`,
        'send an update shaped like a real one (GET /api/updates/{updateId} shows it)',
        secrets,
      )
      return
    }
    edited = parsed
  }
  let entry: UpdateEntry
  const timeoutMs = ctx.o.actionTimeoutMs ?? 60_000
  let timer: NodeJS.Timeout | undefined
  try {
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new ReplayTimeout()), timeoutMs)
    })
    entry = await Promise.race([ctx.o.actions.replay(updateId, edited), late])
  } catch (err) {
    if (err instanceof ReplayTimeout) {
      sendError(
        res,
        504,
        `the session gave no answer to the replay within ${Math.round(timeoutMs / 1000)} s`,
        'look at the bot dev terminal: the bot may be restarting or stuck',
        secrets,
      )
      return
    }
    if (isActionFailure(err)) {
      sendError(res, err.status, err.message, err.fix, secrets)
      return
    }
    sendError(res, 500, `the replay failed: ${err instanceof Error ? err.message : String(err)}`, undefined, secrets)
    return
  } finally {
    clearTimeout(timer)
  }
  sendJson(res, 200, entry, secrets)
}

class ReplayTimeout extends Error {}

/** `POST /api/chat-script` {first, last, chat?, name?}: the range as a chat script (chat-script.ts), written with a name. */
async function chatScript(ctx: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const {secrets} = ctx
  const fix = 'send {"first": SEQ, "last": SEQ, "name": "NAME"} (name optional), the seq of the first and last entry'
  let body: unknown
  try {
    const text = await readBody(req)
    body = text.trim() === '' ? undefined : JSON.parse(text)
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      res.shouldKeepAlive = false
      sendError(res, 413, 'the request is too large', fix, secrets)
      req.resume()
      return
    }
    sendError(res, 400, `the request is not valid JSON: ${messageOf(err)}`, fix, secrets)
    return
  }
  const b = objectOf(body)
  const seqOf = (value: unknown) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined
  const first = seqOf(b.first)
  const last = seqOf(b.last ?? b.first)
  const chat =
    b.chat === undefined ? undefined : typeof b.chat === 'number' && Number.isSafeInteger(b.chat) ? b.chat : Number.NaN
  const unknown = Object.keys(b).filter((k) => !['first', 'last', 'chat', 'name'].includes(k))
  if (
    first === undefined ||
    last === undefined ||
    Number.isNaN(chat) ||
    (b.name !== undefined && typeof b.name !== 'string') ||
    unknown.length > 0
  ) {
    const what =
      unknown.length > 0
        ? `unknown field "${unknown[0]}"`
        : first === undefined
          ? 'first is missing or not a seq'
          : last === undefined
            ? 'last is not a seq'
            : Number.isNaN(chat)
              ? 'chat is not a chat id'
              : 'name is not a string'
    sendError(res, 400, `bad request: ${what}`, fix, secrets)
    return
  }
  try {
    const answer = chatScriptFromHistory(
      ctx.o.history,
      {first, last, ...(chat !== undefined ? {chat} : {}), ...(typeof b.name === 'string' ? {name: b.name} : {})},
      {projectDir: ctx.o.projectDir, secrets, ...(ctx.o.scriptCommand ? {bot: ctx.o.scriptCommand} : {})},
    )
    sendJson(res, answer.path ? 201 : 200, answer, secrets)
  } catch (err) {
    if (err instanceof ChatScriptError) {
      sendError(res, err.status, err.message, err.fix, secrets)
      return
    }
    throw err
  }
}

function parseUpdateId(s: string): number | undefined {
  if (!/^-?\d{1,16}$/.test(s)) return undefined
  const n = Number(s)
  return Number.isSafeInteger(n) ? n : undefined
}

function filtered(entries: UpdateEntry[], params: URLSearchParams): UpdateEntry[] {
  const chat = params.get('chat')
  const type = params.get('type')
  const tag = params.get('tag')
  const thread = params.get('thread')
  if (!chat && !type && !tag && !thread) return entries
  return entries.filter(
    (e) =>
      (!chat || String(e.chatId) === chat) &&
      (!type || e.type === type) &&
      (!tag || (e.tags ?? []).includes(tag)) &&
      (!thread || e.thread?.id === thread),
  )
}

function notAllowed(res: ServerResponse, allow: string, secrets: string[]): void {
  res.setHeader('Allow', allow)
  sendError(res, 405, `use ${allow} here`, undefined, secrets)
}

function isActionFailure(error: unknown): error is ActionFailure {
  return error instanceof Error && typeof (error as {status?: unknown}).status === 'number'
}
