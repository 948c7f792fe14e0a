/**
 * Inline mode over the control API:
 *
 *   POST /_emulator/bots/{token}/inline_queries               {query, user_id?, offset?, chat_type?, first_name?…} → {update_id, inline_query}
 *   GET  /_emulator/bots/{token}/inline_queries/{id}          → {inline_query, answer}: the bot's answer, or null
 *   POST /_emulator/bots/{token}/inline_queries/{id}/choose   {result_id} → {update_id, chosen_inline_result}
 */
import {chooseResult} from '../user/inline.js'
import {ControlError, type Ctx, int, only, type Route, str} from './route.js'

function postQuery({emu, bot, body}: Ctx): unknown {
  only(body, ['query', 'user_id', 'offset', 'chat_type', 'first_name', 'last_name', 'username', 'language_code'])
  if (typeof body.query !== 'string') throw new ControlError(400, 'query is required (a string; it may be empty)')
  const options = {
    query: body.query,
    userId: int(body, 'user_id', {min: 1}),
    ...(typeof body.offset === 'string' ? {offset: body.offset} : {}),
    chatType: str(body, 'chat_type'),
    firstName: str(body, 'first_name'),
    lastName: str(body, 'last_name'),
    username: str(body, 'username'),
    languageCode: str(body, 'language_code'),
  }
  const update = emu.sendInlineQuery(bot.token, options)
  return {update_id: update.update_id, inline_query: update.inline_query}
}

function getQuery({bot, path}: Ctx): unknown {
  const state = bot.inline.queries.get(path.id ?? '')
  if (!state) throw new ControlError(404, `there is no inline query ${path.id ?? ''} of this bot`)
  return {inline_query: state.query, answer: state.answer ?? null}
}

function postChoose({emu, bot, body, path}: Ctx): unknown {
  only(body, ['result_id'])
  const resultId = str(body, 'result_id', true)!
  const queryId = path.id ?? ''
  if (!bot.inline.queries.get(queryId)) throw new ControlError(404, `there is no inline query ${queryId} of this bot`)
  const update = emu.injectUpdate(bot.token, {chosen_inline_result: chooseResult(bot, queryId, resultId)})
  return {update_id: update.update_id, chosen_inline_result: update.chosen_inline_result}
}

export const INLINE_ROUTES: Record<string, Route> = {
  inline_queries: {method: 'POST', handler: postQuery},
  'inline_queries/:id': {method: 'GET', handler: getQuery},
  'inline_queries/:id/choose': {method: 'POST', handler: postChoose},
}
