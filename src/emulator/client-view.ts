/**
 * What a Telegram client shows of a bot's chats: the chats the bot knows, each chat's messages as they are now
 * (edits applied, deleted ones gone, a poll with its current counts, the reactions on each), the bot's card (its
 * name, description, menu button and the command list a user sees), and the bytes of a file. Read by the chat page
 * (src/chat/) through BotApiEmulator's client methods; nothing here changes the state.
 */
import {pollJson} from './state/polls.js'
import type {BotState} from './state/bot.js'
import type {TgObject} from './types.js'
import {type Message, isObject} from './telegram.js'

/** A message as a client shows it: the Message, and the reactions on it (ReactionCount objects, most used first). */
export interface MessageView {
  message: TgObject
  reactions: TgObject[]
}

/** The chats the bot knows, one entry each (not the `@username` aliases), in the order it met them. */
export function chatList(bot: BotState): TgObject[] {
  const out: TgObject[] = []
  const seen = new Set<unknown>()
  for (const [key, chat] of bot.chats) {
    if (key.startsWith('@') || seen.has(chat.id)) continue
    seen.add(chat.id)
    out.push(chat)
  }
  return out
}

/** One message as a client shows it now, or undefined when it does not exist (or was deleted). */
export function messageView(bot: BotState, chatId: number, messageId: number): MessageView | undefined {
  const message = bot.message(chatId, messageId)
  if (!message) return undefined
  return viewOf(bot, message)
}

function viewOf(bot: BotState, message: Message): MessageView {
  const chatId = message.chat.id
  const messageId = message.message_id
  let shown = message
  if (isObject(message.poll)) {
    const poll = bot.polls.get(String(message.poll.id))
    if (poll) shown = {...message, poll: pollJson(poll)}
  }
  return {message: shown, reactions: bot.members.reactionCounts(chatId, messageId)}
}

/** The chat's live messages, oldest first; with `limit`, the newest `limit` of them (those before `before`). */
export function chatHistory(
  bot: BotState,
  chatId: number,
  options: {limit?: number; before?: number} = {},
): MessageView[] {
  const live = bot.messages
    .inChat(chatId)
    .filter((s) => !s.deleted && (options.before === undefined || s.message.message_id < options.before))
    .map((s) => s.message)
    .sort((a, b) => a.message_id - b.message_id)
  const kept = options.limit !== undefined && live.length > options.limit ? live.slice(-options.limit) : live
  return kept.map((m) => viewOf(bot, m))
}

/** The chat and message of a poll (a `poll` or `poll_answer` update names only the poll). */
export function pollMessage(bot: BotState, pollId: string): {chatId: number; messageId: number} | undefined {
  const poll = bot.polls.get(pollId)
  return poll ? {chatId: poll.chatId, messageId: poll.messageId} : undefined
}

/** The bot as a user of `languageCode` sees it in a chat: getMe, its texts, the menu button, the command menu. */
export function botCard(bot: BotState, options: {chatId: number; userId: number; languageCode?: string}): TgObject {
  const language = options.languageCode ?? (bot.users.known(options.userId)?.language_code || '')
  const menu = (options.chatId > 0 ? bot.profile.menuButton(options.chatId) : undefined) ??
    bot.profile.menuButton() ?? {type: 'commands'}
  return {
    user: bot.user,
    name: bot.profile.text('name', language) || bot.user.first_name,
    description: bot.profile.text('description', language),
    short_description: bot.profile.text('short_description', language),
    menu_button: menu,
    commands: bot.commandLists.visible(options.chatId, options.userId, language, false),
  }
}

/** The bytes of one of the bot's files, with what a browser needs to show them. */
export function fileContent(
  bot: BotState,
  fileId: string,
): {data: Buffer; mime?: string; name?: string; kind: string} | undefined {
  const file = bot.files.get(fileId)
  if (!file) return undefined
  const data = bot.files.contentOf(file)
  if (!data) return undefined
  return {data, kind: file.kind, ...(file.mime ? {mime: file.mime} : {}), ...(file.name ? {name: file.name} : {})}
}
