/**
 * A user reacts to a message (core.telegram.org/bots/api#messagereactionupdated): in a chat whose reactions carry their
 * author (private chats, groups, supergroups) a `message_reaction` update `{chat, message_id, user, date, old_reaction,
 * new_reaction}` (BA `JsonMessageReactionUpdated` 5439); in a channel, where reactions are anonymous, a
 * `message_reaction_count` update `{chat, message_id, date, reactions}` with the totals (BA 5461). Both need the bot to
 * be an administrator of a group or channel, and are off unless the bot's allowed_updates ask for them (DOC Update).
 */
import type {BotState} from '../state/bot.js'
import {REACTION_EMOJIS} from '../methods/reaction-types.js'
import type {TgObject} from '../types.js'
import {isObject} from '../telegram.js'
import {userFor} from './users.js'

export interface ReactionOptions {
  chatId: number
  messageId: number
  /** Who reacts (default: the user of a private chat, else 1111). */
  userId?: number
  firstName?: string
  username?: string
  /** The new reactions: ReactionType objects, or emoji as shorthand (`['👍']`); `[]` removes the user's reactions. */
  reaction: Array<TgObject | string>
}

/** A reaction type as a user gives it (core.telegram.org/bots/api#reactiontype), the emoji one of Telegram's list. */
export type ReactionType =
  | {type: 'emoji'; emoji: string}
  | {type: 'custom_emoji'; custom_emoji_id: string}
  | {type: 'paid'}

/** The reaction list a user gives, checked: an emoji of Telegram's list, a custom emoji id, or a paid reaction. */
export function userReactionTypes(reaction: unknown): ReactionType[] {
  if (!Array.isArray(reaction)) throw new Error('reaction must be an array of ReactionType (or emoji strings)')
  return reaction.map((item: unknown): ReactionType => {
    const given = typeof item === 'string' ? {type: 'emoji', emoji: item} : item
    if (!given || typeof given !== 'object') throw new Error(`reaction ${JSON.stringify(item)} must be a ReactionType`)
    // a list has none of the fields: it is "none of emoji, custom_emoji, paid" below
    const type: Record<string, unknown> = isObject(given) ? given : {}
    if (type.type === 'emoji') {
      if (typeof type.emoji !== 'string' || !REACTION_EMOJIS.has(type.emoji))
        throw new Error(
          `${JSON.stringify(type.emoji)} is not one of the reaction emoji Telegram allows (DOC ReactionTypeEmoji)`,
        )
      return {type: 'emoji', emoji: type.emoji}
    }
    if (type.type === 'custom_emoji') {
      if (typeof type.custom_emoji_id !== 'string' || !/^\d+$/.test(type.custom_emoji_id))
        throw new Error('a custom_emoji reaction needs custom_emoji_id (a string of digits)')
      return {type: 'custom_emoji', custom_emoji_id: type.custom_emoji_id}
    }
    if (type.type === 'paid') return {type: 'paid'}
    throw new Error(`reaction type ${JSON.stringify(type.type)} is none of emoji, custom_emoji, paid`)
  })
}

/**
 * The update a reaction makes, or why there is none: `{update}` to queue, or `{skipped}` when Telegram would send
 * nothing (the bot is no administrator of the group or channel). Throws when the message does not exist.
 */
export function reactionUpdate(bot: BotState, options: ReactionOptions): {update: TgObject} | {skipped: string} {
  const {chatId, messageId} = options
  const message = bot.message(chatId, messageId)
  if (!message) throw new Error(`there is no message ${messageId} in chat ${chatId}`)
  const chat = message.chat
  const types = userReactionTypes(options.reaction)
  const userId = options.userId ?? (chatId > 0 ? chatId : 1111)
  if (!Number.isSafeInteger(userId) || userId <= 0) throw new Error(`user ${userId} must be a positive integer`)
  const user = userFor(bot, userId, options)
  const old = bot.members.react(chatId, messageId, userId, types)
  const date = Math.floor(Date.now() / 1000)
  if (chat.type !== 'private' && !bot.members.botIsAdmin(chat, bot.from))
    return {skipped: 'the bot is not an administrator of the chat, so Telegram sends it no reaction updates'}
  if (chat.type === 'channel')
    return {
      update: {
        message_reaction_count: {
          chat,
          message_id: messageId,
          date,
          reactions: bot.members.reactionCounts(chatId, messageId),
        },
      },
    }
  return {update: {message_reaction: {chat, message_id: messageId, user, date, old_reaction: old, new_reaction: types}}}
}
