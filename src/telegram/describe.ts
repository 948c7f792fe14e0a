/**
 * What the update log shows of an update: its id, type, chat and a short preview of its text.
 * The preview is made safe at the source: tokens are redacted in the whole text *before* it is
 * cut (a cut token would no longer look like one), then terminal controls and bidi characters
 * are escaped (see lib/terminal.ts), then it is cut to PREVIEW_MAX characters.
 */
import * as v from 'valibot'
import {REDACTED, redactionPattern, TOKEN_SHAPE} from './redact.js'
import {escapeChar, isUnsafeForTerminal, sanitizeForTerminal} from '../lib/terminal.js'
import {outputOf} from '../lib/refusal.js'

export const PREVIEW_MAX = 40
/** Longest update type shown (a forged body could have any key). */
const TYPE_MAX = 40

export interface UpdateDescription {
  updateId?: number
  updateType?: string
  chatId?: number
  preview?: string
  /**
   * What a message holds, for a message-like update (message, edited_message, channel_post,
   * business_message…): `photo`, `document`, `voice`, `sticker`, `location`, `poll`, … and for a
   * payment its amount and currency (`successful_payment 1 XTR`). Absent for text and other updates.
   */
  content?: string
}

/** Update types whose payload is a Message (core.telegram.org/bots/api#update). */
export function isMessageUpdate(type: string | undefined): boolean {
  return (
    type === 'message' ||
    type === 'edited_message' ||
    type === 'channel_post' ||
    type === 'edited_channel_post' ||
    type === 'business_message' ||
    type === 'edited_business_message'
  )
}

/**
 * The Message fields that say what it holds (core.telegram.org/bots/api#message), by precedence: a
 * message holds one of them, except that an animation also carries `document` and a venue also
 * `location` (so those come first), and a caption goes with a photo, a video, … (not listed).
 */
export const CONTENT_FIELDS: readonly string[] = [
  'animation',
  'venue',
  'successful_payment',
  'refunded_payment',
  ...['photo', 'video', 'video_note', 'voice', 'audio', 'document', 'sticker', 'paid_media', 'story'],
  ...['location', 'contact', 'poll', 'dice', 'game', 'invoice', 'checklist', 'giveaway', 'giveaway_winners'],
  ...['new_chat_members', 'left_chat_member', 'new_chat_title', 'new_chat_photo', 'delete_chat_photo'],
  ...['group_chat_created', 'supergroup_chat_created', 'channel_chat_created', 'pinned_message'],
  ...['users_shared', 'chat_shared', 'gift', 'unique_gift', 'web_app_data', 'write_access_allowed'],
  ...['forum_topic_created', 'forum_topic_edited', 'forum_topic_closed', 'forum_topic_reopened'],
  ...['video_chat_scheduled', 'video_chat_started', 'video_chat_ended', 'video_chat_participants_invited'],
  ...['message_auto_delete_timer_changed', 'migrate_to_chat_id', 'migrate_from_chat_id', 'passport_data'],
  ...['proximity_alert_triggered', 'boost_added', 'chat_background_set', 'connected_website'],
]
/** A field's rank in CONTENT_FIELDS (lower wins). */
export const CONTENT_RANK: ReadonlyMap<string, number> = new Map(CONTENT_FIELDS.map((f, i) => [f, i]))

/**
 * ISO 4217 currencies whose amounts have no minor unit, or three digits of it (all others: two);
 * Telegram Stars (XTR) are counted in whole stars (core.telegram.org/bots/payments#supported-currencies).
 */
const NO_MINOR = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
  'XTR',
])
const THREE_MINOR = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'])

/** `total_amount` (in the currency's smallest units) as people write it: 1 XTR, 9.99 USD, 500 JPY. */
export function amountText(total: number, currency: string): string {
  const code = currency.toUpperCase()
  const digits = NO_MINOR.has(code) ? 0 : THREE_MINOR.has(code) ? 3 : 2
  return `${digits === 0 ? String(total) : (total / 10 ** digits).toFixed(digits)} ${safePreview(currency, [], 8)}`
}

/**
 * The content words of a message: the field (see CONTENT_FIELDS), and for a payment its amount and
 * currency when both are there. `field` undefined: a text message (or an unknown kind): nothing.
 */
export function contentText(field: string | undefined, total: unknown, currency: unknown): string | undefined {
  if (field === undefined) return undefined
  if ((field === 'successful_payment' || field === 'refunded_payment') && typeof total === 'number') {
    if (typeof currency === 'string' && currency !== '' && Number.isSafeInteger(total))
      return `${field} ${amountText(total, currency)}`
  }
  return field
}

/** An object with an `id` (a Chat, a User), or nothing where the field is missing or is no object. */
const WithId = v.fallback(v.optional(v.looseObject({id: v.unknown()})), undefined)

/**
 * An update's payload (a Message, CallbackQuery, InlineQuery, Poll…, core.telegram.org/bots/api#update) as the log
 * reads it: where it is from (its chat, its message's chat, its sender) and what it says. Any JSON object passes (a
 * forged or odd update is described as far as it goes); a field that is not what Telegram sends there is left out.
 */
const Payload = v.looseObject({
  id: v.optional(v.unknown()),
  chat: WithId,
  message: v.fallback(v.optional(v.looseObject({chat: WithId})), undefined),
  from: WithId,
  user: WithId,
  text: v.optional(v.unknown()),
  caption: v.optional(v.unknown()),
  data: v.optional(v.unknown()),
  query: v.optional(v.unknown()),
  question: v.optional(v.unknown()),
  successful_payment: v.optional(v.unknown()),
  refunded_payment: v.optional(v.unknown()),
})
export type UpdatePayload = v.InferOutput<typeof Payload>

/** A payment's amount as a message carries it (SuccessfulPayment, RefundedPayment). */
const Paid = v.looseObject({total_amount: v.optional(v.unknown()), currency: v.optional(v.unknown())})

/** An update's type (its first field other than update_id) and that field's value when it is an object. */
export function updatePayload(update: {readonly [key: string]: unknown}): {
  updateType?: string
  payload?: UpdatePayload
} {
  let updateType: string | undefined
  for (const key in update) {
    if (key !== 'update_id') {
      updateType = key
      break
    }
  }
  const value = updateType === undefined ? undefined : update[updateType]
  const payload = Array.isArray(value) ? undefined : outputOf(Payload, value)
  return {updateType, ...(payload ? {payload} : {})}
}

/** The chat an update is about (its chat, its message's chat, else its sender's) and the text it shows first. */
export function payloadFacts(payload: UpdatePayload | undefined): {chatId: unknown; text: unknown} {
  return {
    chatId: payload?.chat?.id ?? payload?.message?.chat?.id ?? payload?.from?.id ?? payload?.user?.id,
    text: payload?.text ?? payload?.caption ?? payload?.data ?? payload?.query ?? payload?.question,
  }
}

/** The content words of a parsed message-like payload (see contentText). */
export function messageContent(type: string | undefined, payload: UpdatePayload | undefined): string | undefined {
  if (!payload || !isMessageUpdate(type)) return undefined
  let best: string | undefined
  let rank = Number.POSITIVE_INFINITY
  for (const key in payload) {
    const r = CONTENT_RANK.get(key)
    if (r !== undefined && r < rank && payload[key] !== null && payload[key] !== undefined) {
      rank = r
      best = key
    }
  }
  const field = best === 'successful_payment' || best === 'refunded_payment' ? payload[best] : undefined
  const paid = v.is(Paid, field) ? field : undefined
  return contentText(best, paid?.total_amount, paid?.currency)
}

const UPDATE_ID_RE = /^\s*\{\s*"update_id"\s*:\s*(\d+)/

/**
 * The update_id of a raw update without parsing it: Telegram writes it first ({"update_id":N,…}).
 * Undefined when the body does not start that way.
 */
export function peekUpdateId(body: Buffer): number | undefined {
  // The usual bytes (`{"update_id":N,`) are read directly, the same number the expression finds.
  if (body.length > 14 && body[0] === 0x7b && body[1] === 0x22 && body[11] === 0x22 && body[12] === 0x3a) {
    if (body.toString('latin1', 2, 11) === 'update_id') {
      let id = 0
      let i = 13
      for (; i < body.length && i < 28; i++) {
        const c = body[i]
        if (c < 0x30 || c > 0x39) break
        id = id * 10 + (c - 0x30)
      }
      if (i > 13 && i < 28) return id
    }
  }
  const m = UPDATE_ID_RE.exec(body.toString('latin1', 0, Math.min(body.length, 64)))
  return m ? Number(m[1]) : undefined
}

/** Compiled expressions by set of secrets (a few sets are in use at once: the relay's, the history's). */
const compiled = new Map<string, RegExp>()
/** The last set used and its expression: the same array (with the same items) skips the lookup. */
let last: {secrets: Array<string | undefined>; items: Array<string | undefined>; re: RegExp} | undefined

/**
 * `text` with the secrets (whole, a token's secret part, URL-encoded too) and anything token-shaped
 * replaced, as redactSecrets does, in one pass of one expression compiled once per set of secrets
 * (this runs for every update).
 */
function redactAll(text: string, secrets: Array<string | undefined>): string {
  return text.replace(patternFor(secrets), REDACTED)
}

function patternFor(secrets: Array<string | undefined>): RegExp {
  if (last && last.secrets === secrets && last.items.length === secrets.length) {
    let same = true
    for (let i = 0; i < secrets.length; i++) if (last.items[i] !== secrets[i]) same = false
    if (same) return last.re
  }
  const key = secrets.join('\u0000')
  let re = compiled.get(key)
  if (!re) {
    if (compiled.size >= 16) compiled.clear()
    re = redactionPattern(secrets, TOKEN_SHAPE)
    compiled.set(key, re)
  }
  last = {secrets, items: [...secrets], re}
  return re
}

/** `text` on one line, tokens redacted, controls escaped, at most `max` characters (… when cut). */
export function safePreview(text: string, secrets: Array<string | undefined> = [], max = PREVIEW_MAX): string {
  const flat = redactAll(text.replace(/\s+/g, ' ').trim(), secrets)
  const safe = sanitizeForTerminal(flat)
  if (safe.length <= max) return safe
  // Cut by whole characters: never inside a surrogate pair or an escape.
  let out = ''
  for (const char of flat) {
    const piece = char.length === 1 && isUnsafeForTerminal(char) ? escapeChar(char) : char
    if (out.length + piece.length > max - 1) break
    out += piece
  }
  return out + '…'
}

/** Any JSON object (not an array), its update_id read where it is used. */
const UpdateObject = v.looseObject({update_id: v.optional(v.unknown())})

/** Whether a parsed JSON value is an object, as an update is (its fields are checked where they are read). */
export function isUpdateObject(value: unknown): value is v.InferOutput<typeof UpdateObject> {
  return v.is(UpdateObject, value) && !Array.isArray(value)
}

/** Update id, type, chat and a short text preview of a raw update body; never throws. */
export function describeUpdate(body: Buffer | string, secrets: Array<string | undefined> = []): UpdateDescription {
  let update: unknown
  try {
    update = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))
  } catch {
    return {}
  }
  if (!isUpdateObject(update)) return {}
  const updateId = typeof update.update_id === 'number' ? update.update_id : undefined
  const {updateType, payload} = updatePayload(update)
  const {chatId, text} = payloadFacts(payload)
  return {
    updateId,
    updateType: updateType === undefined ? undefined : safePreview(updateType, secrets, TYPE_MAX),
    chatId: typeof chatId === 'number' ? chatId : undefined,
    preview: typeof text === 'string' ? safePreview(text, secrets) : undefined,
    ...withContent(messageContent(updateType, payload)),
  }
}

/** `{content}` when there is one (so a description without it has no such key). */
export function withContent(content: string | undefined): {content?: string} {
  return content === undefined ? {} : {content}
}
