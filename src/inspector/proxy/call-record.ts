/**
 * Turns what the api proxy saw of one call (its path, parameters, the answer's envelope, timing)
 * into an ApiCall: parameters summarised (long strings cut, bounded depth and width), every string
 * redacted (the token from the path, its secret part, and the session's secrets) and made safe for
 * a terminal (ESC, C1 and bidi controls shown as `\uXXXX`: the terminal prints the method and the
 * description, and a record travels on in --json events and the history log), the well-known
 * failures explained.
 */
import {gunzipSync, inflateSync, brotliDecompressSync} from 'node:zlib'
import * as v from 'valibot'
import {sanitizeForTerminal} from '../../lib/terminal.js'
import {redact} from '../../telegram/redact.js'
import {explainCall} from './call-explain.js'
import type {ApiCall} from '../types.js'

/** Strings in a record are cut to this many characters. */
export const MAX_STRING = 200
/** A description or explanation is cut to this many (Telegram's are short; an upstream's garbage may not be). */
export const MAX_DESCRIPTION = 1000
const MAX_KEYS = 40
const MAX_ITEMS = 20
const MAX_DEPTH = 6

export type Redactor = (text: string) => string

export function redactorFor(secrets: Array<string | undefined>): Redactor {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0)
  if (list.length === 0) return (text) => text
  return (text) => redact(text, ...list)
}

/** `text` redacted, then with every control but tab and newline (ESC, C1, bidi…) escaped. */
function safeText(text: string, clean: Redactor): string {
  return sanitizeForTerminal(clean(text), {keepNewlines: true})
}

function cut(text: string, clean: Redactor, max = MAX_STRING): string {
  const safe = safeText(text, clean)
  return safe.length > max ? `${safe.slice(0, max)}…` : safe
}

/** A bounded, redacted copy of a parameter value (or an answer's result). */
export function summarize(value: unknown, clean: Redactor, depth = 0): unknown {
  if (typeof value === 'string') return cut(value, clean)
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value
  if (depth >= MAX_DEPTH) return '…'
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => summarize(v, clean, depth + 1))
    if (value.length > MAX_ITEMS) items.push(`… ${value.length - MAX_ITEMS} more`)
    return items
  }
  const out: Record<string, unknown> = {}
  let n = 0
  for (const [k, v] of Object.entries(value)) {
    if (n++ === MAX_KEYS) {
      out['…'] = `${Object.keys(value).length - MAX_KEYS} more`
      break
    }
    out[cut(k, clean)] = summarize(v, clean, depth + 1)
  }
  return out
}

/** What the answer's bytes said. */
export interface Envelope {
  ok?: boolean
  error_code?: number
  description?: string
  parameters?: {retry_after?: number}
  result?: unknown
}

/** The JSON envelope of an answer from its (possibly compressed) copy; undefined when it is not one. */
export function parseEnvelope(body: Buffer, encoding: string | undefined): Envelope | undefined {
  let bytes = body
  try {
    const enc = (encoding ?? '').toLowerCase().trim()
    const limit = {maxOutputLength: 16 * 1024 * 1024}
    if (enc === 'gzip' || enc === 'x-gzip') bytes = gunzipSync(body, limit)
    else if (enc === 'deflate') bytes = inflateSync(body, limit)
    else if (enc === 'br') bytes = brotliDecompressSync(body, limit)
    else if (enc && enc !== 'identity') return undefined
    const parsed = JSON.parse(bytes.toString('utf8')) as unknown
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Envelope) : undefined
  } catch {
    return undefined
  }
}

function idOf(value: unknown): number | string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.length > 0 && value.length <= 64)
    return /^-?\d{1,20}$/.test(value) ? Number(value) : value
  return undefined
}

/** A Message as a summary keeps it (its id, its chat's id and type, its date); the rest is left out. */
const SentMessage = v.looseObject({
  message_id: v.number(),
  chat: v.looseObject({id: v.optional(v.unknown()), type: v.optional(v.unknown())}),
  date: v.optional(v.unknown()),
})

/** What a call returned, kept short: a Message as its id, chat and date (what a trigger or a reader looks for). */
export function summarizeResult(method: string, result: unknown, clean: Redactor): unknown {
  if (result === undefined || method.toLowerCase() === 'getupdates') return undefined
  const short = (value: unknown, depth: number): unknown => {
    if (!Array.isArray(value) && v.is(SentMessage, value)) {
      const {chat} = value
      return {
        message_id: value.message_id,
        chat: {id: chat.id, type: typeof chat.type === 'string' ? cut(chat.type, clean) : chat.type},
        ...(typeof value.date === 'number' ? {date: value.date} : {}),
      }
    }
    if (Array.isArray(value) && depth === 0) {
      const items = value.slice(0, MAX_ITEMS).map((item) => short(item, 1))
      if (value.length > MAX_ITEMS) items.push(`… ${value.length - MAX_ITEMS} more`)
      return items
    }
    return summarize(value, clean, MAX_DEPTH - 3)
  }
  return short(result, 0)
}

export interface CallFacts {
  method: string
  params: Record<string, unknown>
  started: number
  ms: number
  status: number
  envelope?: Envelope
  /** The answer was larger than the copy kept of it. */
  answerTruncated?: boolean
  /** A failure of bot dev itself (upstream unreachable, the bot went away): the description to record. */
  failure?: {errorCode?: number; description: string}
  /** The proxy answered it itself (a synthetic query id, file or charge: local-answers.ts). */
  answeredLocally?: boolean
}

/** The ApiCall record for one call. */
export function buildCall(facts: CallFacts, clean: Redactor): ApiCall {
  const params = summarize(facts.params, clean) as Record<string, unknown>
  const chatId = idOf(facts.params.chat_id)
  const userId = idOf(facts.params.user_id)
  const envelope = facts.envelope
  const call: ApiCall = {
    method: cut(facts.method, clean),
    ok: false,
    ms: Math.round(facts.ms * 10) / 10,
    params,
    time: new Date(facts.started).toISOString(),
  }
  if (chatId !== undefined) call.chatId = typeof chatId === 'string' ? cut(chatId, clean) : chatId
  if (typeof userId === 'number') call.userId = userId
  if (facts.failure) {
    if (facts.failure.errorCode !== undefined) call.errorCode = facts.failure.errorCode
    call.description = cut(facts.failure.description, clean, MAX_DESCRIPTION)
    if (/bot dev could not reach/.test(call.description))
      call.explanation =
        'bot dev answered the bot in place of the Bot API, which it could not reach: check the network, HTTPS_PROXY, or that the api root (BOT_API_ROOT) is up.'
    return call
  }
  if (facts.answeredLocally) call.answeredLocally = true
  if (envelope && typeof envelope.ok === 'boolean') {
    call.ok = envelope.ok
    if (envelope.ok) {
      const result = summarizeResult(facts.method, envelope.result, clean)
      if (result !== undefined) call.result = result
    } else {
      call.errorCode = typeof envelope.error_code === 'number' ? envelope.error_code : facts.status
      if (typeof envelope.description === 'string') call.description = cut(envelope.description, clean, MAX_DESCRIPTION)
      const retryAfter = envelope.parameters?.retry_after
      if (typeof retryAfter === 'number') call.retryAfter = retryAfter
      const explanation = explainCall(facts.method, call.description, facts.params)
      if (explanation) call.explanation = cut(explanation, clean, MAX_DESCRIPTION)
    }
  } else {
    call.ok = facts.status >= 200 && facts.status < 300
    if (!call.ok) {
      call.errorCode = facts.status
      call.description = `HTTP ${facts.status}: the answer is not a Bot API JSON envelope`
    } else if (facts.answerTruncated) {
      call.description = 'the answer was too large to be recorded'
    }
  }
  return call
}
