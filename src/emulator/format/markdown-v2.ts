/**
 * parse_mode=MarkdownV2 (td/telegram/MessageEntity.cpp parse_markdown_v2): nested `*bold*`, `_italic_`,
 * `__underline__`, `~strike~`, `||spoiler||`, `[text](url)`, `![emoji](tg://emoji?id=N)`, `` `code` ``, ````
 * ```lang\npre``` ````, `>` blockquotes; `\` escapes any ASCII character. Errors name the byte offset into the raw
 * input.
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
import {checkedLink, linkCustomEmojiId, linkDateTime, linkUserId} from './links.js'

const RESERVED = new Set([...'_*[]()~`>#+-=|{}.!\n'].map((c) => c.charCodeAt(0)))
const BACKTICK = 0x60

/** td's names for the error `Can't find end of <Name> entity at byte offset N`. */
const NAMES: Record<string, string> = {
  bold: 'Bold',
  italic: 'Italic',
  underline: 'Underline',
  strikethrough: 'Strikethrough',
  spoiler: 'Spoiler',
  code: 'Code',
  pre: 'Pre',
  precode: 'PreCode',
  text_link: 'TextUrl',
  custom_emoji: 'CustomEmoji',
  blockquote: 'BlockQuote',
}

interface Open {
  type: string
  argument: string
  offset: number
  byteOffset: number
  beginPos: number
}

const reserved = (c: number): FormatError =>
  new FormatError(`Character '${String.fromCharCode(c)}' is reserved and must be escaped with the preceding '\\'`)
const noEnd = (e: Open): FormatError =>
  new FormatError(`Can't find end of ${NAMES[e.type]} entity at byte offset ${e.byteOffset}`)

export function parseMarkdownV2(input: Uint8Array): Parsed {
  const out = new Output(input.length)
  const entities: Entity[] = []
  const nested: Open[] = []
  const at = (i: number): number => byteAt(input, i)
  /** The URL of `[text](url)` starting at byte `from` (backslash escapes resolved) and the index of its `)`. */
  const readUrl = (from: number): [string, number] => {
    const bytes: number[] = []
    let i = from
    while (i < input.length && input[i] !== 0x29) {
      if (input[i] === 0x5c && at(i + 1) > 0 && at(i + 1) <= 126) {
        bytes.push(input[i + 1])
        i += 2
        continue
      }
      bytes.push(input[i++])
    }
    if (at(i) !== 0x29) throw new FormatError(`Can't find end of a URL at byte offset ${from}`)
    return [Buffer.from(bytes).toString('utf8'), i]
  }
  const str = (from: number, to: number): string => Buffer.from(input.subarray(from, to)).toString('utf8')
  let haveBlockquote = false
  let canStartBlockquote = true

  for (let i = 0; i < input.length; i++) {
    const c = input[i]
    if (c === 0x5c && at(i + 1) > 0 && at(i + 1) <= 126) {
      i++
      out.push(input[i])
      if (input[i] !== 0x0d) canStartBlockquote = input[i] === 0x0a
      continue
    }
    const top = nested.at(-1)
    const inCode = top !== undefined && (top.type === 'code' || top.type === 'pre' || top.type === 'precode')
    if (inCode ? c !== BACKTICK : !RESERVED.has(c)) {
      if ((c & 0xc0) !== 0x80 && c !== 0x0d) canStartBlockquote = false
      out.push(c)
      continue
    }

    let isEnd = false
    if (top) {
      if (haveBlockquote && c === 0x0a && (i + 1 === input.length || at(i + 1) !== 0x3e)) isEnd = true
      else {
        switch (top.type) {
          case 'bold':
            isEnd = c === 0x2a
            break
          case 'italic':
            isEnd = c === 0x5f && at(i + 1) !== 0x5f
            break
          case 'code':
            isEnd = c === BACKTICK
            break
          case 'pre':
          case 'precode':
            isEnd = c === BACKTICK && at(i + 1) === BACKTICK && at(i + 2) === BACKTICK
            break
          case 'text_link':
          case 'custom_emoji':
            isEnd = c === 0x5d
            break
          case 'underline':
            isEnd = c === 0x5f && at(i + 1) === 0x5f
            break
          case 'strikethrough':
            isEnd = c === 0x7e
            break
          case 'spoiler':
            isEnd = c === 0x7c && at(i + 1) === 0x7c
            break
          default:
            isEnd = false
        }
      }
    }

    if (!isEnd) {
      let type: string | undefined
      let argument = ''
      const byteOffset = i
      switch (c) {
        case 0x5f:
          if (at(i + 1) === 0x5f) {
            type = 'underline'
            i++
          } else type = 'italic'
          break
        case 0x2a:
          type = 'bold'
          break
        case 0x7e:
          type = 'strikethrough'
          break
        case 0x7c:
          if (at(i + 1) !== 0x7c) throw reserved(c)
          i++
          type = 'spoiler'
          break
        case 0x5b:
          type = 'text_link'
          break
        case BACKTICK:
          if (at(i + 1) === BACKTICK && at(i + 2) === BACKTICK) {
            i += 3
            type = 'pre'
            let languageEnd = i
            while (!isSpace(at(languageEnd)) && at(languageEnd) !== BACKTICK) languageEnd++
            if (i !== languageEnd && languageEnd < input.length && at(languageEnd) !== BACKTICK) {
              type = 'precode'
              argument = str(i, languageEnd)
              i = languageEnd
            }
            if (at(i) === 0x0a || at(i) === 0x0d) {
              i += (at(i + 1) === 0x0a || at(i + 1) === 0x0d) && at(i) !== at(i + 1) ? 2 : 1
            }
            i--
          } else type = 'code'
          break
        case 0x21:
          if (at(i + 1) !== 0x5b) throw reserved(c)
          i++
          type = 'custom_emoji'
          break
        case 0x0a:
          out.push(0x0a)
          canStartBlockquote = true
          break
        case 0x3e:
          if (!canStartBlockquote) throw reserved(c)
          if (!haveBlockquote) {
            type = 'blockquote'
            haveBlockquote = true
          }
          break
        default:
          throw reserved(c)
      }
      if (type) nested.push({type, argument, offset: out.utf16, byteOffset, beginPos: out.size})
      continue
    }

    // the end of the innermost entity
    let e = nested.at(-1)!
    let type = e.type
    if (c === 0x0a && type !== 'blockquote') {
      const spoilerRightBefore =
        type === 'spoiler' &&
        (e.byteOffset === i - 2 || (e.byteOffset === i - 3 && out.size !== 0 && out.bytes[out.size - 1] === 0x0d))
      if (!spoilerRightBefore) throw noEnd(e)
      nested.pop()
      e = nested.at(-1)!
      if (e.type !== 'blockquote') throw noEnd(e)
      type = 'expandable_blockquote'
    }
    let argument = e.argument
    let skip = out.utf16 === e.offset
    let userId: number | undefined
    let emojiId: string | undefined
    let date: {unix: number; format: string} | undefined
    switch (type) {
      case 'underline':
      case 'spoiler':
        i++
        break
      case 'pre':
      case 'precode':
        i += 2
        break
      case 'text_link': {
        let url = ''
        if (at(i + 1) !== 0x28) url = out.slice(e.beginPos)
        else {
          i += 2
          ;[url, i] = readUrl(i)
        }
        userId = linkUserId(url)
        if (userId === undefined) {
          argument = checkedLink(url)
          if (argument === '') skip = true
        }
        break
      }
      case 'custom_emoji': {
        if (at(i + 1) !== 0x28) throw new FormatError('The entity must contain a tg://emoji or tg://time URL')
        i += 2
        let url: string
        ;[url, i] = readUrl(i)
        emojiId = linkCustomEmojiId(url)
        if (emojiId === undefined) {
          date = linkDateTime(url)
          if (!date) throw new FormatError('Invalid tg://emoji or tg://time URL specified')
          if (!dateFormatValid(date.format)) throw new FormatError('Invalid date format used')
          type = 'date_time'
        }
        break
      }
      case 'blockquote':
      case 'expandable_blockquote':
        haveBlockquote = false
        out.push(input[i])
        canStartBlockquote = true
        skip = false
        break
      default:
        break
    }
    if (!skip) {
      const offset = e.offset
      const length = out.utf16 - offset
      if (userId !== undefined) entities.push({type: 'text_mention', offset, length, user: {id: userId}})
      else if (emojiId !== undefined) entities.push({type: 'custom_emoji', offset, length, custom_emoji_id: emojiId})
      else if (date)
        entities.push({
          type: 'date_time',
          offset,
          length,
          unix_time: date.unix,
          ...(date.format ? {date_time_format: date.format} : {}),
        })
      else if (type === 'text_link') entities.push({type, offset, length, url: argument})
      else if (type === 'precode') entities.push({type: 'pre', offset, length, language: argument})
      else entities.push({type, offset, length})
    }
    nested.pop()
  }
  if (haveBlockquote) {
    let type = 'blockquote'
    const last = nested.at(-1)!
    if (last.type === 'spoiler' && last.byteOffset === input.length - 2) {
      nested.pop()
      type = 'expandable_blockquote'
    }
    const quote = nested.at(-1)!
    if (quote.type === 'blockquote') {
      const length = out.utf16 - quote.offset
      if (length !== 0) entities.push({type, offset: quote.offset, length})
      nested.pop()
    }
  }
  if (nested.length > 0) throw noEnd(nested.at(-1)!)
  return {text: out.text(), entities: sortEntities(entities)}
}
