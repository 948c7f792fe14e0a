/**
 * Guest mode (Bot API 10.0): a user summons the bot in a chat it is not in (a mention in a group or in a private
 * chat between users). The bot gets a `guest_message`, a Message with `guest_query_id` (BA `JsonMessage` 4204;
 * webhook queue per chat, BA 18050), and answers it with answerGuestQuery. The chat is not the bot's: it gives the
 * bot no chat to write to, and its message ids are its own.
 */
import type {BotState} from '../state/bot.js'
import {randomInt} from 'node:crypto'
import {userMessageEntities} from '../state/updates.js'
import type {Chat, Message} from '../telegram.js'
import {userFor} from './users.js'

export interface GuestOptions {
  /** The chat the bot is summoned to: a group (negative id) or a private chat between users (the other user's id). */
  chatId: number
  /** Who summons it (default 1111). */
  userId?: number
  text: string
  firstName?: string
  username?: string
  /** The group's title (default 'Test Group'). */
  title?: string
}

export function guestMessage(bot: BotState, options: GuestOptions): {guest_message: Message} {
  if (bot.user.supports_guest_queries !== true)
    throw new Error('the bot has no guest mode: create it with createBot({supportsGuestQueries: true})')
  if (typeof options.text !== 'string' || options.text === '') throw new Error('text must be a non-empty string')
  const user = userFor(bot, options.userId ?? 1111, options)
  const chat: Chat =
    options.chatId < 0
      ? {
          id: options.chatId,
          title: options.title ?? 'Test Group',
          type: options.chatId < -1e12 ? 'supergroup' : 'group',
        }
      : {id: options.chatId, first_name: 'Friend', type: 'private'}
  const queryId = String(randomInt(1, 2 ** 47)) + String(randomInt(100, 999))
  bot.guestQueries.add(queryId, {userId: user.id, chatId: options.chatId})
  const entities = userMessageEntities(options.text)
  return {
    guest_message: {
      message_id: bot.guestQueries.nextMessageId(options.chatId),
      from: user,
      chat,
      date: Math.floor(Date.now() / 1000),
      guest_query_id: queryId,
      text: options.text,
      ...(entities.length > 0 ? {entities} : {}),
    },
  }
}
