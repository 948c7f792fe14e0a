/**
 * The control API's routes for the update kinds of Bot API 10.2-10.4 (docs/emulator.md, "The Bot API version"):
 *
 *   POST /_emulator/bots/{token}/widget_queries             {data, message_id?, chat_id?, user_id?}
 *   GET  /_emulator/bots/{token}/widget_queries/{query_id}  → {answered, data?}: what answerWidgetQuery gave
 *   POST /_emulator/bots/{token}/shared_widget_queries      {widget_id, data, user_id?}
 *   POST /_emulator/bots/{token}/subscriptions              {invoice_payload, state, user_id?}
 *   POST /_emulator/bots/{token}/stopped_generations        {draft_id, chat_id?, message_thread_id?}
 *   GET  /_emulator/bots/{token}/ephemeral_messages         → {messages}: the ephemeral messages still shown
 *
 * Each POST answers the queued Update.
 */
import {ControlError, type Ctx, type Route, int, only, str} from './route.js'
import {SUBSCRIPTION_STATES} from '../user/subscriptions.js'

const NAMES = ['first_name', 'username']

function postWidgetQuery({emu, bot, body}: Ctx): unknown {
  only(body, ['data', 'message_id', 'chat_id', 'user_id', ...NAMES])
  return emu.sendWidgetQuery(bot.token, {
    data: str(body, 'data', true)!,
    messageId: int(body, 'message_id', {min: 1}),
    chatId: int(body, 'chat_id', {nonZero: true}),
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
  })
}

function getWidgetQuery({emu, bot, path}: Ctx): unknown {
  const data = emu.widgetAnswer(bot.token, path.query_id ?? '')
  return data === undefined ? {answered: false} : {answered: true, data}
}

function postSharedWidgetQuery({emu, bot, body}: Ctx): unknown {
  only(body, ['widget_id', 'data', 'user_id', ...NAMES])
  return emu.sendSharedWidgetQuery(bot.token, {
    widgetId: str(body, 'widget_id', true)!,
    data: str(body, 'data', true)!,
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
  })
}

function postSubscription({emu, bot, body}: Ctx): unknown {
  only(body, ['invoice_payload', 'state', 'user_id', ...NAMES])
  const state = str(body, 'state', true)!
  if (!(SUBSCRIPTION_STATES as readonly string[]).includes(state))
    throw new ControlError(400, `state "${state}" must be one of ${SUBSCRIPTION_STATES.join(', ')}`)
  return emu.updateSubscription(bot.token, {
    invoicePayload: str(body, 'invoice_payload', true)!,
    state: state as (typeof SUBSCRIPTION_STATES)[number],
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
  })
}

function postStoppedGeneration({emu, bot, body}: Ctx): unknown {
  only(body, ['draft_id', 'chat_id', 'message_thread_id'])
  return emu.stopGeneration(bot.token, {
    draftId: int(body, 'draft_id', {required: true, nonZero: true})!,
    chatId: int(body, 'chat_id', {min: 1}),
    messageThreadId: int(body, 'message_thread_id', {min: 1}),
  })
}

export const BOT_API_10X_ROUTES: Record<string, Route> = {
  widget_queries: {method: 'POST', handler: postWidgetQuery},
  'widget_queries/:query_id': {method: 'GET', handler: getWidgetQuery},
  shared_widget_queries: {method: 'POST', handler: postSharedWidgetQuery},
  subscriptions: {method: 'POST', handler: postSubscription},
  stopped_generations: {method: 'POST', handler: postStoppedGeneration},
  ephemeral_messages: {method: 'GET', handler: ({emu, bot}) => ({messages: emu.ephemeralMessages(bot.token)})},
}
