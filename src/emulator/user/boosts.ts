/**
 * What users do with boosts and Mini Apps: boost a channel or supergroup (`chat_boost`), take a boost back
 * (`removed_chat_boost`), send data from a Mini App opened by a keyboard button (`web_app_data`), open a Mini App
 * with a query the bot answers with answerWebAppQuery.
 */
import {randomBytes, randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import {groupChat} from '../state/member-updates.js'
import type {TgObject} from '../types.js'
import type {Chat, Message} from '../telegram.js'
import {privateMessage, userFor} from './users.js'

export interface BoostOptions {
  chatId: number
  /** The booster (default 1111). */
  userId?: number
  firstName?: string
  username?: string
  /** Unix time the boost expires (default: 30 days from now). */
  expirationDate?: number
}

const DAY = 86_400

/**
 * A user boosts a channel or supergroup: a `chat_boost` update `{chat, boost: {boost_id, add_date, expiration_date,
 * source: {source: "premium", user}}}` (BA `JsonChatBoostUpdated` 5374, `JsonChatBoost` 5357), sent to a bot that is
 * an administrator (DOC Update); in a supergroup also the `boost_added` service message. `{skipped}` when the bot gets
 * no update.
 */
export function boostChat(bot: BotState, options: BoostOptions): {updates: TgObject[]; skipped?: string} {
  const chat = groupChat(bot, options.chatId)
  if (chat.type !== 'channel' && chat.type !== 'supergroup')
    throw new Error(`chat ${options.chatId} is a ${String(chat.type)}: only channels and supergroups are boosted`)
  const user = userFor(bot, options.userId ?? 1111, options)
  const now = Math.floor(Date.now() / 1000)
  const boost = {
    boost_id: randomBytes(9).toString('base64url'),
    add_date: now,
    expiration_date: options.expirationDate ?? now + 30 * DAY,
    source: {source: 'premium', user},
  }
  bot.boosts.add({chatId: options.chatId, userId: user.id, boost})
  const updates: TgObject[] = []
  const admin = bot.members.botIsAdmin(chat, bot.from)
  if (admin) updates.push({chat_boost: {chat, boost}})
  if (chat.type === 'supergroup')
    updates.push({
      message: {
        message_id: bot.nextMessageId(options.chatId),
        from: user,
        chat,
        date: now,
        boost_added: {boost_count: 1},
      },
    })
  return admin ? {updates} : {updates, skipped: 'the bot is not an administrator of the chat, so it gets no chat_boost'}
}

/** A boost is taken back (or expires): `removed_chat_boost` `{chat, boost_id, remove_date, source}` (BA 5389). */
export function removeBoost(
  bot: BotState,
  options: {chatId: number; boostId: string},
): {removed_chat_boost: {chat: Chat; boost_id: string; remove_date: number; source: unknown}} | undefined {
  const boost = bot.boosts.remove(options.chatId, options.boostId)
  if (!boost) throw new Error(`there is no boost "${options.boostId}" of chat ${options.chatId}`)
  const chat = groupChat(bot, options.chatId)
  if (!bot.members.botIsAdmin(chat, bot.from)) return undefined
  return {
    removed_chat_boost: {
      chat,
      boost_id: options.boostId,
      remove_date: Math.floor(Date.now() / 1000),
      source: boost.boost.source,
    },
  }
}

/**
 * A Mini App opened from a reply-keyboard `web_app` button sends data (Telegram.WebApp.sendData): a service
 * message `web_app_data: {data, button_text}` from the user in their private chat (BA `JsonWebAppData` 3321).
 */
export function webAppData(
  bot: BotState,
  options: {userId?: number; data: string; buttonText: string; firstName?: string; username?: string},
): {message: Message} {
  if (typeof options.data !== 'string' || options.data === '') throw new Error('data must be a non-empty string')
  // Telegram.WebApp.sendData takes "up to 4096 bytes" (Mini Apps docs)
  if (Buffer.byteLength(options.data, 'utf8') > 4096) throw new Error('data is over 4096 bytes: sendData refuses it')
  const user = userFor(bot, options.userId ?? 1111, options)
  return {
    message: privateMessage(bot, user, {web_app_data: {data: options.data, button_text: options.buttonText}}),
  }
}

/** A Mini App is opened with a query (an inline button, the menu): its query_id, for answerWebAppQuery. */
export function openWebApp(bot: BotState, options: {userId?: number; chatId?: number}): string {
  const userId = options.userId ?? 1111
  const id = `AAH${randomBytes(12).toString('base64url')}${randomInt(10, 99)}`
  bot.webAppQueries.add(id, {userId, chatId: options.chatId ?? userId})
  return id
}
