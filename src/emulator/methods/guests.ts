/**
 * answerGuestQuery (Bot API 10.0): the bot answers a guest_message once, with an InlineQueryResult read as the
 * server reads it (BA `process_answer_guest_query_query` 14235, `get_inline_query_result`); the answer is a
 * SentGuestMessage `{inline_message_id}` (DOC). An unknown or answered query: QUERY_ID_INVALID's text.
 */
import {randomBytes} from 'node:crypto'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {QUERY_INVALID} from './callbacks.js'
import {readInlineResult} from './boosts.js'

export const answerGuestQuery: Handler = (bot, params) => {
  readInlineResult(params)
  if (!bot.guestQueries.take(params.get('guest_query_id') ?? '')) throw badRequest(QUERY_INVALID)
  return {result: {inline_message_id: randomBytes(18).toString('base64url')}}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const GUEST_METHODS: Record<string, Handler> = {
  answerguestquery: answerGuestQuery,
}
