/**
 * Boosts and Mini Apps from the bot's side: getUserChatBoosts (a user's active boosts of a chat) and
 * answerWebAppQuery (the message a Mini App sends on the user's behalf; SentWebAppMessage).
 */
import {randomBytes} from 'node:crypto'
import type {Handler} from './core.js'
import {badRequest, errorText} from '../errors.js'
import {userIdParam} from './args.js'
import {QUERY_INVALID} from './callbacks.js'
import {chatOf} from './message-params.js'
import type {TgObject} from '../types.js'
import type {Params} from '../http/params.js'
import {parseJsonBounded} from '../json.js'
import {isObject} from '../telegram.js'

export const getUserChatBoosts: Handler = (bot, params) => {
  const userId = userIdParam(params)
  const chat = chatOf(bot, params)
  return {result: {boosts: bot.boosts.ofUser(chat.id, userId)}}
}

/**
 * answerWebAppQuery(web_app_query_id, result): the result is read as the server reads it (BA
 * `get_inline_query_result` 10287-10301); the query answered once. The message goes to the chat the Mini App was
 * opened from, on the user's behalf "via" the bot; when that chat is the bot's private chat with the user, the bot
 * receives it. `inline_message_id` only when the result has an inline keyboard (DOC SentWebAppMessage).
 */
export const answerWebAppQuery: Handler = (bot, params, core) => {
  const r = readInlineResult(params)
  const query = bot.webAppQueries.take(params.get('web_app_query_id') ?? '')
  if (!query) throw badRequest(QUERY_INVALID)
  const content = isObject(r.input_message_content) ? r.input_message_content : {}
  const text =
    typeof content.message_text === 'string' ? content.message_text : typeof r.title === 'string' ? r.title : ''
  if (query.chatId === query.userId) {
    const chat = bot.findChat(String(query.userId)) ?? {id: query.userId, type: 'private'}
    core.inject(bot, {
      message: {
        message_id: bot.nextMessageId(query.userId),
        from: {id: query.userId, is_bot: false, first_name: chat.first_name ?? 'Test'},
        chat,
        date: Math.floor(Date.now() / 1000),
        via_bot: bot.from,
        ...(text !== '' ? {text} : {}),
      },
    })
  }
  return {result: r.reply_markup ? {inline_message_id: randomBytes(18).toString('base64url')} : {}}
}

/** The `result` of answerWebAppQuery and answerGuestQuery (BA `get_inline_query_result` 10287-10310). */
export function readInlineResult(params: Params): TgObject {
  const raw = params.get('result') ?? ''
  if (raw === '') throw badRequest("result isn't specified")
  let result: unknown
  try {
    result = parseJsonBounded(raw)
  } catch (err) {
    throw badRequest(`can't parse JSON encoded web view query results ${errorText(err)}`)
  }
  if (!isObject(result)) throw badRequest('inline query result must be an object')
  return result
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const BOOST_METHODS: Record<string, Handler> = {
  getuserchatboosts: getUserChatBoosts,
  answerwebappquery: answerWebAppQuery,
}
