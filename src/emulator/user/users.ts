/** Users as the emulator's user actions show them. */
import type {BotState} from '../state/bot.js'
import type {Chat, Message, User} from '../telegram.js'

/** A user as a User object, from what the bot knows of their private chat (else the defaults a user message has). */
export function userFor(bot: BotState, userId: number, options: {firstName?: string; username?: string} = {}): User {
  const chat = bot.findChat(String(userId))
  const firstName = options.firstName ?? (chat?.type === 'private' ? chat.first_name : undefined) ?? 'Test'
  const username = options.username ?? (chat?.type === 'private' ? chat.username : undefined) ?? 'tester'
  return {id: userId, is_bot: false, first_name: firstName, username}
}

/** A user's private chat with the bot as a Chat object (id, first name, username: what these actions show of it). */
export function privateChat(user: User): Chat {
  return {
    id: user.id,
    first_name: user.first_name,
    ...(user.username ? {username: user.username} : {}),
    type: 'private',
  }
}

/** A message from the user in their private chat with the bot, sent now, carrying `content` (its service field). */
export function privateMessage(bot: BotState, user: User, content: Record<string, unknown>): Message {
  return {
    message_id: bot.nextMessageId(user.id),
    from: user,
    chat: privateChat(user),
    date: Math.floor(Date.now() / 1000),
    ...content,
  }
}
