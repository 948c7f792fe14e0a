/**
 * Inline mode over the control API. The user's query and choice are actions of the table (../actions/inline.ts,
 * served by actions.ts):
 *
 *   POST /_emulator/bots/{token}/inline_queries               {query, user_id?, offset?, chat_type?, first_name?…} → {update_id, inline_query}
 *   POST /_emulator/bots/{token}/inline_queries/{id}/choose   {result_id} → {update_id, chosen_inline_result}
 *
 * and here the bot's answer:
 *
 *   GET  /_emulator/bots/{token}/inline_queries/{id}          → {inline_query, answer}: the bot's answer, or null
 */
import {ControlError, type Ctx, type Route} from './route.js'

function getQuery({bot, path}: Ctx): unknown {
  const state = bot.inline.queries.get(path.id ?? '')
  if (!state) throw new ControlError(404, `there is no inline query ${path.id ?? ''} of this bot`)
  return {inline_query: state.query, answer: state.answer ?? null}
}

export const INLINE_ROUTES: Record<string, Route> = {
  'inline_queries/:id': {method: 'GET', handler: getQuery},
}
