/**
 * The control API: the user side of the emulator over HTTP, for tests in any language. JSON in and out, on the
 * emulator's own server beside /bot<token>/… (docs/emulator.md, "The control API"):
 *
 *   POST /_emulator/bots/{token}/messages                {text, chat_id?, user_id?, first_name?, date?, reply_to_message_id?}
 *   POST /_emulator/bots/{token}/updates                 {…any update without update_id}
 *   GET  /_emulator/bots/{token}/calls?since=SEQ&wait=SECONDS&method=NAME
 *   POST /_emulator/bots/{token}/faults                  {method, error_code, description, retry_after?, migrate_to_chat_id?, times?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/block   (also /unblock and /migrate; /users/{user_id}/deactivate)
 *   GET  /_emulator/bots/{token}/state
 *   POST /_emulator/reset
 *
 * and one route per action of the table of user actions that names one (actions.ts: callback_queries, votes,
 * payments, reactions, membership, business, boosts, Mini Apps, guest messages…).
 *
 * Errors are `{"error": "…"}` with 400 (bad input), 404 (unknown bot or path) or 405 (wrong HTTP method). The token
 * is never echoed back.
 */
import type http from 'node:http'
import {UPDATE_TYPES} from '../state/updates.js'
import type {RecordedCall, TgObject} from '../types.js'
import {webhookInfo} from '../methods/webhook-config.js'
import type {ControlledEmulator} from './host.js'
import {
  type ControlDeps,
  ControlError,
  type Ctx,
  type Route,
  int,
  matchPattern,
  only,
  safeDecode,
  str,
} from './route.js'
import {InputError} from '../actions/index.js'
import {actionRoutes} from './actions.js'

import {PAYMENT_ROUTES} from './payments.js'
import {MEMBER_ROUTES} from './members.js'
import {USER_ROUTES} from './users.js'
import {postMedia} from './media.js'
import {COMMAND_ROUTES} from './commands.js'
import {INLINE_ROUTES} from './inline.js'
import {SETTINGS_ROUTES} from './settings.js'
import {BOT_API_10X_ROUTES} from './bot-api-10x.js'
import {type Params, type UploadedFile, readParams} from '../http/params.js'
import {readAll} from '../http/body.js'
import {ApiError, errorText} from '../errors.js'
import {MAX_CONTROL_DEPTH, nestsDeeperThan} from '../json.js'
import {isObject} from '../telegram.js'

export type {ControlledEmulator} from './host.js'
export type {ControlDeps} from './route.js'

const MAX_BODY = 1 << 20
const MAX_CALLS = 1000
const MAX_WAIT_SECONDS = 50

export function createControlHandler(emu: ControlledEmulator, deps: ControlDeps) {
  return async (req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string): Promise<void> => {
    try {
      const answer = await route(emu, deps, req, res, path, search)
      if (answer !== undefined) reply(res, 200, answer)
    } catch (err) {
      if (err instanceof ControlError) reply(res, err.status, {error: err.message})
      else reply(res, 500, {error: `the emulator failed: ${errorText(err)}`})
    }
  }
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text)})
  res.end(text)
}

/** POST /_emulator/reset: no body, or a JSON one (ignored). */
const RESET: Route = {method: 'POST', handler: () => undefined}

const ROUTES: Record<string, Route> = {
  ...actionRoutes(),
  // send_message, or send_media for a multipart body with a file
  messages: {method: 'POST', handler: postMessage, multipart: true},
  updates: {method: 'POST', handler: postUpdate},
  calls: {method: 'GET', handler: getCalls},
  faults: {method: 'POST', handler: postFault},
  state: {method: 'GET', handler: getState},
  'chats/block': {
    method: 'POST',
    handler: ({emu, bot, id}) => ({update_id: emu.blockBot(bot.token, id!).update_id}),
    withId: true,
  },
  'chats/unblock': {
    method: 'POST',
    handler: ({emu, bot, id}) => ({update_id: emu.unblockBot(bot.token, id!).update_id}),
    withId: true,
  },
  'chats/migrate': {
    method: 'POST',
    handler: ({emu, bot, id}) => ({migrate_to_chat_id: emu.migrateChat(bot.token, id!)}),
    withId: true,
  },
  'users/deactivate': {
    method: 'POST',
    handler: ({emu, bot, id}) => {
      emu.deactivateUser(bot.token, id!)
      return {ok: true}
    },
    withId: true,
  },
  ...PAYMENT_ROUTES,
  ...MEMBER_ROUTES,
  ...USER_ROUTES,
  ...COMMAND_ROUTES,
  ...INLINE_ROUTES,
  ...SETTINGS_ROUTES,
  ...BOT_API_10X_ROUTES,
}

async function route(
  emu: ControlledEmulator,
  deps: ControlDeps,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  search: string,
): Promise<unknown> {
  const parts = path.split('/').slice(2) // '', '_emulator', …
  if (parts.length === 1 && parts[0] === 'reset') {
    if (req.method !== 'POST') throw new ControlError(405, 'use POST /_emulator/reset')
    bodyKind(req, RESET)
    req.resume()
    emu.reset()
    return {ok: true}
  }
  if (parts[0] !== 'bots' || parts.length < 3) {
    req.resume()
    throw new ControlError(
      404,
      `no control endpoint ${req.method ?? ''} ${shown(parts)}; see docs/emulator.md for the list`,
    )
  }
  const token = safeDecode(parts[1])
  let name = parts[2]
  let id: number | undefined
  if ((parts[2] === 'chats' || parts[2] === 'users') && parts.length === 5) {
    id = Number(parts[3])
    if (!Number.isSafeInteger(id) || id === 0)
      throw new ControlError(
        400,
        `${parts[2] === 'chats' ? 'chat_id' : 'user_id'} "${parts[3]}" in the path must be a non-zero integer`,
      )
    name = `${parts[2]}/${parts[4]}`
  } else if (parts.length !== 3) {
    name = ''
  }
  const method = req.method ?? ''
  let entry: Route | undefined = ROUTES[`${method} ${name}`] ?? ROUTES[name]
  let params: Record<string, string> = {}
  // Pattern routes: one of this HTTP method first, then any (whose method then gets a 405).
  for (const sameMethod of [true, false]) {
    for (const [key, candidate] of Object.entries(ROUTES)) {
      if (entry) break
      const [prefix, pattern] = key.includes(' ') ? key.split(' ', 2) : [undefined, key]
      if (!isPattern(pattern, candidate) || (sameMethod && prefix !== undefined && prefix !== method)) continue
      const matched = matchPattern(pattern, parts.slice(2))
      if (matched) [entry, params] = [candidate, matched]
    }
  }
  if (!entry) {
    req.resume()
    throw new ControlError(
      404,
      `no control endpoint ${req.method ?? ''} ${shown(parts)}; see docs/emulator.md for the list`,
    )
  }
  if (req.method !== entry.method) {
    req.resume()
    throw new ControlError(405, `use ${entry.method} for ${shown(parts)}`)
  }
  const bot = deps.botFor(token)
  if (!bot || bot.revoked) {
    req.resume()
    throw new ControlError(
      404,
      'no bot with this token in the emulator (create it with createBot, or start `bot emulator --any-token`)',
    )
  }
  const {body, files} =
    entry.method === 'POST' ? await readBody(req, entry) : (req.resume(), {body: {}, files: undefined})
  try {
    const query = new URLSearchParams(search)
    return await entry.handler({emu, deps, bot, body, query, id, path: params, ...(files ? {files} : {}), req, res})
  } catch (err) {
    if (err instanceof ControlError) throw err
    if (err instanceof InputError) throw new ControlError(err.status, err.message)
    // the emulator's own argument checks (blockBot, failNext…) say what is wrong
    throw new ControlError(400, errorText(err))
  }
}

/**
 * A key matched segment by segment: one with `:name` segments, or of several fixed ones (`web_apps/open`); not a
 * `withId` key (`chats/block` is `chats/{chat_id}/block`).
 */
function isPattern(key: string, route: Route): boolean {
  return key.includes(':') || (key.includes('/') && !route.withId)
}

/** The path as shown in an error: the token replaced by {token}. */
function shown(parts: string[]): string {
  const copy = [...parts]
  if (copy[0] === 'bots' && copy.length > 1) copy[1] = '{token}'
  return `/_emulator/${copy.join('/')}`
}

/**
 * What a POST body is: `application/json`, `multipart/form-data` where the route takes it, or nothing at all (no
 * Content-Type, no body: `curl -X POST …/reset`). Anything else is refused (415): a web page can send text/plain or a
 * form without asking first, never JSON.
 */
function bodyKind(req: http.IncomingMessage, route: Route): 'json' | 'multipart' | 'none' {
  const header = req.headers['content-type']
  if (header === undefined) {
    const length = req.headers['content-length']
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) return 'none'
  } else {
    const type = header.split(';', 1)[0].trim().toLowerCase()
    if (type === 'application/json') return 'json'
    if (type === 'multipart/form-data' && route.multipart) return 'multipart'
  }
  req.resume()
  throw new ControlError(
    415,
    `send the body as JSON with Content-Type: application/json${route.multipart ? ' (or multipart/form-data with a file)' : ''}; got ${header === undefined ? 'a body without a Content-Type' : JSON.stringify(header)}`,
  )
}

/** A JSON object, or a multipart/form-data body (its fields as text, its files apart; up to 50 MB). */
async function readBody(
  req: http.IncomingMessage,
  route: Route,
): Promise<{body: Record<string, unknown>; files?: Map<string, UploadedFile>}> {
  const kind = bodyKind(req, route)
  if (kind === 'none') {
    req.resume()
    return {body: {}}
  }
  if (kind === 'json') return {body: await readJson(req)}
  let params: Params
  try {
    params = await readParams('', req.headers, req)
  } catch (err) {
    throw new ControlError(400, `the multipart body could not be read: ${errorText(err)}`)
  }
  const body: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(params.toRecord())) if (!params.files.has(name)) body[name] = value
  return {body, files: params.files}
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  // Listeners, not `for await`: leaving that loop early destroys the request, and the connection with it hangs.
  let raw: Buffer
  try {
    raw = await readAll(req, MAX_BODY, 'body')
  } catch (err) {
    if (err instanceof ApiError && err.code === 413) throw new ControlError(413, `the body is over ${MAX_BODY} bytes`)
    throw new ControlError(400, `the body could not be read: ${errorText(err)}`)
  }
  const text = raw.toString('utf8').trim()
  if (text === '') return {}
  // checked before parsing: what comes next (the update's queue, its webhook POST, /calls) walks the value
  if (nestsDeeperThan(text, MAX_CONTROL_DEPTH))
    throw new ControlError(
      400,
      `the body nests objects and arrays deeper than ${MAX_CONTROL_DEPTH} levels (a real update nests about ten)`,
    )
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ControlError(400, 'the body is not valid JSON (send a JSON object with Content-Type: application/json)')
  }
  if (!isObject(value)) throw new ControlError(400, 'the body must be a JSON object')
  return value
}

// ---------------------------------------------------------------- handlers

function postMessage(ctx: Ctx): unknown {
  if (ctx.files) return postMedia(ctx)
  return ctx.emu.runAction(ctx.bot.token, 'send_message', ctx.body)
}

function postUpdate({emu, bot, body}: Ctx): unknown {
  if ('update_id' in body)
    throw new ControlError(400, 'leave update_id out: the emulator gives the update the next update_id')
  const keys = Object.keys(body)
  if (keys.length !== 1)
    throw new ControlError(
      400,
      `an update has exactly one field, its type (message, callback_query, …); got ${keys.length === 0 ? 'none' : keys.join(', ')}`,
    )
  if (!UPDATE_TYPES.some((type) => type === keys[0]))
    throw new ControlError(400, `"${keys[0]}" is not an update type; use one of ${UPDATE_TYPES.join(', ')}`)
  const content = body[keys[0]]
  if (!content || typeof content !== 'object' || Array.isArray(content))
    throw new ControlError(400, `${keys[0]} must be a JSON object`)
  return {update_id: emu.injectUpdate(bot.token, body).update_id}
}

function postFault({emu, bot, body}: Ctx): unknown {
  only(body, ['method', 'error_code', 'description', 'retry_after', 'migrate_to_chat_id', 'times'])
  const method = str(body, 'method', true)!
  emu.failNext(bot.token, method, {
    errorCode: int(body, 'error_code', {required: true})!,
    description: str(body, 'description', true)!,
    retryAfter: int(body, 'retry_after'),
    migrateToChatId: int(body, 'migrate_to_chat_id'),
    times: int(body, 'times'),
  })
  return {ok: true}
}

function getState({emu, bot}: Ctx): unknown {
  const chats: unknown[] = []
  const seen = new Set<string>()
  for (const [key, chat] of bot.chats) {
    if (key.startsWith('@') || seen.has(key)) continue
    seen.add(key)
    const prefix = `${key}:`
    const messages = [...bot.messages]
      .filter(([k]) => k.startsWith(prefix))
      .map(([, m]) => m)
      .sort((a, b) => a.message_id - b.message_id)
    const migrated = bot.faults.migrated.get(key)
    chats.push({
      chat,
      messages,
      blocked: bot.faults.blocked.has(key),
      ...(migrated !== undefined ? {migrate_to_chat_id: migrated} : {}),
    })
  }
  return {
    queue: emu.pendingUpdates(bot.token),
    webhook: bot.webhook ? webhookInfo(bot) : null,
    long_polling: bot.poll !== undefined,
    chats,
    faults: bot.faults.pending(),
  }
}

/** What /calls shows instead of a webhook's secret token (`secret_token` of setWebhook). */
export const HIDDEN_SECRET = '[hidden]'

/** The call as the control API shows it: never a secret_token's value (emu.calls() in JavaScript keeps it). */
function shownCall(call: RecordedCall) {
  const params = call.params
  return {
    seq: call.seq,
    method: call.method,
    params: params.secret_token === undefined ? params : {...params, secret_token: HIDDEN_SECRET},
    ok: call.error === undefined,
    ...(call.error ? {error_code: call.error.code, description: call.error.description} : {result: call.result}),
  }
}

function getCalls({emu, deps, bot, query, res}: Ctx): Promise<unknown> | unknown {
  const read = (name: string): Record<string, unknown> => (query.has(name) ? {[name]: query.get(name)} : {})
  const since = int(read('since'), 'since', {min: 0}) ?? 0
  const rawWait = query.get('wait')
  const wait = rawWait === null || rawWait === '' ? 0 : Number(rawWait)
  if (!Number.isFinite(wait) || wait < 0)
    throw new ControlError(
      400,
      `wait ${JSON.stringify(rawWait)} must be a number of seconds ≥ 0 (at most ${MAX_WAIT_SECONDS})`,
    )
  const method = query.get('method')?.toLowerCase() || undefined
  const matches = (c: RecordedCall): boolean =>
    c.seq > since && (method === undefined || c.method.toLowerCase() === method)
  const collect = (): {calls: ReturnType<typeof shownCall>[]; next: number} => {
    const calls = bot.calls
    let start = calls.length
    while (start > 0 && calls[start - 1].seq > since) start -= 1
    const out: RecordedCall[] = []
    for (let i = start; i < calls.length && out.length < MAX_CALLS; i++) if (matches(calls[i])) out.push(calls[i])
    const next = out.length >= MAX_CALLS ? out.at(-1)!.seq : Math.max(since, bot.callSeq)
    return {calls: out.map(shownCall), next}
  }
  const now = collect()
  if (now.calls.length > 0 || wait === 0) return now
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer)
      emu.off('call', onCall)
      res.off('close', finish)
      offStop()
      resolve(collect())
    }
    const onCall = (call: RecordedCall, token: string): void => {
      if (token === bot.token && matches(call)) finish()
    }
    const timer = setTimeout(finish, Math.min(wait, MAX_WAIT_SECONDS) * 1000)
    const offStop = deps.onStop(finish)
    emu.on('call', onCall)
    res.once('close', finish)
  })
}
