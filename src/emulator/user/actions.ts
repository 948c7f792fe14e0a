/**
 * What a user does, as Telegram delivers it: a text message, a press on an inline button, blocking the bot; and a
 * group upgraded to a supergroup.
 */
import {randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import type {CallbackQueryOptions, TgObject, UserMessageOptions} from '../types.js'
import {
  type CallbackQuery,
  type Chat,
  type ChatMember,
  type Message,
  type User,
  isMessage,
  isObject,
} from '../telegram.js'
import {commandEntities} from '../state/updates.js'
import {supergroupIdFor} from '../state/faults.js'

/** A text message from a user in a private chat (or a group when chatId < 0); `/commands` get bot_command entities. */
export function userMessage(bot: BotState, options: UserMessageOptions): Message {
  const from = userOf(bot, options)
  const chatId = options.chatId ?? from.id
  // A group the bot knows already (a supergroup, a forum) keeps its type and title unless the caller names another.
  const known = chatId < 0 ? bot.chats.get(String(chatId)) : undefined
  const chat: Chat =
    chatId < 0
      ? known && typeof known.type === 'string' && known.type !== 'private'
        ? {
            id: chatId,
            title: options.chatTitle ?? known.title ?? 'Test Group',
            ...(typeof known.username === 'string' ? {username: known.username} : {}),
            type: known.type,
            ...(known.is_forum ? {is_forum: true} : {}),
          }
        : {id: chatId, title: options.chatTitle ?? 'Test Group', type: 'group'}
      : {
          id: chatId,
          first_name: from.first_name,
          ...(from.last_name ? {last_name: from.last_name} : {}),
          ...(from.username ? {username: from.username} : {}),
          type: 'private',
        }
  const entities = commandEntities(options.text)
  const replied = options.replyToMessageId !== undefined ? bot.message(chatId, options.replyToMessageId) : undefined
  const thread = options.messageThreadId
  // A post in a channel is the channel's (an administrator writes it): sender_chat, no from (the bot gets it as
  // channel_post, core.telegram.org/bots/api#update).
  const sender = chat.type === 'channel' ? {sender_chat: chat} : {from}
  return {
    message_id: bot.nextMessageId(chatId),
    ...(thread !== undefined && chat.is_forum ? {message_thread_id: thread, is_topic_message: true} : {}),
    ...sender,
    chat,
    date: options.date ?? Math.floor(Date.now() / 1000),
    ...(replied ? {reply_to_message: replied} : {}),
    text: options.text,
    ...(entities.length > 0 ? {entities} : {}),
  }
}

/** A callback_query on the bot's message `messageId` (default: the bot's latest message in the chat). */
export function callbackQuery(bot: BotState, options: CallbackQueryOptions): CallbackQuery {
  const from = userOf(bot, options)
  const chatId = options.chatId ?? from.id
  if (options.ephemeralMessageId !== undefined) {
    // only the receiver sees an ephemeral message, so only they press its buttons
    const entry = bot.ephemeral.get(chatId, from.id, options.ephemeralMessageId)
    if (!entry || !isMessage(entry.message))
      throw new Error(
        `user ${String(from.id)} has no ephemeral message ${options.ephemeralMessageId} in chat ${chatId}`,
      )
    return {
      id: callbackQueryId(),
      from,
      message: entry.message,
      chat_instance: bot.users.chatInstance(chatId),
      ...(options.gameShortName !== undefined ? {game_short_name: options.gameShortName} : {data: options.data}),
    }
  }
  const messageId = options.messageId ?? latestBotMessageId(bot, chatId)
  const message = messageId !== undefined ? bot.message(chatId, messageId) : undefined
  // Telegram sends a press only for a button that exists: a message id given must be the bot's message in that chat.
  if (options.messageId !== undefined && !message)
    throw new Error(`there is no message ${options.messageId} in chat ${chatId}`)
  // one chat_instance per chat, as Telegram keeps it (users.ts)
  return {
    id: callbackQueryId(),
    from,
    ...(message ? {message} : {}),
    chat_instance: bot.users.chatInstance(chatId),
    ...(options.gameShortName !== undefined ? {game_short_name: options.gameShortName} : {data: options.data}),
  }
}

/** A callback query's id: digits, as Telegram's (a 64-bit number). */
function callbackQueryId(): string {
  return String(randomInt(1, 2 ** 47)) + String(randomInt(10, 99))
}

/**
 * The user behind an action: their profile (one per user id, users.ts), updated with what the caller says about
 * them. A user never described is "Test" (@tester).
 */
export function userOf(
  bot: BotState,
  options: {userId?: number; firstName?: string; lastName?: string; username?: string; languageCode?: string},
): User {
  return bot.users.update(options.userId ?? 1111, {
    firstName: options.firstName,
    lastName: options.lastName,
    username: options.username,
    languageCode: options.languageCode,
  })
}

function latestBotMessageId(bot: BotState, chatId: number): number | undefined {
  for (let i = bot.calls.length - 1; i >= 0; i--) {
    const result = bot.calls[i].result
    if (isMessage(result) && result.chat.id === chatId && bot.message(chatId, result.message_id)) {
      return result.message_id
    }
  }
  return undefined
}

/**
 * Block (or unblock) the bot in the private chat `chatId`, and the `my_chat_member` update Telegram sends then: the
 * user, the chat, and the bot's membership going from `member` to `kicked` (until_date 0), or back.
 */
export function setBlocked(
  bot: BotState,
  chatId: number,
  blocked: boolean,
): {
  my_chat_member: {chat: Chat; from: User; date: number; old_chat_member: ChatMember; new_chat_member: ChatMember}
} {
  const what = blocked ? 'blockBot' : 'unblockBot'
  if (!Number.isSafeInteger(chatId) || chatId <= 0)
    throw new Error(`${what}: chat ${String(chatId)} must be a private chat (the user's id, a positive integer)`)
  if (blocked) bot.faults.blocked.add(String(chatId))
  else bot.faults.blocked.delete(String(chatId))
  const known = bot.findChat(String(chatId))
  const user: User = bot.users.known(chatId) ?? {
    id: chatId,
    is_bot: false,
    first_name: known?.first_name ?? 'User',
    ...(known?.last_name ? {last_name: known.last_name} : {}),
    ...(known?.username ? {username: known.username} : {}),
  }
  const chat: Chat = known ?? {
    id: chatId,
    first_name: user.first_name,
    ...(user.last_name ? {last_name: user.last_name} : {}),
    ...(user.username ? {username: user.username} : {}),
    type: 'private',
  }
  const member: ChatMember = {user: bot.from, status: 'member'}
  const kicked: ChatMember = {user: bot.from, status: 'kicked', until_date: 0}
  return {
    my_chat_member: {
      chat,
      from: user,
      date: Math.floor(Date.now() / 1000),
      old_chat_member: blocked ? member : kicked,
      new_chat_member: blocked ? kicked : member,
    },
  }
}

/** Upgrade the basic group `chatId` to a supergroup (known to the bot from now on); returns the supergroup's id. */
export function migrate(bot: BotState, chatId: number, toChatId?: number): number {
  if (!Number.isSafeInteger(chatId) || chatId >= 0)
    throw new Error(`migrateChat: chat ${String(chatId)} must be a group (a negative id)`)
  if (toChatId !== undefined && (!Number.isSafeInteger(toChatId) || toChatId >= 0))
    throw new Error(`migrateChat: toChatId ${String(toChatId)} must be a negative id`)
  const target = toChatId ?? supergroupIdFor(chatId)
  bot.faults.migrated.set(String(chatId), target)
  const old = bot.findChat(String(chatId))
  bot.rememberChat({id: target, title: old?.title ?? 'Test Group', type: 'supergroup'})
  return target
}

/** Users an injected update names (`from`, a poll answer's `user`) become known with what it says about them. */
export function noteUsers(bot: BotState, body: TgObject): void {
  for (const value of Object.values(body)) {
    if (!value || typeof value !== 'object') continue
    for (const key of ['from', 'user']) {
      const user = isObject(value) ? value[key] : undefined
      if (!isObject(user) || typeof user.id !== 'number' || user.is_bot === true || user.id <= 0) continue
      if (bot.users.known(user.id) === user) continue // the profile itself (a message the emulator made)
      bot.users.update(user.id, {
        ...(typeof user.first_name === 'string' ? {firstName: user.first_name} : {}),
        ...(typeof user.last_name === 'string' ? {lastName: user.last_name} : {}),
        ...(typeof user.username === 'string' ? {username: user.username} : {username: ''}),
        ...(typeof user.language_code === 'string' ? {languageCode: user.language_code} : {}),
      })
    }
  }
}
