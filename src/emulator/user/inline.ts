/**
 * Inline mode from the user's side (core.telegram.org/bots/inline; Client.cpp JsonInlineQuery): an inline query (keys
 * in BA's order: id, from, chat_type?, query, offset), and the chosen_inline_result when the user picks one of the
 * answer's results (from, inline_message_id when the result has a keyboard, query, result_id); the inline message it
 * makes is kept for edits.
 */
import {randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import type {TgObject} from '../types.js'
import {isObject} from '../telegram.js'
import type {InlineQuery} from '../state/inline.js'
import {userOf} from './actions.js'

export interface InlineQueryOptions {
  query: string
  userId?: number
  offset?: string
  /** sender, private, group, supergroup or channel: the chat the query was typed in. */
  chatType?: string
  firstName?: string
  lastName?: string
  username?: string
  languageCode?: string
}

const CHAT_TYPES = new Set(['sender', 'private', 'group', 'supergroup', 'channel'])

export function inlineQuery(bot: BotState, options: InlineQueryOptions): InlineQuery {
  if (bot.user.supports_inline_queries !== true)
    throw new Error(
      'the bot does not support inline queries (Telegram sends none until /setinline): create it with supportsInlineQueries: true, or start the emulator with that option',
    )
  if (typeof options.query !== 'string') throw new Error('query must be a string (it may be empty)')
  if ([...options.query].length > 256) throw new Error('query is over 256 characters, the most Telegram sends')
  if (options.chatType !== undefined && !CHAT_TYPES.has(options.chatType))
    throw new Error(`chat_type must be one of ${[...CHAT_TYPES].join(', ')}`)
  const from = userOf(bot, options)
  const id = String(randomInt(1, 2 ** 47)) + String(randomInt(100000, 999999))
  const query: InlineQuery = {
    id,
    from,
    ...(options.chatType ? {chat_type: options.chatType} : {}),
    query: options.query,
    offset: options.offset ?? '',
  }
  bot.inline.addQuery(query)
  return query
}

/** The user picks result `resultId` of the bot's answer to query `queryId`. */
export function chooseResult(bot: BotState, queryId: string, resultId: string): TgObject {
  const state = bot.inline.queries.get(queryId)
  if (!state) throw new Error(`there is no inline query ${queryId} of this bot`)
  const answer = state.answer
  if (!answer) throw new Error(`the bot has not answered inline query ${queryId}: there is nothing to choose`)
  const result = answer.results.find((r) => String(r.id) === resultId)
  if (!result) {
    const ids = answer.results.map((r) => String(r.id))
    throw new Error(`the answer has no result "${resultId}"; its results: ${ids.join(', ') || '(none)'}`)
  }
  let inlineMessageId: string | undefined
  if (isObject(result.reply_markup)) {
    inlineMessageId = bot.inline.newMessageId(bot.id)
    bot.inline.addMessage({
      id: inlineMessageId,
      content: contentOf(result),
      replyMarkup: result.reply_markup,
    })
  }
  const query = state.query
  return {
    from: query.from,
    ...(inlineMessageId ? {inline_message_id: inlineMessageId} : {}),
    query: query.query,
    result_id: resultId,
  }
}

/** What the sent message holds: the input_message_content (or legacy message_text), else the result's media. */
function contentOf(result: TgObject): TgObject {
  const content = isObject(result.input_message_content) ? result.input_message_content : {}
  if (typeof content.message_text === 'string') return {text: content.message_text}
  if (typeof result.message_text === 'string') return {text: result.message_text}
  if (content.latitude !== undefined)
    return {
      location: {latitude: Number(content.latitude), longitude: Number(content.longitude)},
      live_period: content.live_period,
    }
  if (result.type === 'location')
    return {
      location: {latitude: Number(result.latitude), longitude: Number(result.longitude)},
      live_period: result.live_period,
    }
  return {media: String(result.type), ...(typeof result.caption === 'string' ? {caption: result.caption} : {})}
}
