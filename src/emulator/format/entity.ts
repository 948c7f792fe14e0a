/**
 * What the three parse_mode parsers share: the MessageEntity shape, the server's entity order, a parse error, and
 * an output buffer that counts UTF-16 code units while the parser copies bytes of the raw UTF-8 input.
 */

/** A MessageEntity as the Bot API answers it: offset and length in UTF-16 code units. */
/** A text_mention's user: its id as the bot wrote it, then the User the bot knows (format/index.ts). */
export type MentionedUser = {id: number; [field: string]: unknown}

export interface Entity {
  type: string
  offset: number
  length: number
  url?: string
  user?: MentionedUser
  language?: string
  custom_emoji_id?: string
  unix_time?: number
  date_time_format?: string
}

/** A parser failure; the client sees `Bad Request: can't parse entities: <message>`. */
export class FormatError extends Error {}

/** td's sort priority per type (MessageEntity::get_type_priority); ties broken by offset, then longer first. */
const PRIORITY: Record<string, number> = {
  mention: 50,
  hashtag: 50,
  bot_command: 50,
  url: 50,
  email: 50,
  cashtag: 50,
  phone_number: 50,
  bank_card_number: 50,
  bold: 90,
  italic: 91,
  underline: 92,
  strikethrough: 93,
  spoiler: 94,
  code: 20,
  pre: 11,
  text_link: 49,
  text_mention: 49,
  blockquote: 0,
  expandable_blockquote: 0,
  custom_emoji: 99,
  date_time: 30,
}

export function sortEntities(entities: Entity[]): Entity[] {
  return entities.sort(
    (a, b) => a.offset - b.offset || b.length - a.length || (PRIORITY[a.type] ?? 50) - (PRIORITY[b.type] ?? 50),
  )
}

/** Entities no other entity may sit inside (td's "pre" mask). */
export const PRE_TYPES = new Set(['code', 'pre', 'date_time'])
/** Entities that may be split around others: bold, italic, underline, strikethrough, spoiler. */
export const SPLITTABLE_TYPES = new Set(['bold', 'italic', 'underline', 'strikethrough', 'spoiler'])
/** A tg-time / tg://time format: `r`, `R`, or any mix of `t T d D w W`. */
export function dateFormatValid(format: string): boolean {
  return format === 'r' || format === 'R' || /^[tTdDwW]*$/.test(format)
}

/** The byte at `i`, or 0 past the end (the parsers read like C strings). */
export const byteAt = (buf: Uint8Array, i: number): number => (i < buf.length ? buf[i] : 0)

/** td's is_space: space, \t, \r, \n, \v and the terminating NUL. */
export const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10 || c === 0 || c === 11

/** Bytes copied from the input, with the UTF-16 length of what was written so far. */
export class Output {
  readonly bytes: Uint8Array
  size = 0
  utf16 = 0

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity)
  }

  /** Copy one raw byte; a lead byte counts 1 UTF-16 unit, 2 for a 4-byte sequence. */
  push(c: number): void {
    this.bytes[this.size++] = c
    if ((c & 0xc0) !== 0x80) this.utf16 += c >= 0xf0 ? 2 : 1
  }

  /** Append a code point as UTF-8 (a decoded HTML character reference). */
  pushCodePoint(code: number): void {
    if (code < 0x80) this.bytes[this.size++] = code
    else if (code < 0x800) {
      this.bytes[this.size++] = 0xc0 | (code >> 6)
      this.bytes[this.size++] = 0x80 | (code & 0x3f)
    } else if (code < 0x10000) {
      this.bytes[this.size++] = 0xe0 | (code >> 12)
      this.bytes[this.size++] = 0x80 | ((code >> 6) & 0x3f)
      this.bytes[this.size++] = 0x80 | (code & 0x3f)
    } else {
      this.bytes[this.size++] = 0xf0 | (code >> 18)
      this.bytes[this.size++] = 0x80 | ((code >> 12) & 0x3f)
      this.bytes[this.size++] = 0x80 | ((code >> 6) & 0x3f)
      this.bytes[this.size++] = 0x80 | (code & 0x3f)
    }
    this.utf16 += code > 0xffff ? 2 : 1
  }

  /** The text written between byte `from` and now. */
  slice(from: number): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + from, this.size - from).toString('utf8')
  }

  text(): string {
    return this.slice(0)
  }
}

export interface Parsed {
  text: string
  entities: Entity[]
}
