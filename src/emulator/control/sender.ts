/**
 * Who writes and where, as `POST /_emulator/bots/{token}/messages` reads it for a text and for a media message alike:
 * the user and their profile fields, the chat (the user's private chat unless `chat_id`), the date and the message
 * replied to, which must exist in that chat.
 */
import type {BotState} from '../state/bot.js'
import type {UserMessageOptions} from '../types.js'
import {ControlError, int, str} from './route.js'

/** The body's fields that say who writes and where (the rest of the message's fields are the caller's). */
export const SENDER_FIELDS = [
  'chat_id',
  'user_id',
  'first_name',
  'last_name',
  'username',
  'language_code',
  'chat_title',
  'date',
  'reply_to_message_id',
]

export type Sender = Omit<UserMessageOptions, 'text'> & {chatId: number}

export function readSender(bot: BotState, body: Record<string, unknown>): Sender {
  const replyTo = int(body, 'reply_to_message_id', {min: 1})
  const userId = int(body, 'user_id', {min: 1})
  const chatId = int(body, 'chat_id', {nonZero: true}) ?? userId ?? 1111
  if (replyTo !== undefined && !bot.message(chatId, replyTo)) {
    throw new ControlError(400, `reply_to_message_id ${replyTo}: there is no message ${replyTo} in chat ${chatId}`)
  }
  return {
    chatId,
    userId,
    firstName: str(body, 'first_name'),
    lastName: str(body, 'last_name'),
    username: str(body, 'username'),
    languageCode: str(body, 'language_code'),
    chatTitle: str(body, 'chat_title'),
    date: int(body, 'date', {min: 0}),
    replyToMessageId: replyTo,
  }
}
