/** Widgets (Bot API 10.4): a user's widget asks the bot, or a forwarded shared widget does (../user/widgets.ts). */
import type {Update} from '../types.js'
import {
  type SharedWidgetQueryOptions,
  type WidgetQueryOptions,
  sharedWidgetQuery as sharedQuery,
  widgetQuery as query,
} from '../user/widgets.js'
import {defineAction} from './action.js'
import {int, text, who} from './fields.js'

const data = text('what the widget sends (1-64 bytes)', {required: true})

export const widgetQuery = defineAction({
  name: 'widget_query',
  description: "the user's widget in a bot message asks the bot: a widget_query, answered with answerWidgetQuery",
  params: {
    data,
    message_id: int("the bot's message with the widget (default: its newest widget message in the chat)", {min: 1}),
    chat_id: int("the message's chat (default: the user's private chat)", {nonZero: true}),
    ...who,
  },
  result: '{update_id, widget_query}',
  route: 'widget_queries',
  read: (f): WidgetQueryOptions => ({
    data: f.data,
    messageId: f.message_id,
    chatId: f.chat_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: WidgetQueryOptions): Update => inject(query(bot, options)),
  json: (update) => update,
})

export const sharedWidgetQuery = defineAction({
  name: 'shared_widget_query',
  description: 'a forwarded shared widget asks the bot: a shared_widget_query',
  params: {
    widget_id: text("the shared widget's id (Widget.id of a widget sent with is_shared)", {required: true}),
    data,
    ...who,
  },
  result: '{update_id, shared_widget_query}',
  route: 'shared_widget_queries',
  read: (f): SharedWidgetQueryOptions => ({
    widgetId: f.widget_id,
    data: f.data,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: SharedWidgetQueryOptions): Update => inject(sharedQuery(bot, options)),
  json: (update) => update,
})
