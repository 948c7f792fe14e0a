/**
 * What the update line shows of an update (its id, type, chat and a text preview), read from the
 * raw body by a bounded scan instead of JSON.parse: only the first SCAN_MAX bytes are looked at,
 * nothing is built but the few values wanted, and nesting is skipped without recursion.
 *
 * The fields are those describeUpdate (telegram/describe.ts) reads, with the same precedence:
 * `payload.chat.id ?? payload.message.chat.id ?? payload.from.id ?? payload.user.id` and
 * `text ?? caption ?? data ?? query ?? question` of the first member that is not update_id; a
 * later duplicate key wins, as in JSON.parse. A body that is not JSON within the bound shows
 * nothing, like describeUpdate; past the bound it is not checked (the line shows what was found).
 */
import {safePreview, type UpdateDescription} from '../../telegram/describe.js'

/** Bytes of a body the scan reads. */
export const SCAN_MAX = 64 * 1024
/** Longest update type shown (a forged body could have any key). */
const TYPE_MAX = 40

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** A scanned value that is not wanted, or not of the wanted kind: stops a `??` chain as a non-null would. */
const OTHER = Symbol('other')
type Found = number | string | null | typeof OTHER | undefined

/** Raised (and caught below) when the bytes are not JSON, or the bound is reached. */
class Stop {
  constructor(readonly broken: boolean) {}
}
const BROKEN = new Stop(true)
const BOUND = new Stop(false)

let buf: Buffer
let pos = 0
let end = 0

/** Update id, type, chat and a short text preview of a raw update body; never throws. */
export function scanUpdate(body: Buffer, secrets: Array<string | undefined> = []): UpdateDescription {
  buf = body
  pos = 0
  end = Math.min(body.length, SCAN_MAX)
  const found: {updateId: Found; type?: string; chat: Found[]; text: Found[]} = {
    updateId: undefined,
    chat: [undefined, undefined, undefined, undefined],
    text: [undefined, undefined, undefined, undefined, undefined],
  }
  try {
    scanTop(found)
  } catch (stop) {
    if (!(stop instanceof Stop)) return {}
    if (stop.broken) return {}
  } finally {
    buf = EMPTY
  }
  const chatId = first(found.chat)
  const text = first(found.text)
  return {
    updateId: typeof found.updateId === 'number' ? found.updateId : undefined,
    updateType: found.type === undefined ? undefined : safePreview(found.type, secrets, TYPE_MAX),
    chatId: typeof chatId === 'number' ? chatId : undefined,
    preview: typeof text === 'string' ? safePreview(text, secrets) : undefined,
  }
}

const EMPTY = Buffer.alloc(0)

/** The first value that is neither absent nor null (`a ?? b ?? …`). */
function first(values: Found[]): Found {
  for (const v of values) if (v !== undefined && v !== null) return v
  return undefined
}

function scanTop(found: {updateId: Found; type?: string; chat: Found[]; text: Found[]}): void {
  ws()
  expect(0x7b) // {
  ws()
  if (peek() === 0x7d) {
    pos++
  } else {
    for (;;) {
      const key = readString()
      ws()
      expect(0x3a) // :
      ws()
      if (key === 'update_id') found.updateId = scalar()
      else if (found.type === undefined || key === found.type) {
        // The first member that is not update_id is the update's type (a duplicate of it: the last value).
        found.type = key
        found.chat.fill(undefined)
        found.text.fill(undefined)
        if (peek() === 0x7b) scanPayload(found.chat, found.text)
        else skipValue()
      } else skipValue()
      ws()
      const c = next()
      if (c === 0x7d) break
      if (c !== 0x2c) throw BROKEN
      ws()
    }
  }
  // Only whitespace may follow (JSON.parse would refuse the body otherwise).
  ws()
  if (pos < end) throw BROKEN
  if (end < buf.length) throw BOUND
}

const CHAT_KEYS = ['chat', 'message', 'from', 'user']
const TEXT_KEYS = ['text', 'caption', 'data', 'query', 'question']

/** The payload object: chat.id, message.chat.id, from.id, user.id; text, caption, data, query, question. */
function scanPayload(chat: Found[], text: Found[]): void {
  members((key) => {
    const c = CHAT_KEYS.indexOf(key)
    if (c === 1) {
      // message.chat.id
      let id: Found = undefined
      if (peek() === 0x7b)
        members((k) => {
          if (k === 'chat' && peek() === 0x7b) id = idOf()
          else if (k === 'chat') {
            id = undefined
            skipValue()
          } else skipValue()
        })
      else skipValue()
      chat[1] = id
      return
    }
    if (c >= 0) {
      chat[c] = peek() === 0x7b ? idOf() : (skipValue(), undefined)
      return
    }
    const t = TEXT_KEYS.indexOf(key)
    if (t >= 0) {
      const v = scalar()
      text[t] = v
      return
    }
    skipValue()
  })
}

/** The `id` member of the object at pos (undefined when absent). */
function idOf(): Found {
  let id: Found = undefined
  members((k) => {
    if (k === 'id') id = scalar()
    else skipValue()
  })
  return id
}

/** Each member of the object at pos, its value read or skipped by `onMember`. */
function members(onMember: (key: string) => void): void {
  expect(0x7b)
  ws()
  if (peek() === 0x7d) {
    pos++
    return
  }
  for (;;) {
    const key = readString()
    ws()
    expect(0x3a)
    ws()
    onMember(key)
    ws()
    const c = next()
    if (c === 0x7d) return
    if (c !== 0x2c) throw BROKEN
    ws()
  }
}

/** A number, a string or null as such; anything else skipped as OTHER. */
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
    let slashes = 0
    while (buf[at - 1 - slashes] === BACKSLASH) slashes++
    if (slashes % 2 === 0) return at
  }
}

function readString(): string {
  if (peek() !== QUOTE) throw BROKEN
  const close = closingQuote()
  const start = pos + 1
  pos = close + 1
  // Without an escape the bytes are the text; with one, JSON.parse reads exactly this string literal.
  if (buf.indexOf(BACKSLASH, start) < 0 || buf.indexOf(BACKSLASH, start) >= close) {
    for (let i = start; i < close; i++) if (buf[i] < 0x20) throw BROKEN
    return buf.toString('utf8', start, close)
  }
  try {
    return JSON.parse(buf.toString('utf8', start - 1, close + 1)) as string
  } catch {
    throw BROKEN
  }
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

function readNumber(): number {
  const start = pos
  while (pos < end) {
    const c = buf[pos]
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) pos++
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
  if (c === 0x7b || c === 0x5b) {
    let depth = 0
    while (pos < end) {
      const b = buf[pos]
      if (b === QUOTE) {
        pos = closingQuote() + 1
        continue
      }
      if (b === 0x7b || b === 0x5b) depth++
      else if (b === 0x7d || b === 0x5d) {
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
