/**
 * What the update line shows of an update (its id, type, chat and a text preview), read from the
 * raw body by a bounded scan instead of JSON.parse: only the first SCAN_MAX bytes are looked at,
 * keys are compared as bytes, nothing is built but the few values wanted, and nesting is skipped
 * without recursion.
 *
 * The fields are those describeUpdate (telegram/describe.ts) reads, with the same precedence:
 * `payload.chat.id ?? payload.message.chat.id ?? payload.from.id ?? payload.user.id` and
 * `text ?? caption ?? data ?? query ?? question` of the first member that is not update_id; a
 * later duplicate key wins, as in JSON.parse. A body that is not JSON within the bound shows
 * nothing, like describeUpdate; past the bound it is not checked (the line shows what was found).
 * The bytes are read by json-bytes.ts; this module knows which of them an update's line wants.
 */
import {
  CONTENT_FIELDS,
  contentText,
  isMessageUpdate,
  safePreview,
  type UpdateDescription,
} from '../../telegram/describe.js'
import {BOUND, BROKEN, CLOSE, type Found, JsonBytes, keyBytes as key, LETTER_N, OPEN, Stop} from './json-bytes.js'

/** Bytes of a body the scan reads. */
export const SCAN_MAX = 64 * 1024
/** Longest update type shown (a forged body could have any key). */
const TYPE_MAX = 40

const K_UPDATE_ID = key('update_id')
const K_ID = key('id')
const K_CHAT = key('chat')
const K_MESSAGE = key('message')
const K_FROM = key('from')
const K_USER = key('user')
const K_TEXT = key('text')
const K_CAPTION = key('caption')
const K_DATA = key('data')
const K_QUERY = key('query')
const K_QUESTION = key('question')
const K_TOTAL_AMOUNT = key('total_amount')
const K_CURRENCY = key('currency')

/** The content fields (describe.ts CONTENT_FIELDS) by length and first byte: a key is matched without a string made. */
const CONTENT_KEYS = new Map<number, Array<{bytes: Buffer; rank: number}>>()
for (const [rank, field] of CONTENT_FIELDS.entries()) {
  const bytes = key(field)
  const slot = bytes.length * 256 + bytes[0]
  CONTENT_KEYS.set(slot, [...(CONTENT_KEYS.get(slot) ?? []), {bytes, rank}])
}

// The scan's state: one scan at a time (it never yields).
const r = new JsonBytes()
// What was found: chat candidates (chat.id, message.chat.id, from.id, user.id), text candidates.
let updateId: Found
let chat0: Found
let chat1: Found
let chat2: Found
let chat3: Found
let text0: Found
let text1: Found
let text2: Found
let text3: Found
let text4: Found
/** Message updates: per content field (by rank), whether its last value was there (not null); the payment's amount and currency. */
const contentSeen = new Uint8Array(CONTENT_FIELDS.length)
let contentTouched = false
/** successful_payment's and refunded_payment's total_amount and currency (the last value of each field). */
const payTotal: Found[] = [undefined, undefined]
const payCurrency: Found[] = [undefined, undefined]

/** Update types made safe, for one set of secrets (a handful of types recur). */
let typePreviews = new Map<string, string>()
let typeSecrets: Array<string | undefined> | undefined

/** Update id, type, chat and a short text preview of a raw update body; never throws. */
export function scanUpdate(body: Buffer, secrets: Array<string | undefined> = []): UpdateDescription {
  r.start(body, SCAN_MAX)
  updateId = chat0 = chat1 = chat2 = chat3 = text0 = text1 = text2 = text3 = text4 = undefined
  resetContent()
  let type: string | undefined
  try {
    type = scanTop()
  } catch (stop) {
    if (!(stop instanceof Stop) || stop.broken) return {}
    type = bounded
  } finally {
    r.release()
  }
  const chatId = chat0 ?? chat1 ?? chat2 ?? chat3
  const text = text0 ?? text1 ?? text2 ?? text3 ?? text4
  const content = contentTouched && isMessageUpdate(type) ? foundContent() : undefined
  const out: UpdateDescription = {
    updateId: typeof updateId === 'number' ? updateId : undefined,
    updateType: type === undefined ? undefined : typePreview(type, secrets),
    chatId: typeof chatId === 'number' ? chatId : undefined,
    preview: typeof text === 'string' ? safePreview(text, secrets) : undefined,
  }
  if (content !== undefined) out.content = content
  return out
}

function resetContent(): void {
  if (contentTouched) contentSeen.fill(0)
  contentTouched = false
  payTotal[0] = payTotal[1] = payCurrency[0] = payCurrency[1] = undefined
}

/** The content words of the fields seen (the lowest rank present), as describe.ts messageContent makes them. */
function foundContent(): string | undefined {
  const rank = contentSeen.indexOf(1)
  if (rank < 0) return undefined
  const field = CONTENT_FIELDS[rank]
  const slot = paymentSlot(field)
  return contentText(field, slot < 0 ? undefined : payTotal[slot], slot < 0 ? undefined : payCurrency[slot])
}

function paymentSlot(field: string): number {
  return field === 'successful_payment' ? 0 : field === 'refunded_payment' ? 1 : -1
}

/** The content field the key just read is (its rank), or -1. */
function contentRank(): number {
  if (r.keyText !== undefined) return CONTENT_FIELDS.indexOf(r.keyText)
  const n = r.keyEnd - r.keyStart
  const candidates = CONTENT_KEYS.get(n * 256 + r.buf[r.keyStart])
  if (candidates) for (const c of candidates) if (r.keyIs(c.bytes)) return c.rank
  return -1
}

function typePreview(type: string, secrets: Array<string | undefined>): string {
  if (secrets !== typeSecrets || typePreviews.size >= 64) {
    typePreviews = new Map()
    typeSecrets = secrets
  }
  let made = typePreviews.get(type)
  if (made === undefined) {
    made = safePreview(type, secrets, TYPE_MAX)
    typePreviews.set(type, made)
  }
  return made
}

/** The type found before the scan hit the bound. */
let bounded: string | undefined

function scanTop(): string | undefined {
  let type: string | undefined
  let typeStart = -1
  let typeEnd = 0
  bounded = undefined
  r.ws()
  if (r.peek() !== OPEN) throw BROKEN
  if (!r.emptyObject())
    for (;;) {
      r.member()
      if (r.keyIs(K_UPDATE_ID)) updateId = r.scalar()
      else if (type === undefined || r.sameKeyAs(type, typeStart, typeEnd)) {
        // The first member that is not update_id is the update's type (a duplicate of it: the last value).
        if (type === undefined) {
          type = r.keyString()
          // Its bytes, to know a duplicate by; an escaped one is known by its text.
          if (r.keyText === undefined) {
            typeStart = r.keyStart
            typeEnd = r.keyEnd
          }
          bounded = type
        }
        chat0 = chat1 = chat2 = chat3 = text0 = text1 = text2 = text3 = text4 = undefined
        resetContent()
        if (r.peek() === OPEN) scanPayload(isMessageUpdate(type))
        else r.skipValue()
      } else r.skipValue()
      if (r.endOfMember()) break
    }
  // Only whitespace may follow (JSON.parse would refuse the body otherwise).
  r.ws()
  if (r.pos < r.end) throw BROKEN
  if (r.cut) throw BOUND
  return type
}

/**
 * The payload object: chat.id, message.chat.id, from.id, user.id; text, caption, data, query,
 * question; and of a message (`message`: true) the content fields it has.
 */
function scanPayload(message: boolean): void {
  if (r.emptyObject()) return
  for (;;) {
    r.member()
    const rank = message ? contentRank() : -1
    if (rank >= 0) {
      // Seen once its value is read whole (one cut by the bound does not count); the last value wins.
      const isNull = r.peek() === LETTER_N
      const slot = paymentSlot(CONTENT_FIELDS[rank])
      if (slot >= 0) paymentOf(slot)
      else r.skipValue()
      contentSeen[rank] = isNull ? 0 : 1
      contentTouched = true
    } else
      switch (r.keyLength()) {
        case 4:
          if (r.keyIs(K_CHAT)) chat0 = idOf()
          else if (r.keyIs(K_FROM)) chat2 = idOf()
          else if (r.keyIs(K_USER)) chat3 = idOf()
          else if (r.keyIs(K_TEXT)) text0 = r.scalar()
          else if (r.keyIs(K_DATA)) text2 = r.scalar()
          else r.skipValue()
          break
        case 5:
          if (r.keyIs(K_QUERY)) text3 = r.scalar()
          else r.skipValue()
          break
        case 7:
          if (r.keyIs(K_MESSAGE)) chat1 = messageChatId()
          else if (r.keyIs(K_CAPTION)) text1 = r.scalar()
          else r.skipValue()
          break
        case 8:
          if (r.keyIs(K_QUESTION)) text4 = r.scalar()
          else r.skipValue()
          break
        default:
          r.skipValue()
      }
    if (r.endOfMember()) return
  }
}

/** Member `name` of the value at pos, read by `read` (undefined unless it is an object with that member). */
function memberOf(name: Buffer, read: () => Found): Found {
  if (r.peek() !== OPEN) {
    r.skipValue()
    return undefined
  }
  let found: Found
  if (r.emptyObject()) return undefined
  for (;;) {
    r.member()
    if (r.keyIs(name)) found = read()
    else r.skipValue()
    if (r.endOfMember()) return found
  }
}

const scalar = (): Found => r.scalar()

/** `value.id` of the value at pos (undefined unless it is an object with an id). */
function idOf(): Found {
  return memberOf(K_ID, scalar)
}

/** `value.total_amount` and `value.currency` of the value at pos (a payment), into payTotal and payCurrency[slot]. */
function paymentOf(slot: number): void {
  payTotal[slot] = payCurrency[slot] = undefined
  if (r.peek() !== OPEN) {
    r.skipValue()
    return
  }
  if (r.emptyObject()) return
  for (;;) {
    r.member()
    if (r.keyIs(K_TOTAL_AMOUNT)) payTotal[slot] = r.scalar()
    else if (r.keyIs(K_CURRENCY)) payCurrency[slot] = r.scalar()
    else r.skipValue()
    if (r.endOfMember()) return
  }
}

/** `value.chat.id` of the value at pos. */
function messageChatId(): Found {
  return memberOf(K_CHAT, idOf)
}
