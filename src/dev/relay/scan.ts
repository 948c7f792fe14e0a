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
 */
import {
  CONTENT_FIELDS,
  contentText,
  isMessageUpdate,
  safePreview,
  type UpdateDescription,
} from '../../telegram/describe.js'

/** Bytes of a body the scan reads. */
export const SCAN_MAX = 64 * 1024
/** Longest update type shown (a forged body could have any key). */
const TYPE_MAX = 40

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN = 0x7b
const CLOSE = 0x7d

/** A value found that is neither a number, a string nor null: it stops a `??` chain like any non-null. */
const OTHER: unique symbol = Symbol('other')
type Found = number | string | null | undefined | typeof OTHER

/** Thrown (and caught in scanUpdate) when the bytes are not JSON, or the bound is reached. */
class Stop {
  constructor(readonly broken: boolean) {}
}
const BROKEN = new Stop(true)
const BOUND = new Stop(false)

const EMPTY = Buffer.alloc(0)
const key = (s: string) => Buffer.from(s, 'latin1')
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
let buf: Buffer = EMPTY
let pos = 0
let end = 0
/** The key just read: its bytes are buf[keyStart, keyEnd); `keyText` when it had an escape. */
let keyStart = 0
let keyEnd = 0
let keyText: string | undefined
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
  buf = body
  pos = 0
  end = Math.min(body.length, SCAN_MAX)
  updateId = chat0 = chat1 = chat2 = chat3 = text0 = text1 = text2 = text3 = text4 = undefined
  resetContent()
  let type: string | undefined
  try {
    type = scanTop()
  } catch (stop) {
    if (!(stop instanceof Stop) || stop.broken) return {}
    type = bounded
  } finally {
    buf = EMPTY
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
  if (keyText !== undefined) return CONTENT_FIELDS.indexOf(keyText)
  const n = keyEnd - keyStart
  const candidates = CONTENT_KEYS.get(n * 256 + buf[keyStart])
  if (candidates) for (const c of candidates) if (keyIs(c.bytes)) return c.rank
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
  ws()
  expect(OPEN)
  ws()
  if (peek() === CLOSE) pos++
  else
    for (;;) {
      readKey()
      ws()
      expect(0x3a) // :
      ws()
      if (keyIs(K_UPDATE_ID)) updateId = scalar()
      else if (type === undefined || sameKeyAs(type, typeStart, typeEnd)) {
        // The first member that is not update_id is the update's type (a duplicate of it: the last value).
        if (type === undefined) {
          type = keyText ?? buf.toString('utf8', keyStart, keyEnd)
          // Its bytes, to know a duplicate by; an escaped one is known by its text.
          if (keyText === undefined) {
            typeStart = keyStart
            typeEnd = keyEnd
          }
          bounded = type
        }
        chat0 = chat1 = chat2 = chat3 = text0 = text1 = text2 = text3 = text4 = undefined
        resetContent()
        if (peek() === OPEN) scanPayload(isMessageUpdate(type))
        else skipValue()
      } else skipValue()
      ws()
      const c = next()
      if (c === CLOSE) break
      if (c !== 0x2c) throw BROKEN
      ws()
    }
  // Only whitespace may follow (JSON.parse would refuse the body otherwise).
  ws()
  if (pos < end) throw BROKEN
  if (end < buf.length) throw BOUND
  return type
}

/**
 * The payload object: chat.id, message.chat.id, from.id, user.id; text, caption, data, query,
 * question; and of a message (`message`: true) the content fields it has.
 */
function scanPayload(message: boolean): void {
  pos++ // {
  ws()
  if (peek() === CLOSE) {
    pos++
    return
  }
  for (;;) {
    readKey()
    ws()
    expect(0x3a)
    ws()
    const rank = message ? contentRank() : -1
    if (rank >= 0) {
      // Seen once its value is read whole (one cut by the bound does not count); the last value wins.
      const isNull = peek() === 0x6e
      const slot = paymentSlot(CONTENT_FIELDS[rank])
      if (slot >= 0) paymentOf(slot)
      else skipValue()
      contentSeen[rank] = isNull ? 0 : 1
      contentTouched = true
    } else
      switch (keyLength()) {
        case 4:
          if (keyIs(K_CHAT)) chat0 = idOf()
          else if (keyIs(K_FROM)) chat2 = idOf()
          else if (keyIs(K_USER)) chat3 = idOf()
          else if (keyIs(K_TEXT)) text0 = scalar()
          else if (keyIs(K_DATA)) text2 = scalar()
          else skipValue()
          break
        case 5:
          if (keyIs(K_QUERY)) text3 = scalar()
          else skipValue()
          break
        case 7:
          if (keyIs(K_MESSAGE)) chat1 = messageChatId()
          else if (keyIs(K_CAPTION)) text1 = scalar()
          else skipValue()
          break
        case 8:
          if (keyIs(K_QUESTION)) text4 = scalar()
          else skipValue()
          break
        default:
          skipValue()
      }
    ws()
    const c = next()
    if (c === CLOSE) return
    if (c !== 0x2c) throw BROKEN
    ws()
  }
}

/** `value.id` of the value at pos (undefined unless it is an object with an id). */
function idOf(): Found {
  if (peek() !== OPEN) {
    skipValue()
    return undefined
  }
  let id: Found = undefined
  pos++
  ws()
  if (peek() === CLOSE) {
    pos++
    return undefined
  }
  for (;;) {
    readKey()
    ws()
    expect(0x3a)
    ws()
    if (keyIs(K_ID)) id = scalar()
    else skipValue()
    ws()
    const c = next()
    if (c === CLOSE) return id
    if (c !== 0x2c) throw BROKEN
    ws()
  }
}

/** `value.total_amount` and `value.currency` of the value at pos (a payment), into payTotal and payCurrency[slot]. */
function paymentOf(slot: number): void {
  payTotal[slot] = payCurrency[slot] = undefined
  if (peek() !== OPEN) {
    skipValue()
    return
  }
  pos++
  ws()
  if (peek() === CLOSE) {
    pos++
    return
  }
  for (;;) {
    readKey()
    ws()
    expect(0x3a)
    ws()
    if (keyIs(K_TOTAL_AMOUNT)) payTotal[slot] = scalar()
    else if (keyIs(K_CURRENCY)) payCurrency[slot] = scalar()
    else skipValue()
    ws()
    const c = next()
    if (c === CLOSE) return
    if (c !== 0x2c) throw BROKEN
    ws()
  }
}

/** `value.chat.id` of the value at pos. */
function messageChatId(): Found {
  if (peek() !== OPEN) {
    skipValue()
    return undefined
  }
  let id: Found = undefined
  pos++
  ws()
  if (peek() === CLOSE) {
    pos++
    return undefined
  }
  for (;;) {
    readKey()
    ws()
    expect(0x3a)
    ws()
    if (keyIs(K_CHAT)) id = idOf()
    else skipValue()
    ws()
    const c = next()
    if (c === CLOSE) return id
    if (c !== 0x2c) throw BROKEN
    ws()
  }
}

/** A number, a string or null as such; anything else skipped (OTHER). */
function scalar(): Found {
  const c = peek()
  if (c === QUOTE) return readString()
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return readNumber()
  if (c === 0x6e) {
    literal('null')
    return null
  }
  skipValue()
  return OTHER
}

function ws(): void {
  while (pos < end) {
    const c = buf[pos]
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return
    pos++
  }
}

function peek(): number {
  if (pos >= end) throw end < buf.length ? BOUND : BROKEN
  return buf[pos]
}

function next(): number {
  const c = peek()
  pos++
  return c
}

function expect(c: number): void {
  if (next() !== c) throw BROKEN
}

function literal(word: string): void {
  for (let i = 0; i < word.length; i++) if (next() !== word.charCodeAt(i)) throw BROKEN
}

/** The index of the quote that closes the string opening at pos. */
function closingQuote(): number {
  let at = pos
  for (;;) {
    at = buf.indexOf(QUOTE, at + 1)
    if (at < 0 || at >= end) throw end < buf.length ? BOUND : BROKEN
    if (buf[at - 1] !== BACKSLASH) return at
    let slashes = 1
    while (buf[at - 1 - slashes] === BACKSLASH) slashes++
    if (slashes % 2 === 0) return at
  }
}

/** Whether buf[start, close) holds an escape; a raw control byte (not allowed in JSON) stops the scan. */
function hasEscape(start: number, close: number): boolean {
  for (let i = start; i < close; i++) {
    const c = buf[i]
    if (c === BACKSLASH) return true
    if (c < 0x20) throw BROKEN
  }
  return false
}

/** A key at pos: its span, and its text when it has an escape (compared as text then). */
function readKey(): void {
  if (peek() !== QUOTE) throw BROKEN
  const close = closingQuote()
  keyStart = pos + 1
  keyEnd = close
  pos = close + 1
  keyText = hasEscape(keyStart, keyEnd) ? decode(keyStart, keyEnd) : undefined
}

function keyLength(): number {
  return keyText === undefined ? keyEnd - keyStart : keyText.length
}

function keyIs(bytes: Buffer): boolean {
  if (keyText !== undefined) return keyText === bytes.toString('latin1')
  const n = bytes.length
  if (keyEnd - keyStart !== n) return false
  for (let i = 0; i < n; i++) if (buf[keyStart + i] !== bytes[i]) return false
  return true
}

/** Whether the key just read is the update's type (first seen at buf[start, stop), or escaped: start -1). */
function sameKeyAs(type: string, start: number, stop: number): boolean {
  if (keyText !== undefined) return keyText === type
  if (start < 0) return buf.toString('utf8', keyStart, keyEnd) === type
  if (keyEnd - keyStart !== stop - start) return false
  for (let i = 0; i < stop - start; i++) if (buf[keyStart + i] !== buf[start + i]) return false
  return true
}

function readString(): string {
  const close = closingQuote()
  const start = pos + 1
  pos = close + 1
  return hasEscape(start, close) ? decode(start, close) : buf.toString('utf8', start, close)
}

/** A string literal with escapes: JSON.parse reads exactly it. */
function decode(start: number, close: number): string {
  try {
    return JSON.parse(buf.toString('utf8', start - 1, close + 1)) as string
  } catch {
    throw BROKEN
  }
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

function readNumber(): number {
  const start = pos
  // The usual case: an integer of up to 15 digits, read from the bytes.
  let negative = false
  if (buf[pos] === 0x2d) {
    negative = true
    pos++
  }
  let value = 0
  let digits = 0
  while (pos < end) {
    const c = buf[pos]
    if (c < 0x30 || c > 0x39) break
    value = value * 10 + (c - 0x30)
    digits++
    pos++
  }
  const c = pos < end ? buf[pos] : -1
  if (digits > 0 && digits <= 15 && c !== 0x2e && c !== 0x65 && c !== 0x45 && pos < end) {
    if (digits > 1 && buf[negative ? start + 1 : start] === 0x30) throw BROKEN // a leading zero
    return negative ? -value : value
  }
  // Anything else (a fraction, an exponent, many digits): the whole token, checked as JSON.
  pos = start
  while (pos < end) {
    const b = buf[pos]
    if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) pos++
    else break
  }
  if (pos >= end && end < buf.length) throw BOUND
  const token = buf.toString('latin1', start, pos)
  if (!NUMBER.test(token)) throw BROKEN
  return Number(token)
}

/** Skip one value of any kind; nesting is counted, not recursed into. */
function skipValue(): void {
  const c = peek()
  if (c === QUOTE) {
    pos = closingQuote() + 1
    return
  }
  if (c === OPEN || c === 0x5b) {
    let depth = 0
    while (pos < end) {
      const b = buf[pos]
      if (b === QUOTE) {
        pos = closingQuote() + 1
        continue
      }
      if (b === OPEN || b === 0x5b) depth++
      else if (b === CLOSE || b === 0x5d) {
        if (--depth === 0) {
          pos++
          return
        }
      }
      pos++
    }
    throw end < buf.length ? BOUND : BROKEN
  }
  if (c === 0x74) return literal('true')
  if (c === 0x66) return literal('false')
  if (c === 0x6e) return literal('null')
  readNumber()
}
