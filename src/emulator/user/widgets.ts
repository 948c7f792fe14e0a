/**
 * A user's widget asks the bot (Bot API 10.4): a `widget_query` from a widget in a message the bot sent (or sent via
 * the bot), or a `shared_widget_query` from a forwarded message with a shared widget. The bot answers it with
 * answerWidgetQuery within 15 seconds (what it answered: emu.widgetAnswer). `data` is 1-64 bytes (WidgetQuery.data).
 */
import {randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import type {TgObject} from '../types.js'
import {type Message, isObject} from '../telegram.js'
import {userOf} from './actions.js'

export interface WidgetQueryOptions {
  /** What the widget sends (1-64 bytes). */
  data: string
  /** The bot's message with the widget (default: its newest widget message in the chat). */
  messageId?: number
  /** The chat of the message (default: the user's private chat). */
  chatId?: number
  /** Who taps (default 1111). */
  userId?: number
  firstName?: string
  username?: string
}

export interface SharedWidgetQueryOptions {
  /** The shared widget's id (Widget.id of a widget sent with is_shared). */
  widgetId: string
  data: string
  userId?: number
  firstName?: string
  username?: string
}

const queryId = (): string => String(randomInt(1, 2 ** 47)) + String(randomInt(100, 999))

function checkData(data: unknown): string {
  if (typeof data !== 'string' || data === '' || Buffer.byteLength(data) > 64)
    throw new Error('data must be a string of 1-64 bytes (WidgetQuery.data)')
  return data
}

/** The bot's newest live message with a widget in a chat. */
function newestWidgetMessage(bot: BotState, chatId: number): Message | undefined {
  let found: Message | undefined
  for (const stored of bot.messages.inChat(chatId))
    if (stored.byBot && !stored.deleted && stored.message.widget) found = stored.message
  return found
}

/** The `widget_query` update body (without update_id). */
export function widgetQuery(bot: BotState, options: WidgetQueryOptions): TgObject {
  const data = checkData(options.data)
  const from = userOf(bot, options)
  const chatId = options.chatId ?? from.id
  const message =
    options.messageId !== undefined ? bot.message(chatId, options.messageId) : newestWidgetMessage(bot, chatId)
  if (!message?.widget)
    throw new Error(
      options.messageId !== undefined
        ? `message ${options.messageId} in chat ${chatId} is not the bot's message with a widget`
        : `the bot has sent no widget in chat ${chatId}`,
    )
  const widget = message.widget
  return {
    widget_query: {
      id: queryId(),
      from,
      chat_instance: bot.users.chatInstance(chatId),
      type: {type: 'data'},
      data,
      chat: message.chat,
      message_id: message.message_id,
      ...(isObject(widget) && typeof widget.id === 'string' ? {widget_id: widget.id} : {}),
    },
  }
}

/** The `shared_widget_query` update body (without update_id). */
export function sharedWidgetQuery(bot: BotState, options: SharedWidgetQueryOptions): TgObject {
  const data = checkData(options.data)
  if (!bot.widgets.shared.has(options.widgetId))
    throw new Error(`the bot has no shared widget ${options.widgetId}: send one with sendWidget(is_shared)`)
  const from = userOf(bot, options)
  return {shared_widget_query: {id: queryId(), from, type: {type: 'data'}, data, widget_id: options.widgetId}}
}
