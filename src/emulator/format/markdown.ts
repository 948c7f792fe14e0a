/**
 * parse_mode=Markdown (legacy v1, td/telegram/MessageEntity.cpp parse_markdown): `*bold*`, `_italic_`, `` `code` ``,
 * ```` ```lang\npre``` ````, `[text](url)`. Only `\_ \* \` \[` are escapes; an entity's body is copied literally up to
 * its end character. The only error: `Can't find end of the entity starting at byte offset N`.
 */
import {type Entity, FormatError, Output, type Parsed, byteAt, isSpace, sortEntities} from './entity.js'
import {checkedLink, linkUserId} from './links.js'

const [UNDERSCORE, STAR, BACKTICK, OPEN, CLOSE, PAREN_OPEN, PAREN_CLOSE, BACKSLASH, LF, CR] = [
  0x5f, 0x2a, 0x60, 0x5b, 0x5d, 0x28, 0x29, 0x5c, 0x0a, 0x0d,
]

export function parseMarkdown(input: Uint8Array): Parsed {
  const out = new Output(input.length)
  const entities: Entity[] = []
  const size = input.length
  const at = (i: number): number => byteAt(input, i)
  for (let i = 0; i < size; i++) {
    const c = input[i]
    const next = at(i + 1)
    if (c === BACKSLASH && (next === UNDERSCORE || next === STAR || next === BACKTICK || next === OPEN)) {
      out.push(input[++i])
      continue
    }
    if (c !== UNDERSCORE && c !== STAR && c !== BACKTICK && c !== OPEN) {
      out.push(c)
      continue
    }
    const beginPos = i
    const endCharacter = c === OPEN ? CLOSE : c
    let isPre = false
    let language = ''
    i++
    if (c === BACKTICK && at(i) === BACKTICK && at(i + 1) === BACKTICK) {
      i += 2
      isPre = true
      let languageEnd = i
      while (!isSpace(at(languageEnd)) && at(languageEnd) !== BACKTICK) languageEnd++
      if (i !== languageEnd && languageEnd < size && at(languageEnd) !== BACKTICK) {
        language = Buffer.from(input.subarray(i, languageEnd)).toString('utf8')
        i = languageEnd
      }
      if (at(i) === LF || at(i) === CR) {
        i += (at(i + 1) === LF || at(i + 1) === CR) && at(i) !== at(i + 1) ? 2 : 1
      }
    }
    const entityOffset = out.utf16
    const entityStart = out.size
    while (i < size && (input[i] !== endCharacter || (isPre && !(at(i + 1) === BACKTICK && at(i + 2) === BACKTICK)))) {
      out.push(input[i++])
    }
    if (i >= size) throw new FormatError(`Can't find end of the entity starting at byte offset ${beginPos}`)
    if (entityOffset !== out.utf16) {
      const length = out.utf16 - entityOffset
      if (c === UNDERSCORE) entities.push({type: 'italic', offset: entityOffset, length})
      else if (c === STAR) entities.push({type: 'bold', offset: entityOffset, length})
      else if (c === OPEN) {
        let url: string
        if (at(i + 1) !== PAREN_OPEN) url = out.slice(entityStart)
        else {
          i += 2
          const urlStart = i
          while (i < size && input[i] !== PAREN_CLOSE) i++
          url = Buffer.from(input.subarray(urlStart, i)).toString('utf8')
        }
        const userId = linkUserId(url)
        if (userId !== undefined)
          entities.push({type: 'text_mention', offset: entityOffset, length, user: {id: userId}})
        else {
          const checked = checkedLink(url)
          if (checked) entities.push({type: 'text_link', offset: entityOffset, length, url: checked})
        }
      } else if (isPre) {
        entities.push({type: 'pre', offset: entityOffset, length, ...(language ? {language} : {})})
      } else entities.push({type: 'code', offset: entityOffset, length})
    }
    if (isPre) i += 2
  }
  return {text: out.text(), entities: sortEntities(entities)}
}
