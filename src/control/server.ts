/**
 * The session's control port: a small HTTP server on 127.0.0.1 (a random port) through which
 * `bot trigger` and `bot replay` ask the running `bot dev` session to deliver an update.
 *
 *   POST /trigger  body TriggerRequest                              → 200 TriggerResult
 *   POST /replay   body {updateId: number | 'last', update?: object} → 200 UpdateEntry
 *
 * and what `bot mcp` reads and does (SessionQueries, protocol.ts), when the session serves it:
 *
 *   GET  /status                                   → 200 SessionStatus (no secret: no token, key, webhook path)
 *   GET  /actions                                  → 200 {actions: SessionAction[]} (the user actions it can run)
 *   POST /actions/{name}   body the action's input → 200 ActionOutcome (offline: the emulator's table of user
 *                                                     actions; online: the synthetic update of `bot trigger`)
 *   GET  /updates?limit=N&chat_id=ID&type=T        → 200 {updates: UpdateEntry[]} newest first (limit ≤ 1000)
 *   GET  /updates/{update_id}                      → 200 UpdateEntry (404 when not recorded)
 *   GET  /calls?limit=N&method=M&failed_only=1     → 200 {calls: CallRow[]} newest first, with explanations
 *   GET  /output?limit=N                           → 200 {lines: OutputLine[]} the bot's last lines, oldest first
 *   GET  /transcript?chat_id=ID&limit=N            → 200 Transcript (default: the newest chat)
 *   POST /restart                                  → 200 RestartOutcome once the bot takes updates again
 *   POST /faults           body FaultRequest       → 200 {ok: true} (offline: the emulator's failNext)
 *   POST /script           body {text, file?, base_dir?} → 200 ChatScriptReport (offline: runChatScript)
 *
 * Every request needs exactly one loopback Host header naming this port (else 403, against DNS
 * rebinding), no sign of a web page of another site (Origin, Sec-Fetch-Site: else 403) and the key in
 * the `x-bot-dev-key` header (compared in constant time, else 401): the checks of
 * lib/loopback-http.ts, shared with the inspector and the api proxy. Connections without such a
 * request are bounded (the oldest idle ones are closed first); with every connection busy, a new
 * request gets 503 "busy". Bodies are capped (413), an update is checked by checkUpdateObject (the
 * one check of trigger and replay, also the inspector's), requests and the wait for the session
 * have deadlines, and no request can throw out of the handler.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'

import {redactSecrets} from '../telegram/redact.js'
import {ConnectionGuard} from '../lib/connection-guard.js'
import {withTimeout} from '../lib/deadline.js'
import {messageOf} from '../lib/errors.js'
import {MAX_EDIT_DEPTH, nestedDeeperThan} from '../lib/json-depth.js'
import {
  BodyCutOff,
  BodyTooLarge,
  fromAnotherSite,
  keyMatches,
  readBody,
  requestHostAllowed,
} from '../lib/loopback-http.js'
import {checkWith} from '../lib/refusal.js'
import {
  actionInput,
  checkFaultRequest,
  checkReplayRequest,
  checkScriptRequest,
  checkTriggerRequest,
  type ReplayRequest,
} from './requests.js'
import {
  ActionError,
  KEY_HEADER,
  MAX_BODY_BYTES,
  MAX_TRIGGER_BODY_BYTES,
  type SessionActions,
  type FaultRequest,
  type SessionQueries,
} from './protocol.js'
import {listeningPort} from '../lib/server-port.js'

export const ACTION_DEADLINE_MS = 35_000

export interface ControlPortOptions {
  actions: SessionActions
  /** What `bot mcp` reads and does (the GET routes, /actions, /restart, /faults); absent: only /trigger and /replay. */
  queries?: SessionQueries
  key: string
  /** Default 0: a free port. */
  port?: number
  /** Redacted from every answer (the token, the webhook secret). */
  secrets?: string[]
  /** How long to wait for the session to deliver (default 35 s). */
  deadlineMs?: number
  /** Body cap in bytes (default 1 MiB; POST /trigger 8 MiB, for a photo). */
  maxBodyBytes?: number
  /** Most connections kept open without a request that has the key (default 16; the oldest idle go first). */
  maxIdleConnections?: number
  /** Most connections in all (default 64); beyond, a request is answered 503 (busy). */
  maxConnections?: number
}

export interface ControlPort {
  port: number
  /** Stop taking connections and close those with no request in progress (a session's teardown). */
  quiesce(): void
  close(): Promise<void>
}

export const CONTROL_MAX_IDLE = 16
export const CONTROL_MAX_CONNECTIONS = 64

/** The error of a control port with every connection busy (`bot trigger` says the session is busy). */
export const BUSY_ERROR = 'The session is busy: every connection of its control port is in use.'

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fix?: string,
  ) {
    super(message)
  }
}

/** The body of a control request, or a Refused saying why not. */
async function readRequestBody(req: IncomingMessage, max: number): Promise<string> {
  try {
    return await readBody(req, max)
  } catch (error) {
    if (error instanceof BodyTooLarge)
      throw new Refused(413, `The request body is over ${max} bytes.`, 'Send a smaller update.')
    if (error instanceof BodyCutOff) throw new Refused(400, 'The request body was cut off.', 'Send the whole body.')
    throw error
  }
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text)
    if (nestedDeeperThan(value, MAX_EDIT_DEPTH))
      throw new Refused(
        400,
        `The request body nests more than ${MAX_EDIT_DEPTH} levels deep.`,
        'Send an update shaped like a real one.',
      )
    return value
  } catch (error) {
    if (error instanceof Refused) throw error
    throw new Refused(400, 'The request body is not valid JSON.', 'Send a JSON object.')
  }
}

/** The delivery's outcome, or 504 when the session has not finished it within `ms`. */
const withDeadline = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  withTimeout(
    promise,
    ms,
    () =>
      new Refused(
        504,
        `The session did not finish the delivery within ${Math.round(ms / 1000)} s.`,
        'Check the bot: it may hang on this update (see the `bot dev` log).',
      ),
  )

/** The body of `POST /replay`, checked (requests.ts replayRequest). */
function replayArgs(body: unknown): ReplayRequest {
  const checked = checkReplayRequest(body)
  if ('error' in checked) throw new Refused(400, checked.error, checked.fix)
  return checked
}

type QueryName =
  | 'status'
  | 'actions'
  | 'act'
  | 'updates'
  | 'update'
  | 'calls'
  | 'output'
  | 'transcript'
  | 'restart'
  | 'faults'
  | 'script'

/** The `bot mcp` route of a path, with its method and its one path argument. */
function queryRoute(path: string): {name: QueryName; method: 'GET' | 'POST'; arg?: string} | undefined {
  const fixed: Record<string, {name: QueryName; method: 'GET' | 'POST'}> = {
    '/status': {name: 'status', method: 'GET'},
    '/actions': {name: 'actions', method: 'GET'},
    '/updates': {name: 'updates', method: 'GET'},
    '/calls': {name: 'calls', method: 'GET'},
    '/output': {name: 'output', method: 'GET'},
    '/transcript': {name: 'transcript', method: 'GET'},
    '/restart': {name: 'restart', method: 'POST'},
    '/faults': {name: 'faults', method: 'POST'},
    '/script': {name: 'script', method: 'POST'},
  }
  if (Object.hasOwn(fixed, path)) return fixed[path]
  const action = /^\/actions\/([a-z_]{1,64})$/.exec(path)
  if (action) return {name: 'act', method: 'POST', arg: action[1]}
  const update = /^\/updates\/([^/]{1,32})$/.exec(path)
  if (update) return {name: 'update', method: 'GET', arg: update[1]}
  return undefined
}

/** `?limit=N`: 1…1000, default `fallback`; anything else is refused. */
function limitParam(params: URLSearchParams, fallback: number): number {
  const raw = params.get('limit')
  if (raw === null || raw === '') return fallback
  const n = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN
  if (!(n >= 1 && n <= 1000))
    throw new Refused(400, `limit "${raw}" is not a whole number from 1 to 1000.`, 'Pass e.g. ?limit=20.')
  return n
}

/** An optional integer query parameter (a chat id: negative for groups). */
function optionalId(params: URLSearchParams, name: string): {chatId?: number} {
  const raw = params.get(name)
  if (raw === null || raw === '') return {}
  const n = /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(n) || n === 0)
    throw new Refused(400, `${name} "${raw}" is not a chat id (a non-zero integer).`, `Pass e.g. ?${name}=1111.`)
  return {chatId: n}
}

/** A FaultRequest, checked (requests.ts faultRequest): a method name, an error code, a description. */
function checkFault(body: unknown): FaultRequest {
  const checked = checkFaultRequest(body)
  if ('error' in checked) throw new Refused(400, checked.error, checked.fix)
  return checked
}

export function startControlPort(o: ControlPortOptions): Promise<ControlPort> {
  const secrets = [o.key, ...(o.secrets ?? [])]
  const deadlineMs = o.deadlineMs ?? ACTION_DEADLINE_MS
  const maxBody = (path: string) => o.maxBodyBytes ?? (path === '/trigger' ? MAX_TRIGGER_BODY_BYTES : MAX_BODY_BYTES)
  let port = 0

  const send = (res: ServerResponse, status: number, value: unknown, close = false) => {
    if (res.headersSent || res.destroyed) return
    const body = redactSecrets(JSON.stringify(value), secrets)
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...(close ? {connection: 'close'} : {}),
    })
    res.end(body)
  }

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    if (!requestHostAllowed(req, port))
      throw new Refused(403, 'Only loopback Host headers are served here.', `Use http://127.0.0.1:${port}.`)
    const foreign = fromAnotherSite(req, port)
    if (foreign)
      throw new Refused(
        403,
        `A request from a web page (${foreign}) is refused.`,
        'Use `bot trigger` / `bot replay`, or send the request without an Origin header.',
      )
    const given = req.headers[KEY_HEADER]
    if (!keyMatches(Array.isArray(given) ? given[0] : given, o.key))
      throw new Refused(
        401,
        `Missing or wrong ${KEY_HEADER} header.`,
        "Use `bot trigger` / `bot replay`: they read the key from the session's control record.",
      )
    guard.busy(req, res)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const path = url.pathname
    if (path === '/trigger' || path === '/replay') {
      if (req.method !== 'POST') throw new Refused(405, `${req.method} ${path} is not allowed.`, `Use POST ${path}.`)
      const body = parseJson(await readRequestBody(req, maxBody(path)))
      if (path === '/trigger') {
        const checked = checkTriggerRequest(body)
        if ('error' in checked) throw new Refused(400, checked.error, checked.fix)
        return withDeadline(o.actions.trigger(checked.request), deadlineMs)
      }
      const {updateId, update} = replayArgs(body)
      return withDeadline(o.actions.replay(updateId, update), deadlineMs)
    }
    const q = o.queries
    const known = q ? queryRoute(path) : undefined
    if (!q || !known)
      throw new Refused(
        404,
        `No route ${path}.`,
        q
          ? 'Use POST /trigger, /replay, /actions/{name}, /restart, /faults, /script or GET /status, /actions, /updates, /calls, /output, /transcript.'
          : 'Use POST /trigger or POST /replay.',
      )
    if (req.method !== known.method)
      throw new Refused(405, `${req.method} ${path} is not allowed.`, `Use ${known.method} ${path}.`)
    const params = url.searchParams
    switch (known.name) {
      case 'status':
        return q.status()
      case 'actions':
        return {actions: q.actions()}
      case 'act': {
        const input = checkWith(actionInput, parseJson(await readRequestBody(req, maxBody('/trigger'))))
        if ('error' in input) throw new Refused(400, input.error, input.fix)
        return withDeadline(q.act(known.arg!, input.output), deadlineMs)
      }
      case 'updates':
        return {
          updates: q.updates({
            limit: limitParam(params, 20),
            ...optionalId(params, 'chat_id'),
            ...(params.get('type') ? {type: params.get('type')!} : {}),
          }),
        }
      case 'update': {
        const id = Number(known.arg)
        if (!/^\d{1,16}$/.test(known.arg!) || !Number.isSafeInteger(id))
          throw new Refused(400, `update_id "${known.arg}" is not a non-negative integer.`, 'Use GET /updates/123.')
        const entry = q.update(id)
        if (!entry)
          throw new Refused(
            404,
            `Update ${id} is not in this session's history.`,
            'List the recorded updates (GET /updates) and pick one of their update_ids.',
          )
        return entry
      }
      case 'calls':
        return {
          calls: q.calls({
            limit: limitParam(params, 20),
            ...(params.get('method') ? {method: params.get('method')!} : {}),
            failedOnly: ['1', 'true'].includes(params.get('failed_only') ?? ''),
          }),
        }
      case 'output':
        return {lines: q.output({limit: limitParam(params, 50)})}
      case 'transcript':
        return q.transcript({limit: limitParam(params, 50), ...optionalId(params, 'chat_id')})
      case 'restart':
        await readRequestBody(req, MAX_BODY_BYTES)
        return withDeadline(q.restart(), deadlineMs)
      case 'faults': {
        const body = parseJson(await readRequestBody(req, MAX_BODY_BYTES))
        return q.fault(checkFault(body))
      }
      case 'script': {
        const body = checkScriptRequest(parseJson(await readRequestBody(req, MAX_BODY_BYTES)))
        if ('error' in body) throw new Refused(400, body.error, body.fix)
        return withDeadline(
          q.script({
            text: body.text,
            ...(body.file !== undefined ? {file: body.file} : {}),
            ...(body.base_dir !== undefined ? {baseDir: body.base_dir} : {}),
          }),
          deadlineMs,
        )
      }
    }
  }

  const server = createServer((req, res) => {
    req.on('error', () => {}) // a client that goes away mid-body changes nothing
    res.on('error', () => {})
    if (guard.over(req)) {
      req.resume()
      send(res, 503, {error: BUSY_ERROR, fix: 'Wait for the triggers in flight to finish, then try again.'}, true)
      return
    }
    route(req, res)
      .then((entry) => send(res, 200, entry))
      .catch((error: unknown) => {
        if (error instanceof Refused) {
          // A refused body was not read to its end: close the connection after the answer.
          send(res, error.status, {error: error.message, ...(error.fix ? {fix: error.fix} : {})}, error.status === 413)
        } else if (error instanceof ActionError) {
          const status =
            Number.isInteger(error.status) && error.status >= 400 && error.status < 600 ? error.status : 500
          send(res, status, {error: error.message, ...(error.fix ? {fix: error.fix} : {})})
        } else {
          send(res, 500, {
            error: `The session failed to deliver: ${messageOf(error)}`,
            fix: 'See the `bot dev` log.',
          })
        }
      })
      .catch(() => {
        // writing the answer failed: the client is gone
      })
  })
  server.requestTimeout = 15_000
  server.headersTimeout = 10_000
  server.keepAliveTimeout = 5000
  const guard = new ConnectionGuard(server, {
    maxIdle: o.maxIdleConnections ?? CONTROL_MAX_IDLE,
    maxTotal: o.maxConnections ?? CONTROL_MAX_CONNECTIONS,
  })
  server.on('clientError', (_error, socket) => {
    try {
      socket.destroy()
    } catch {
      // already closed
    }
  })

  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      server.on('error', () => {})
      port = listeningPort(server)
      resolve({
        port,
        quiesce: () => {
          server.close()
          guard.closeIdle()
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
