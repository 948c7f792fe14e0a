/**
 * The control API's reads for Bot API 10.2-10.4 (docs/emulator.md, "The Bot API version"); the user actions of those
 * versions (widget_queries, shared_widget_queries, subscriptions, stopped_generations) are routes of the table
 * (../actions/):
 *
 *   GET  /_emulator/bots/{token}/widget_queries/{query_id}  → {answered, data?}: what answerWidgetQuery gave
 *   GET  /_emulator/bots/{token}/ephemeral_messages         → {messages}: the ephemeral messages still shown
 */
import type {Ctx, Route} from './route.js'

function getWidgetQuery({emu, bot, path}: Ctx): unknown {
  const data = emu.widgetAnswer(bot.token, path.query_id ?? '')
  return data === undefined ? {answered: false} : {answered: true, data}
}

export const BOT_API_10X_ROUTES: Record<string, Route> = {
  'widget_queries/:query_id': {method: 'GET', handler: getWidgetQuery},
  ephemeral_messages: {method: 'GET', handler: ({emu, bot}) => ({messages: emu.ephemeralMessages(bot.token)})},
}
