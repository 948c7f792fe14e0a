/**
 * What the history keeps of an update, an answer and a call: the token (and the session's webhook
 * secret and path) redacted everywhere, anything token-shaped too, and every part bounded, so an
 * entry is safe to show, serve and write to disk and no entry can grow without limit.
 */
import {TOKEN_SHAPE} from '../../telegram/redact.js'
import {REDACTED, redactionPattern} from '../../telegram/redact.js'
import {
  isUpdateObject,
  messageContent,
  payloadFacts,
  safePreview,
  type UpdatePayload,
  updatePayload,
} from '../../telegram/describe.js'
import type {ApiCall} from '../types.js'

/** Largest update JSON kept whole; a larger one is kept as its first bytes (and cannot be replayed). */
export const MAX_UPDATE_BYTES = 64 * 1024
/** Largest answer body kept (cut beyond). */
export const MAX_ANSWER_BYTES = 64 * 1024
/** Calls kept per update (a broadcast loop in one handler makes thousands); the rest are counted. */
export const MAX_CALLS = 100
/** Largest call record kept whole; beyond, its params are replaced by a note. */
export const MAX_CALL_BYTES = 4 * 1024
/** How much of a cut update is kept to look at. */
const CUT_HEAD = 4 * 1024

export type Secrets = Array<string | undefined>

let compiled: {key: string; items: Secrets; re: RegExp} | undefined

/**
 * `text` with the secrets (whole, a token's secret part, URL-encoded too) and anything token-shaped
 * replaced, as redactSecrets does, in one pass of one expression (this runs for every update).
 */
export function clean(text: string, secrets: Secrets): string {
  return text.replace(cleaner(secrets), REDACTED)
}

/** The expression for these secrets: the last one, while the secrets are the same (compared item by item, no string built). */
function cleaner(secrets: Secrets): RegExp {
  const items = compiled?.items
  if (items && items.length === secrets.length) {
    let same = true
    for (let i = 0; i < items.length; i++) if (items[i] !== secrets[i]) same = false
    if (same) return compiled!.re
  }
  const key = secrets.join('\u0000')
  if (compiled?.key !== key) compiled = {key, items: [...secrets], re: redactionPattern(secrets, TOKEN_SHAPE)}
  else compiled.items = [...secrets]
  return compiled.re
}

/** A string cut to at most `max` UTF-16 units, never inside a surrogate pair, with a note of the cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${text.slice(0, end)}… [cut: ${text.length} characters in all]`
}

/** What the history needs to know about an update, beyond what UpdateEntry shows. */
export interface UpdateFacts {
  /** The update, redacted; a cut one is `{update_id, _cut: {bytes, head}}`. */
  update: unknown
  /** The redacted JSON was larger than MAX_UPDATE_BYTES. */
  truncated: boolean
  updateId: number
  type: string
  chatId?: number
  preview?: string
  /** What a message holds (`photo`, `successful_payment 1 XTR`; see telegram/describe.ts messageContent). */
  content?: string
  /** Who sent it (from.id, or user.id): calls with that user_id belong to it. */
  userId?: number
  /** callback_query.id / inline_query.id / …: answerCallbackQuery and friends name it. */
  queryId?: string
  /**
   * The update's JSON as it arrived (redacted, on one line), when it was read from raw JSON: the log
   * writes it as it is rather than serialising the parsed object again.
   */
  json?: string
}

/** Read an update (a parsed object, or its raw JSON) into what the history keeps. Never throws. */
export function updateFacts(raw: unknown, secrets: Secrets): UpdateFacts {
  let json: string
  try {
    json = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : (JSON.stringify(raw) ?? 'null')
  } catch {
    json = 'null'
  }
  const redacted = clean(json, secrets)
  let update: unknown
  let parsed = false
  try {
    update = JSON.parse(redacted)
    parsed = true
  } catch {
    update = {_unparsable: cut(redacted, CUT_HEAD)}
  }
  const described = describe(update)
  // Bytes: the length in UTF-16 units is a lower bound, and 3 bytes per unit an upper one.
  const bytes = redacted.length * 3 <= MAX_UPDATE_BYTES ? redacted.length : Buffer.byteLength(redacted)
  const truncated = bytes > MAX_UPDATE_BYTES
  if (truncated)
    update = {
      ...(described.updateId !== undefined ? {update_id: described.updateId} : {}),
      _cut: {bytes, head: cut(redacted, CUT_HEAD)},
    }
  const facts: UpdateFacts = {
    update,
    truncated,
    updateId: described.updateId ?? 0,
    type: described.updateType ?? 'unknown',
  }
  const fromText = typeof raw === 'string' || Buffer.isBuffer(raw)
  if (!truncated && parsed && fromText && typeof update === 'object' && update !== null)
    // Valid JSON: a line break in it can only be whitespace between tokens (one in a string is escaped).
    facts.json = /[\r\n]/.test(redacted) ? redacted.replace(/[\r\n]/g, ' ') : redacted
  if (described.chatId !== undefined) facts.chatId = described.chatId
  if (described.preview !== undefined) facts.preview = described.preview
  const content = messageContent(described.updateType, described.payload)
  if (content !== undefined) facts.content = content
  const payload = described.payload
  const userId = payload?.from?.id ?? payload?.user?.id
  if (typeof userId === 'number') facts.userId = userId
  if (described.updateType && /_query$/.test(described.updateType) && typeof payload?.id === 'string')
    facts.queryId = payload.id
  return facts
}

/** Update id, type, chat and text preview of a parsed (already redacted) update, as the relay's update line has them. */
function describe(update: unknown): {
  updateId?: number
  updateType?: string
  chatId?: number
  preview?: string
  payload?: UpdatePayload
} {
  if (!isUpdateObject(update)) return {}
  const {updateType, payload} = updatePayload(update)
  const {chatId, text} = payloadFacts(payload)
  const out: ReturnType<typeof describe> = {}
  if (typeof update.update_id === 'number') out.updateId = update.update_id
  if (updateType !== undefined) out.updateType = typePreview(updateType)
  if (typeof chatId === 'number') out.chatId = chatId
  if (typeof text === 'string') out.preview = safePreview(text)
  if (payload) out.payload = payload
  return out
}

/** Update types made safe to show (a handful recur: one safePreview each). */
const typePreviews = new Map<string, string>()

function typePreview(type: string): string {
  let made = typePreviews.get(type)
  if (made === undefined) {
    made = safePreview(type, [], 40)
    if (typePreviews.size >= 64) typePreviews.clear()
    typePreviews.set(type, made)
  }
  return made
}

/** The bot's answer as kept: redacted, cut. */
export function cleanAnswer(answer: {status: number; body: string}, secrets: Secrets): {status: number; body: string} {
  return {status: answer.status, body: cut(clean(String(answer.body ?? ''), secrets), MAX_ANSWER_BYTES)}
}

/** A call as kept: redacted (a proxy should never hand over the token, but nothing relies on it), bounded. */
export function cleanCall(call: ApiCall, secrets: Secrets): ApiCall {
  let json: string
  try {
    json = clean(JSON.stringify(call), secrets)
  } catch {
    return {
      method: String(call.method),
      ok: Boolean(call.ok),
      ms: Number(call.ms) || 0,
      params: {},
      time: String(call.time),
    }
  }
  const copy = JSON.parse(json) as ApiCall
  // Too large: the result goes first (a message's id is all a reader needs of it), then the parameters.
  if (json.length > MAX_CALL_BYTES && copy.result !== undefined) {
    const result = JSON.stringify(copy.result)
    if (result.length > 512) {
      copy.result = {_cut: `a result of ${result.length} characters not kept`}
      json = JSON.stringify(copy)
    }
  }
  if (json.length > MAX_CALL_BYTES) copy.params = {_cut: `parameters of ${json.length} characters not kept`}
  if (typeof copy.description === 'string') copy.description = cut(copy.description, 1024)
  if (typeof copy.explanation === 'string') copy.explanation = cut(copy.explanation, 1024)
  return copy
}

/** The update_id / callback-query id a call's parameters name, for attaching it. */
export function callQueryId(call: ApiCall): string | undefined {
  const p = call.params ?? {}
  for (const key of ['callback_query_id', 'inline_query_id', 'shipping_query_id', 'pre_checkout_query_id']) {
    const value = p[key]
    if (typeof value === 'string' || typeof value === 'number') return String(value)
  }
  return undefined
}
