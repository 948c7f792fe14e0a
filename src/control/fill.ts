/**
 * Who a trigger speaks as and what its fixture is filled with, from what the session has seen
 * (session-facts.ts): the parties (`--chat`/`--user`, else the last real chat and user, offline the
 * terminal user; none: refused) and the FillContext of fixtures.ts. Pure.
 */
import {randomBytes} from 'node:crypto'

import type {PhotoSize} from '../telegram/types.js'
import {ActionError} from './protocol.js'
import type {Party, SessionFacts} from './session-facts.js'
import {chat as madeUpChat, DEFAULT_USER_ID, user as madeUpUser, type Refusal} from './synthetic.js'
import type {FillContext} from './fixtures.js'
import type {JsonObject as Json} from '../lib/json-object.js'

export interface Parties {
  userId: number
  chatId: number
  user: Json
  chat: Json
}

/** No --chat, no --user, and the session has seen nobody: a trigger must not guess a stranger's chat. */
export const NO_CHAT_YET = new ActionError(
  409,
  'This session has not seen a chat yet, so `bot trigger` does not know whom to speak as.',
  'Send the bot a message from Telegram first (triggers then speak as that user in that chat), or pass --chat ID (and --user ID).',
)

/** No message of the bot in the chat has a button with this callback_data (a callback trigger without --message-id). */
export function noButton(chatId: number, data: string): ActionError {
  return new ActionError(
    404,
    `No message of the bot in chat ${chatId} has a button with callback_data "${data}" (of the messages this session saw it send).`,
    'Pass --message-id ID, or make the bot show that button first (its calls must go through the api proxy).',
  )
}

/**
 * The user and chat of a trigger: those given; a user alone speaks in their private chat, a private
 * chat alone is its user's; a group alone gets the default user; neither: the default party (the
 * last real chat and user online, the terminal user offline), or NO_CHAT_YET. Known users and chats
 * keep the names the session saw.
 */
export function resolveParties(given: {chatId?: number; userId?: number}, defaults: Party | undefined): Parties {
  const known = defaults
    ? {userId: Number(defaults.user.id), chatId: Number(defaults.chat.id), user: defaults.user, chat: defaults.chat}
    : undefined
  let {chatId, userId} = given
  if (chatId === undefined && userId === undefined) {
    if (!known) throw NO_CHAT_YET
    return known
  }
  if (chatId === undefined) chatId = userId as number
  if (userId === undefined) userId = chatId > 0 ? chatId : (known?.userId ?? DEFAULT_USER_ID)
  return {
    userId,
    chatId,
    user: known && known.userId === userId ? known.user : madeUpUser(userId),
    chat: known && known.chatId === chatId ? known.chat : madeUpChat(chatId, userId),
  }
}

/** The user's private chat with the bot, as Telegram describes it. */
export function privateChatOf(user: Json): Json {
  return {
    id: user.id,
    ...(user.first_name !== undefined ? {first_name: user.first_name} : {}),
    ...(user.last_name !== undefined ? {last_name: user.last_name} : {}),
    ...(user.username !== undefined ? {username: user.username} : {}),
    type: 'private',
  }
}

/** A new query id as Telegram makes them (a decimal 64-bit number as a string). */
export function newQueryId(): string {
  return BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString()
    .slice(0, 19)
}

export interface FillInputs {
  parties: Parties
  bot: {id: number; first_name?: string; username?: string} | undefined
  /** The bot's messages (online the api proxy's calls; offline the emulator's record). */
  botSide: SessionFacts
  /** The users' messages and the ids seen (the session's updates). */
  userSide: SessionFacts
  now?: number
  photo?: PhotoSize[]
  /** The message id a synthetic update falls back on when the chat's are unknown. */
  fallbackMessageId: number
}

/** What the placeholders of a fixture stand for, as far as the session knows (fixtures.ts PLACEHOLDERS). */
export function fillContext(i: FillInputs): FillContext {
  const {parties} = i
  const chatId = parties.chatId
  const nextIds = [i.userSide.nextMessageId(chatId), i.botSide.nextMessageId(chatId)].filter(
    (n): n is number => n !== undefined,
  )
  const context: FillContext = {
    user: parties.user,
    chat: parties.chat,
    private_chat: privateChatOf(parties.user),
    now: Math.floor((i.now ?? Date.now()) / 1000),
    message_id: nextIds.length > 0 ? Math.max(...nextIds) : i.fallbackMessageId,
    query_id: newQueryId(),
  }
  if (parties.chat.type !== 'private' && chatId < 0) context.group = parties.chat
  if (i.bot)
    context.bot = {
      id: i.bot.id,
      is_bot: true,
      first_name: i.bot.first_name ?? 'Bot',
      ...(i.bot.username ? {username: i.bot.username} : {}),
    }
  const botMessage = i.botSide.botMessages(chatId)[0]
  if (botMessage) context.bot_message = botMessage.message
  const userMessage = i.userSide.userMessage(chatId, parties.userId)
  if (userMessage) context.user_message = userMessage
  const invoice = i.botSide.invoice(parties.userId) ?? i.botSide.invoice(chatId)
  if (invoice?.invoice) {
    const {payload, currency, total_amount} = invoice.invoice
    context.invoice = {
      ...(payload !== undefined ? {payload} : {}),
      ...(currency !== undefined ? {currency} : {}),
      ...(total_amount !== undefined ? {total_amount} : {}),
      message_id: invoice.messageId,
    }
  }
  const poll = i.botSide.poll(chatId)?.poll
  if (poll) context.poll = {id: poll.id}
  if (i.photo) context.photo = i.photo
  const business = i.userSide.businessConnection()
  if (business) context.business_connection = business
  return context
}

/** Why a placeholder cannot be filled, and the `--set` that gives it (PATH: where the template uses it). */
export function missingPlaceholder(type: string, name: string, parties: Parties): Refusal {
  const top = name.split('.')[0]
  const set = 'Pass --set PATH=… to give it'
  switch (top) {
    case 'group':
      return {
        error: `The ${type} fixture needs a group or channel, and chat ${parties.chatId} is a private chat.`,
        fix: "Pass --chat with the group's id (negative, e.g. --chat -1001234567890).",
      }
    case 'user_message':
      return {
        error: `The ${type} fixture needs the newest text message of user ${parties.userId} in chat ${parties.chatId}, and the session has seen none.`,
        fix: `Send the bot a message there first (bot trigger message works too). ${set}.`,
      }
    case 'bot_message':
      return {
        error: `The ${type} fixture needs the bot's newest message in chat ${parties.chatId}, and the session has seen none (its calls go through the api proxy).`,
        fix: `Make the bot send a message in that chat first. ${set} (a message id).`,
      }
    case 'bot':
      return {error: `The ${type} fixture needs the bot (getMe), which the session does not know yet.`, fix: set + '.'}
    default:
      return {error: `The ${type} fixture needs {{${name}}}, which the session does not know.`, fix: `${set}.`}
  }
}
