/**
 * A bounded reader of JSON bytes for scans that want a few values of a large body without JSON.parse: it reads the
 * first `end` bytes of a buffer in place, compares keys as bytes, builds nothing but the strings and numbers asked
 * for, and skips nested values by counting brackets instead of recursing. Bytes that are not JSON stop the read with
 * BROKEN; reaching the bound (when the buffer goes on past it) stops it with BOUND. scan.ts reads an update with it.
 */

export const QUOTE = 0x22
const BACKSLASH = 0x5c
export const OPEN = 0x7b
export const CLOSE = 0x7d
export const COLON = 0x3a
export const COMMA = 0x2c
export const LETTER_N = 0x6e

/** Thrown when the bytes are not JSON (broken), or the bound is reached. */
export class Stop {
  constructor(readonly broken: boolean) {}
}
export const BROKEN = new Stop(true)
export const BOUND = new Stop(false)

/** A value found that is neither a number, a string nor null: it stops a `??` chain like any non-null. */
export const OTHER: unique symbol = Symbol('other')
export type Found = number | string | null | undefined | typeof OTHER

const EMPTY = Buffer.alloc(0)
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/** A key as bytes, to compare the keys read against without making a string. */
export const keyBytes = (s: string): Buffer => Buffer.from(s, 'latin1')

export class JsonBytes {
  buf: Buffer = EMPTY
  pos = 0
  end = 0
  /** The key just read: its bytes are buf[keyStart, keyEnd); `keyText` when it had an escape. */
  keyStart = 0
  keyEnd = 0
  keyText: string | undefined

  /** Read `body` from its start, up to `max` bytes. */
  start(body: Buffer, max: number): void {
    this.buf = body
    this.pos = 0
    this.end = Math.min(body.length, max)
  }

  /** Let go of the body. */
  release(): void {
    this.buf = EMPTY
  }

  /** Whether the bound cut the body (bytes past `end` were not read). */
  get cut(): boolean {
    return this.end < this.buf.length
  }

  ws(): void {
    const {buf, end} = this
    let pos = this.pos
    while (pos < end) {
      const c = buf[pos]
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
      pos++
    }
    this.pos = pos
  }

  peek(): number {
    if (this.pos >= this.end) throw this.cut ? BOUND : BROKEN
    return this.buf[this.pos]
  }

  next(): number {
    const c = this.peek()
    this.pos++
    return c
  }

  expect(c: number): void {
    if (this.next() !== c) throw BROKEN
  }

  literal(word: string): void {
    for (let i = 0; i < word.length; i++) if (this.next() !== word.charCodeAt(i)) throw BROKEN
  }

  /** After a member's value: true at the object's `}`, on past a `,`; anything else is not JSON. */
  endOfMember(): boolean {
    this.ws()
    const c = this.next()
    if (c === CLOSE) return true
    if (c !== COMMA) throw BROKEN
    this.ws()
    return false
  }

  /** A member's key and its colon, up to its value. */
  member(): void {
    this.readKey()
    this.ws()
    this.expect(COLON)
    this.ws()
  }

  /** Past a `{` at pos: true (and past it) when the object is empty. */
  emptyObject(): boolean {
    this.pos++
    this.ws()
    if (this.peek() !== CLOSE) return false
    this.pos++
    return true
  }

  /** The index of the quote that closes the string opening at pos. */
  closingQuote(): number {
    const {buf, end} = this
    let at = this.pos
    for (;;) {
      at = buf.indexOf(QUOTE, at + 1)
      if (at < 0 || at >= end) throw this.cut ? BOUND : BROKEN
      if (buf[at - 1] !== BACKSLASH) return at
      let slashes = 1
      while (buf[at - 1 - slashes] === BACKSLASH) slashes++
      if (slashes % 2 === 0) return at
    }
  }

  /** Whether buf[start, close) holds an escape; a raw control byte (not allowed in JSON) stops the read. */
  hasEscape(start: number, close: number): boolean {
    const buf = this.buf
    for (let i = start; i < close; i++) {
      const c = buf[i]
      if (c === BACKSLASH) return true
      if (c < 0x20) throw BROKEN
    }
    return false
  }

  /** A key at pos: its span, and its text when it has an escape (compared as text then). */
  readKey(): void {
    if (this.peek() !== QUOTE) throw BROKEN
    const close = this.closingQuote()
    this.keyStart = this.pos + 1
    this.keyEnd = close
    this.pos = close + 1
    this.keyText = this.hasEscape(this.keyStart, close) ? this.decode(this.keyStart, close) : undefined
  }

  keyLength(): number {
    return this.keyText === undefined ? this.keyEnd - this.keyStart : this.keyText.length
  }

  keyIs(bytes: Buffer): boolean {
    if (this.keyText !== undefined) return this.keyText === bytes.toString('latin1')
    const n = bytes.length
    const {buf, keyStart} = this
    if (this.keyEnd - keyStart !== n) return false
    for (let i = 0; i < n; i++) if (buf[keyStart + i] !== bytes[i]) return false
    return true
  }

  /** The key just read as text. */
  keyString(): string {
    return this.keyText ?? this.buf.toString('utf8', this.keyStart, this.keyEnd)
  }

  /** Whether the key just read is the one first seen at buf[start, stop) (or, escaped, known by its text: start -1). */
  sameKeyAs(text: string, start: number, stop: number): boolean {
    if (this.keyText !== undefined) return this.keyText === text
    if (start < 0) return this.buf.toString('utf8', this.keyStart, this.keyEnd) === text
    const {buf, keyStart} = this
    if (this.keyEnd - keyStart !== stop - start) return false
    for (let i = 0; i < stop - start; i++) if (buf[keyStart + i] !== buf[start + i]) return false
    return true
  }

  /** A number, a string or null as such; anything else skipped (OTHER). */
  scalar(): Found {
    const c = this.peek()
    if (c === QUOTE) return this.readString()
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber()
    if (c === LETTER_N) {
      this.literal('null')
      return null
    }
    this.skipValue()
    return OTHER
  }

  readString(): string {
    const close = this.closingQuote()
    const start = this.pos + 1
    this.pos = close + 1
    return this.hasEscape(start, close) ? this.decode(start, close) : this.buf.toString('utf8', start, close)
  }

  /** A string literal with escapes: JSON.parse reads exactly it. */
  decode(start: number, close: number): string {
    try {
      return JSON.parse(this.buf.toString('utf8', start - 1, close + 1))
    } catch {
      throw BROKEN
    }
  }

  readNumber(): number {
    const {buf, end} = this
    const start = this.pos
    let pos = start
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
      this.pos = pos
      return negative ? -value : value
    }
    // Anything else (a fraction, an exponent, many digits): the whole token, checked as JSON.
    pos = start
    while (pos < end) {
      const b = buf[pos]
      if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) pos++
      else break
    }
    this.pos = pos
    if (pos >= end && this.cut) throw BOUND
    const token = buf.toString('latin1', start, pos)
    if (!NUMBER.test(token)) throw BROKEN
    return Number(token)
  }

  /** Skip one value of any kind; nesting is counted, not recursed into. */
  skipValue(): void {
    const c = this.peek()
    if (c === QUOTE) {
      this.pos = this.closingQuote() + 1
      return
    }
    if (c === OPEN || c === 0x5b) {
      const {buf, end} = this
      let depth = 0
      while (this.pos < end) {
        const b = buf[this.pos]
        if (b === QUOTE) {
          this.pos = this.closingQuote() + 1
          continue
        }
        if (b === OPEN || b === 0x5b) depth++
        else if (b === CLOSE || b === 0x5d) {
          if (--depth === 0) {
            this.pos++
            return
          }
        }
        this.pos++
      }
      throw this.cut ? BOUND : BROKEN
    }
    if (c === 0x74) return this.literal('true')
    if (c === 0x66) return this.literal('false')
    if (c === LETTER_N) return this.literal('null')
    this.readNumber()
  }
}
