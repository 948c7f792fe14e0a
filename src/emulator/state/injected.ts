/**
 * What Bot API 10.2-10.5 make the emulator note about an update it queues (called by injectUpdate, whichever way the
 * update came: a user action, the control API, `bot trigger`): a callback query's origin (ephemeral replies name it
 * by callback_query_id alone, 10.4), the bot's callback_query_mode (10.5: `inline` always, `auto` for an
 * inaccessible message, sends `inline_message_id` instead of `message`), and widget queries to answer (10.4).
 */
import type {BotState} from './bot.js'
import type {TgObject} from '../types.js'
import {isObject} from '../telegram.js'

export function noteInjected(bot: BotState, body: TgObject): void {
  const query = body.callback_query
  if (isObject(query) && typeof query.id === 'string') {
    const message = isObject(query.message) ? query.message : undefined
    const chat = isObject(message?.chat) ? message.chat : undefined
    bot.ephemeral.noteCallbackQuery(query.id, {
      ...(isObject(query.from) && typeof query.from.id === 'number' ? {userId: query.from.id} : {}),
      ...(typeof chat?.id === 'number' ? {chatId: chat.id} : {}),
      ...(typeof message?.message_id === 'number' ? {messageId: message.message_id} : {}),
      ephemeral: message?.message_id === 0,
    })
    const inaccessible = message !== undefined && message.date === 0
    // A press on an ephemeral message keeps its `message` in every mode: TDLib's BotCallbackQueryMode* choose between
    // updateNewCallbackQuery and updateNewInlineCallbackQuery, and an ephemeral message's press is neither
    // (MTProto's own updateEphemeralBotCallbackQuery); an inline copy could not be edited as the ephemeral message.
    const ephemeral = message?.message_id === 0 && message.ephemeral_message_id !== undefined
    if (
      message &&
      !ephemeral &&
      (bot.callbackQueryMode === 'inline' || (bot.callbackQueryMode === 'auto' && inaccessible))
    ) {
      const id = bot.inline.newMessageId(bot.id)
      const {message_id: _m, from: _f, chat: _c, date: _d, reply_markup, edit_date: _e, ...content} = message
      bot.inline.addMessage({id, content, ...(isObject(reply_markup) ? {replyMarkup: reply_markup} : {})})
      // in the Bot API's order: id, from, inline_message_id, chat_instance, data…
      const {id: queryId, from, message: _message, chat_instance, ...rest} = query
      body.callback_query = {id: queryId, from, inline_message_id: id, chat_instance, ...rest}
    }
  }
  for (const kind of ['widget_query', 'shared_widget_query']) {
    const widgetQuery = body[kind]
    if (isObject(widgetQuery) && typeof widgetQuery.id === 'string') bot.widgets.addQuery(kind, widgetQuery)
  }
}
