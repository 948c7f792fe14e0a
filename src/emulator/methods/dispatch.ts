/**
 * One API call, as the server runs it: the instance's state (logged out, closing, closed), the method table, the
 * injected failures (before the handler), then the handler. Every call is recorded with its seq, result or error.
 */
import type {BotState} from '../state/bot.js'
import type {Answer, Core} from './core.js'
import {ApiError, tooManyRequests} from '../errors.js'
import {handlerFor, methodNotFound} from './index.js'
import {asBusiness} from './business.js'
import {checkUtf8} from './utf8.js'
import {FLOOD_COUNTED} from '../state/flood.js'
import {WRITES_TO_CHAT} from '../state/faults.js'
import type {Params} from '../http/params.js'
import type {RecordedCall} from '../types.js'
import {toInteger} from '../integer.js'

/** Calls kept per bot: beyond it the oldest tenth is forgotten (a long `bot dev --offline` session stays bounded). */
export const MAX_RECORDED_CALLS = 100_000

export interface DispatchContext {
  core: Core
  onAbort: (fn: () => void) => () => void
  source: RecordedCall['source']
  /** Called with each recorded call (the emulator's 'call' event). */
  recorded(call: RecordedCall): void
}

/**
 * Run one call. A handler that answers at once is answered at once (no promise, no turn of the event loop: the HTTP
 * front writes the answer in the same turn); one that waits (getUpdates, a 409's hold, a webhook check) as a promise.
 * Either way the call is recorded when it ends, and an error is thrown (or rejected) as an ApiError.
 */
export function dispatch(
  bot: BotState,
  method: string,
  params: Params,
  ctx: DispatchContext,
): Answer | Promise<Answer> {
  const record: RecordedCall = {seq: 0, method, params: params.toRecord(), at: Date.now(), source: ctx.source}
  const lower = method.toLowerCase()
  const counted = lower !== 'getupdates'
  if (counted) {
    bot.inFlight += 1
    bot.running.add(record)
  }
  let answer: Answer | Promise<Answer>
  try {
    if (bot.loggedOut) throw new ApiError(400, 'Logged out')
    if (bot.closeState === 'closing') throw new ApiError(500, 'Internal Server Error: restart')
    if (bot.closeState === 'closed' && lower !== 'close') relaunch(bot, ctx.core)
    const handler = asBusiness(lower, params, handlerFor(lower))
    if (!handler) throw methodNotFound()
    const fault = bot.faults.check(lower, params, (raw) => chatIdOf(bot, raw))
    if (fault) throw fault
    if (WRITES_TO_CHAT.test(lower)) notAMember(bot, params)
    if (params.badUtf8) checkUtf8(lower, params)
    const flood = FLOOD_COUNTED.has(lower) ? floodCheck(bot, params, ctx.core) : undefined
    answer = handler(bot, params, ctx.core, {method: lower, source: ctx.source, onAbort: ctx.onAbort})
    if (flood) {
      // a message counts once it went: a refused call costs nothing
      if (!(answer instanceof Promise)) flood()
      else answer = answer.then((a) => (flood(), a))
    }
  } catch (err) {
    throw failed(bot, record, counted, ctx, err)
  }
  if (!(answer instanceof Promise)) return answered(bot, record, counted, ctx, answer)
  return answer.then(
    (a) => answered(bot, record, counted, ctx, a),
    (err: unknown) => {
      throw failed(bot, record, counted, ctx, err)
    },
  )
}

function answered(bot: BotState, record: RecordedCall, counted: boolean, ctx: DispatchContext, answer: Answer): Answer {
  record.result = answer.result
  finished(bot, record, counted, ctx)
  return answer
}

/** The call's error as an ApiError (anything else thrown is `500 Internal Server Error: …`), recorded. */
function failed(bot: BotState, record: RecordedCall, counted: boolean, ctx: DispatchContext, err: unknown): ApiError {
  const error = err instanceof ApiError ? err : new ApiError(500, `Internal Server Error: ${String(err)}`)
  record.error = {code: error.code, description: error.description}
  finished(bot, record, counted, ctx)
  return error
}

/** A call ends: no longer in flight; recorded unless its caller went away first (499). */
function finished(bot: BotState, record: RecordedCall, counted: boolean, ctx: DispatchContext): void {
  if (counted) {
    bot.inFlight -= 1
    bot.running.delete(record)
  }
  if (record.error?.code === 499) return
  record.seq = ++bot.callSeq
  bot.calls.push(record)
  if (bot.calls.length > MAX_RECORDED_CALLS) bot.calls.splice(0, MAX_RECORDED_CALLS / 10)
  ctx.recorded(record)
}

/** A closed bot instance is launched again by its next request: its webhook (kept, like its queue) resumes. */
function relaunch(bot: BotState, core: Core): void {
  bot.closeState = undefined
  if (bot.webhook) core.openWebhook(bot)
}

/**
 * A call that writes into a group, supergroup or channel the bot was removed from (its recorded status `kicked` or
 * `left`): telegram-bot-api Client.cpp `Client::check_chat_access` answers 403 `bot was kicked from the <type> chat` /
 * `bot is not a member of the <type> chat` (type: group, supergroup, channel).
 */
function notAMember(bot: BotState, params: Params): void {
  const raw = params.get('chat_id') ?? ''
  if (raw === '') return
  const chat = bot.findChat(raw)
  if (typeof chat?.id !== 'number' || chat.type === 'private') return
  const status = bot.members.get(chat.id, bot.id)?.status
  if (status !== 'kicked' && status !== 'left') return
  const type = chat.type === 'channel' ? 'channel' : chat.type === 'supergroup' ? 'supergroup' : 'group'
  throw new ApiError(
    403,
    status === 'kicked'
      ? `Forbidden: bot was kicked from the ${type} chat`
      : `Forbidden: bot is not a member of the ${type} chat`,
  )
}

/**
 * Flood control (state/flood.ts) for a call that sends into a chat: a 429 when over a limit, else the function that
 * counts the message once it went; undefined when flood control is off or the chat is not known (the handler answers).
 */
function floodCheck(bot: BotState, params: Params, core: Core): (() => void) | undefined {
  const now = core.floodClock()
  if (now === undefined) return undefined
  const raw = params.get('chat_id') ?? ''
  const chat = raw === '' ? undefined : bot.findChat(raw)
  if (typeof chat?.id !== 'number') return undefined
  const chatId = chat.id
  const group = chat.type !== 'private'
  const wait = bot.flood.wait(chatId, group, now)
  if (wait !== undefined) throw tooManyRequests(wait)
  return () => bot.flood.count(chatId, group, core.floodClock() ?? now)
}

/** The id of the chat a `chat_id` parameter names (a number, or an @username the bot has seen). */
function chatIdOf(bot: BotState, raw: string): number | undefined {
  if (!raw.startsWith('@')) return toInteger(raw)
  const chat = bot.findChat(raw)
  return typeof chat?.id === 'number' ? chat.id : undefined
}
