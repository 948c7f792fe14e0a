/**
 * parse_mode=HTML (td/telegram/MessageEntity.cpp parse_html): the tags td accepts, `&lt; &gt; &amp; &quot; &#N; &#xH;`
 * (the `;` optional), any other `&…` kept as it is. Errors name the byte offset of the tag in the raw input.
 */
import {
  type Entity,
  FormatError,
  Output,
  type Parsed,
  byteAt,
  dateFormatValid,
  isSpace,
  sortEntities,
} from './entity.js'
import {checkedLink, linkUserId} from './links.js'

const TAGS = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  's',
  'strike',
  'del',
  'u',
  'ins',
  'tg-spoiler',
  'tg-emoji',
  'tg-time',
  'span',
  'pre',
  'code',
  'blockquote',
])
const SIMPLE: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  u: 'underline',
  ins: 'underline',
  'tg-spoiler': 'spoiler',
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isAlpha = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a
const isHex = (c: number): boolean => isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)

/** A character reference at `pos` (which holds '&'): its code point and the position after it, or code 0. */
function decodeEntity(s: Uint8Array, pos: number): {code: number; next: number} {
  const at = (i: number): number => byteAt(s, i)
  let end = pos + 1
  let code = 0
  if (at(pos + 1) === 0x23) {
    end++
    if (at(pos + 2) === 0x78) {
      end++
      while (isHex(at(end))) code = code * 16 + parseInt(String.fromCharCode(at(end++)), 16)
    } else {
      while (isDigit(at(end))) code = code * 10 + at(end++) - 0x30
    }
    if (code === 0 || code >= 0x10ffff || end - pos >= 10) return {code: 0, next: pos}
  } else {
    while (isAlpha(at(end))) end++
    const name = Buffer.from(s.subarray(pos + 1, end)).toString('latin1')
    code = name === 'lt' ? 0x3c : name === 'gt' ? 0x3e : name === 'amp' ? 0x26 : name === 'quot' ? 0x22 : 0
    if (code === 0) return {code: 0, next: pos}
  }
  return {code, next: at(end) === 0x3b ? end + 1 : end}
}

interface Open {
  tag: string
  argument: string
  date: number
  offset: number
  beginPos: number
}

export function parseHtml(input: Uint8Array): Parsed {
  const out = new Output(input.length)
  const entities: Entity[] = []
  const nested: Open[] = []
  const at = (i: number): number => byteAt(input, i)
  const lower = (from: number, to: number): string =>
    Buffer.from(input.subarray(from, to)).toString('utf8').toLowerCase()
  let surrogate = false

  for (let i = 0; i < input.length; i++) {
    const c = input[i]
    if (c === 0x26) {
      const {code, next} = decodeEntity(input, i)
      if (code !== 0) {
        if (code >= 0xd800 && code <= 0xdfff) surrogate = true
        out.pushCodePoint(code)
        i = next - 1
        continue
      }
    }
    if (c !== 0x3c) {
      out.push(c)
      continue
    }
    const beginPos = i++
    if (at(i) !== 0x2f) {
      while (!isSpace(at(i)) && at(i) !== 0x3e) i++
      if (at(i) === 0) throw new FormatError(`Unclosed start tag at byte offset ${beginPos}`)
      const tag = lower(beginPos + 1, i)
      if (!TAGS.has(tag)) throw new FormatError(`Unsupported start tag "${tag}" at byte offset ${beginPos}`)
      let argument = ''
      let date = 0
      while (at(i) !== 0x3e) {
        while (at(i) !== 0 && isSpace(at(i))) i++
        if (at(i) === 0x3e) break
        const nameBegin = i
        while (
          !isSpace(at(i)) &&
          at(i) !== 0x3d &&
          at(i) !== 0x3e &&
          at(i) !== 0x2f &&
          at(i) !== 0x22 &&
          at(i) !== 0x27
        )
          i++
        const name = Buffer.from(input.subarray(nameBegin, i)).toString('utf8')
        if (name === '') throw new FormatError(`Empty attribute name in the tag "${tag}" at byte offset ${beginPos}`)
        while (at(i) !== 0 && isSpace(at(i))) i++
        if (at(i) !== 0x3d) {
          if (at(i) === 0) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${beginPos}`)
          if (tag === 'blockquote' && name === 'expandable') argument = '1'
          continue
        }
        i++
        while (at(i) !== 0 && isSpace(at(i))) i++
        if (at(i) === 0) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${beginPos}`)
        let value: string
        if (at(i) !== 0x27 && at(i) !== 0x22) {
          const tokenBegin = i
          while (isDigit(at(i)) || isAlpha(at(i)) || at(i) === 0x2e || at(i) === 0x2d) i++
          value = lower(tokenBegin, i)
          if (!isSpace(at(i)) && at(i) !== 0x3e)
            throw new FormatError(`Unexpected end of name token at byte offset ${tokenBegin}`)
        } else {
          const quote = input[i++]
          const bytes = new Output(input.length)
          while (at(i) !== quote && at(i) !== 0) {
            if (at(i) === 0x26) {
              const {code, next} = decodeEntity(input, i)
              if (code !== 0) {
                bytes.pushCodePoint(code)
                i = next
                continue
              }
            }
            bytes.push(input[i++])
          }
          if (at(i) === quote) i++
          value = bytes.text()
        }
        if (at(i) === 0) throw new FormatError(`Unclosed start tag at byte offset ${beginPos}`)
        if (tag === 'a' && name === 'href') argument = value
        else if (tag === 'code' && name === 'class' && value.startsWith('language-')) argument = value.slice(9)
        else if (tag === 'span' && name === 'class' && value.startsWith('tg-')) argument = value.slice(3)
        else if (tag === 'tg-emoji' && name === 'emoji-id') argument = value
        else if (tag === 'blockquote' && name === 'expandable') argument = '1'
        else if (tag === 'tg-time' && name === 'unix') date = /^-?\d+$/.test(value) ? Number(value) | 0 : 0
        else if (tag === 'tg-time' && name === 'format') argument = value
      }
      if (tag === 'span' && argument !== 'spoiler')
        throw new FormatError(`Tag "span" must have class "tg-spoiler" at byte offset ${beginPos}`)
      nested.push({tag, argument, date, offset: out.utf16, beginPos: out.size})
      continue
    }

    // an end tag
    if (nested.length === 0) throw new FormatError(`Unexpected end tag at byte offset ${beginPos}`)
    while (!isSpace(at(i)) && at(i) !== 0x3e) i++
    const endTag = lower(beginPos + 2, i)
    while (isSpace(at(i)) && at(i) !== 0) i++
    if (at(i) !== 0x3e) throw new FormatError(`Unclosed end tag at byte offset ${beginPos}`)
    const open = nested.at(-1)!
    if (endTag !== '' && endTag !== open.tag) {
      throw new FormatError(
        `Unmatched end tag at byte offset ${beginPos}, expected "</${open.tag}>", found "</${endTag}>"`,
      )
    }
    if (out.utf16 > open.offset) {
      const offset = open.offset
      const length = out.utf16 - offset
      const tag = open.tag
      const last = entities.at(-1)
      if (SIMPLE[tag] || tag === 'span') entities.push({type: SIMPLE[tag] ?? 'spoiler', offset, length})
      else if (tag === 'tg-emoji') {
        if (
          !/^-?\d{1,19}$/.test(open.argument) ||
          BigInt(open.argument) === 0n ||
          BigInt.asIntN(64, BigInt(open.argument)) !== BigInt(open.argument)
        ) {
          throw new FormatError('Invalid custom emoji identifier specified')
        }
        entities.push({type: 'custom_emoji', offset, length, custom_emoji_id: open.argument})
      } else if (tag === 'tg-time') {
        if (!dateFormatValid(open.argument)) throw new FormatError('Invalid date format used')
        if (open.date > 0)
          entities.push({
            type: 'date_time',
            offset,
            length,
            unix_time: open.date,
            ...(open.argument ? {date_time_format: open.argument} : {}),
          })
      } else if (tag === 'a') {
        const url = open.argument || out.slice(open.beginPos)
        const userId = linkUserId(url)
        if (userId !== undefined) entities.push({type: 'text_mention', offset, length, user: {id: userId}})
        else {
          const checked = checkedLink(url)
          if (checked) entities.push({type: 'text_link', offset, length, url: checked})
        }
      } else if (tag === 'pre') {
        if (last?.type === 'code' && last.offset === offset && last.length === length && last.language)
          last.type = 'pre'
        else entities.push({type: 'pre', offset, length})
      } else if (tag === 'code') {
        if (last?.type === 'pre' && last.offset === offset && last.length === length && open.argument)
          last.language = open.argument
        else entities.push({type: 'code', offset, length, ...(open.argument ? {language: open.argument} : {})})
      } else if (tag === 'blockquote') {
        entities.push({type: open.argument ? 'expandable_blockquote' : 'blockquote', offset, length})
      }
    }
    nested.pop()
  }
  if (nested.length > 0) throw new FormatError(`Can't find end tag corresponding to start tag "${nested.at(-1)!.tag}"`)
  for (const e of entities) if (e.type === 'code') delete e.language
  const text = out.text()
  if (surrogate && hasLoneSurrogateBytes(out.bytes.subarray(0, out.size))) {
    throw new FormatError(
      'Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units',
    )
  }
  return {text, entities: sortEntities(entities)}
}

/** A surrogate encoded as UTF-8 (ED A0..BF xx) is invalid UTF-8 (td's check_utf8). */
function hasLoneSurrogateBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0xed && bytes[i + 1] >= 0xa0) return true
  return false
}
