/**
 * A message text or caption as the server builds it from `text`/`caption`, `parse_mode` and `entities`
 * (Client.cpp get_formatted_text; td/telegram/MessageEntity.cpp): the text without markup, its entities (UTF-16), and
 * every error with the server's words.
 */
import {ApiError, badRequest} from '../errors.js'
import {type Entity, FormatError, type MentionedUser, type Parsed} from './entity.js'
import {EntityError, checkExplicitEntities, readExplicitEntities} from './explicit.js'
import {TooLong, finish} from './fix.js'
import {parseHtml} from './html.js'
import {parseMarkdown} from './markdown.js'
import {parseMarkdownV2} from './markdown-v2.js'

export type {Entity} from './entity.js'
export {detectEntities} from './detect.js'

const PARSERS: Record<string, (input: Uint8Array) => Parsed> = {
  markdown: parseMarkdown,
  markdownv2: parseMarkdownV2,
  html: parseHtml,
}

/**
 * Limits checked after parsing, in code points (core.telegram.org/bots/api#sendmessage: 1-4096 characters after
 * entities parsing).
 */
export const TEXT_LIMIT = 4096
export const CAPTION_LIMIT = 1024
/** Raw size limit before parsing, in bytes (Client.cpp get_formatted_text). */
export const RAW_LIMIT = 32768

export interface FormatInput {
  /** The raw `text` or `caption`. */
  raw: string
  parseMode?: string
  /** The raw `entities` / `caption_entities` parameter. */
  entities?: string
  kind: 'text' | 'caption'
  /** The user of a text_mention (tg://user?id=N), as the bot may know it. */
  user?: (id: number) => MentionedUser
}

/** td's message text: `Bad Request: ` and the first letter lower-cased (unless the second is upper-case). */
const tdError = (message: string): ApiError =>
  badRequest(/^.[A-Z_]/.test(message) ? message : message[0].toLowerCase() + message.slice(1))

/**
 * The formatted text, in the server's two stages. Calling formatText runs what the Bot API server checks at once
 * (size in bytes, parse_mode, the parser, the shape of explicit entities); the function it returns runs what td
 * checks later, after the chat was found (entity bounds, trimming, empty text, length in code points). Both throw
 * ApiError 400 with the server's description. An empty raw text is the caller's to reject (`message text is empty`);
 * an empty caption stays empty.
 */
export function formatText(input: FormatInput): () => {text: string; entities: Entity[]} {
  const {raw, kind} = input
  if (raw === '') return () => ({text: '', entities: []})
  if (raw.length * 3 > RAW_LIMIT && Buffer.byteLength(raw) > RAW_LIMIT) throw badRequest('text is too long')
  const mode = (input.parseMode ?? '').toLowerCase()
  let parsed: Parsed | undefined
  if (mode !== '' && mode !== 'none') {
    const parser = PARSERS[mode]
    if (!parser) throw badRequest('unsupported parse_mode')
    try {
      parsed = parser(Buffer.from(raw, 'utf8'))
    } catch (err) {
      if (err instanceof FormatError) throw badRequest(`can't parse entities: ${err.message}`)
      throw err
    }
  }
  let explicit: ReturnType<typeof readExplicitEntities> | undefined
  if (!parsed) {
    try {
      explicit = readExplicitEntities(input.entities)
    } catch (err) {
      if (err instanceof EntityError) throw badRequest(`can't parse MessageEntity: ${err.message}`)
      throw err
    }
  }
  return () => {
    let result: {text: string; entities: Entity[]}
    try {
      const source = parsed ?? {text: raw, entities: checkExplicitEntities(explicit!, raw)}
      result = finish(source.text, source.entities, {
        allowEmpty: kind === 'caption',
        limit: kind === 'caption' ? CAPTION_LIMIT : TEXT_LIMIT,
      })
    } catch (err) {
      if (err instanceof TooLong)
        throw badRequest(kind === 'caption' ? 'message caption is too long' : 'message is too long')
      if (err instanceof FormatError) throw tdError(err.message)
      throw err
    }
    if (input.user) {
      for (const e of result.entities) if (e.type === 'text_mention') e.user = input.user(e.user!.id)
    }
    return result
  }
}

/** Entities in the Bot API's field order: offset, length, type, then the type's own fields. */
export function entitiesJson(entities: Entity[]): Array<Record<string, unknown>> {
  return entities.map(({offset, length, type, ...rest}) => ({offset, length, type, ...rest}))
}

export {ApiError}
