/**
 * answerCallbackQuery: a query can be answered once, and only while it is young: 150 s after it was made (the
 * server's lifetime of a callback_query, Client.cpp process_new_callback_query_queue; scaled by timeScale). Otherwise
 * `query is too old and response timeout expired or query ID is invalid`.
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {CALLBACK_QUERY_LIFETIME_MS, OpenQueries} from '../state/open-queries.js'

export const QUERY_INVALID = 'query is too old and response timeout expired or query ID is invalid'

export const answerCallbackQuery: Handler = (bot, params, core) => {
  const id = params.get('callback_query_id') ?? ''
  const open = bot.openCallbackQueries
  const lifetime = core.scale(CALLBACK_QUERY_LIFETIME_MS)
  const madeAt = open instanceof OpenQueries ? open.since(id) : undefined
  const expired = madeAt !== undefined && Date.now() - madeAt > lifetime
  const known = open.delete(id)
  if (open instanceof OpenQueries && open.size > 1000) open.prune(lifetime)
  if (!known || expired) throw badRequest(QUERY_INVALID)
  return {result: true}
}
