/**
 * What the history keeps of an update, an answer and a call: the token (and the session's webhook
 * secret and path) redacted everywhere, anything token-shaped too, and every part bounded, so an
 * entry is safe to show, serve and write to disk and no entry can grow without limit.
 */
import {redactSecrets} from '../lib/secrets.js'
import {describeUpdate} from '../dev/relay-describe.js'
import type {ApiCall} from './types.js'

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

/** `text` with the secrets and anything token-shaped replaced. */
export function clean(text: string, secrets: Secrets): string {
  return redactSecrets(text, secrets)
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
  /** Who sent it (from.id, or user.id): calls with that user_id belong to it. */
  userId?: number
  /** callback_query.id / inline_query.id / …: answerCallbackQuery and friends name it. */
  queryId?: string
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
  const described = describeUpdate(redacted, secrets)
  let update: unknown
  try {
    update = JSON.parse(redacted)
  } catch {
    update = {_unparsable: cut(redacted, CUT_HEAD)}
  }
  const truncated = Buffer.byteLength(redacted) > MAX_UPDATE_BYTES
  if (truncated) update = {...(described.updateId !== undefined ? {update_id: described.updateId} : {}), _cut: {bytes: Buffer.byteLength(redacted), head: cut(redacted, CUT_HEAD)}}
  const facts: UpdateFacts = {update, truncated, updateId: described.updateId ?? 0, type: described.updateType ?? 'unknown'}
  if (described.chatId !== undefined) facts.chatId = described.chatId
  if (described.preview !== undefined) facts.preview = described.preview
  const payload = payloadOf(update)
  const from = payload?.from as Record<string, unknown> | undefined
  const user = payload?.user as Record<string, unknown> | undefined
  const userId = from?.id ?? user?.id
  if (typeof userId === 'number') facts.userId = userId
  if (described.updateType && /_query$/.test(described.updateType) && typeof payload?.id === 'string') facts.queryId = payload.id
  return facts
}

function payloadOf(update: unknown): Record<string, unknown> | undefined {
  if (!update || typeof update !== 'object' || Array.isArray(update)) return undefined
  for (const key of Object.keys(update)) {
    if (key === 'update_id') continue
    const value = (update as Record<string, unknown>)[key]
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  }
  return undefined
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
    return {method: String(call.method), ok: Boolean(call.ok), ms: Number(call.ms) || 0, params: {}, time: String(call.time)}
  }
  const copy = JSON.parse(json) as ApiCall
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
