/**
 * Synthetic updates for `bot trigger`: realistic Telegram Update objects (field order and
 * shapes as the Bot API server emits them, Client.cpp JsonMessage, JsonCallbackQuery) for a message or a button press
 * by a user, and the checks a trigger request or a hand-written update must pass before anything
 * is delivered. Pure functions: no I/O.
 */
import {type Chat, MESSAGE_UPDATE_TYPES, type MessageEntity, type User} from '../telegram/types.js'
import type {TriggerRequest} from './protocol.js'
import {checkTriggerRequest, type JsonObject, MAX_UPDATE_ID} from './requests.js'
import {isJsonObject} from '../lib/json-object.js'

export {
  checkTriggerRequest,
  checkUpdateObject,
  MAX_CALLBACK_DATA_BYTES,
  MAX_PHOTO_BYTES,
  MAX_TEXT,
  MAX_UPDATE_ID,
} from './requests.js'
export type {Refusal} from './protocol.js'

/** The default user of a trigger (a private chat with them unless a chat is given). */
export const DEFAULT_USER_ID = 1111

/**
 * update_ids of synthetic updates (`bot trigger` in webhook mode) count down from the largest
 * positive 32-bit integer, 2147483647. Telegram numbers a bot's updates upwards from where its
 * counter stands, far below that, so within a session a synthetic id never equals a real one
 * (`GET /api/updates/{id}` and `bot replay ID` name one update), and it is still a valid
 * positive 32-bit update_id for every framework.
 */
export const SYNTHETIC_UPDATE_ID_TOP = MAX_UPDATE_ID

/** The next synthetic update_id below `previous` (the top for the first) that `taken` does not hold. */
export function nextSyntheticUpdateId(
  previous: number | undefined,
  taken: (id: number) => boolean = () => false,
): number {
  let id = previous === undefined ? SYNTHETIC_UPDATE_ID_TOP : previous - 1
  while (id > 1 && taken(id)) id--
  return id
}

/**
 * The update with its own date (`date`, and `edit_date` when there is one) set to now: a trigger or
 * a replay is a new update, and Telegram never delivers one dated more than a day ago (the emulator
 * drops it, as Telegram does). Nested objects (a reply, the message under a button) keep theirs.
 */
export function withCurrentDate(update: JsonObject, now = Date.now()): JsonObject {
  const {type, content} = updateContent(update)
  if (type === undefined || !content) return update
  const seconds = Math.floor(now / 1000)
  const dated: JsonObject = {...content}
  if (typeof dated.date === 'number') dated.date = seconds
  if (typeof dated.edit_date === 'number') dated.edit_date = seconds
  return {...update, [type]: dated}
}

/** An update's type (its one field besides update_id) and that field's object, when it is one. */
export function updateContent(update: JsonObject): {type?: string; content?: JsonObject} {
  const type = Object.keys(update).find((k) => k !== 'update_id')
  const content = type === undefined ? undefined : update[type]
  return {type, ...(isJsonObject(content) ? {content} : {})}
}

/**
 * Update types Telegram never queues once their own (edit) date is more than a day old (Client.cpp add_message_update:
 * message_date + 86400).
 */
const DATED_TYPES = new Set<string>(MESSAGE_UPDATE_TYPES)
const DAY_SECONDS = 86_400

/** Why Telegram (and the emulator) would not deliver this update: dated more than a day ago, else undefined. */
export function expiredDate(update: JsonObject, now = Date.now()): number | undefined {
  const {type, content} = updateContent(update)
  if (type === undefined || !DATED_TYPES.has(type) || !content) return undefined
  const date = typeof content.edit_date === 'number' ? content.edit_date : content.date
  return typeof date === 'number' && (date + DAY_SECONDS) * 1000 <= now ? date : undefined
}

/** Supergroup ids are -100xxxxxxxxxx (below -10^12); other negative ids are basic groups. */
const SUPERGROUP_BELOW = -1_000_000_000_000

/** The user and chat of a message/callback request: the user defaults to the chat (private) or 1111. */
export function partiesOf(request: {chatId?: number; userId?: number}): {userId: number; chatId: number} {
  const userId =
    request.userId ?? (request.chatId !== undefined && request.chatId > 0 ? request.chatId : DEFAULT_USER_ID)
  return {userId, chatId: request.chatId ?? userId}
}

/*
 * The objects made up here are JSON like the ones the session saw (JsonObject, what they stand in for), each checked
 * against its Bot API type with `satisfies` (no cast): a misspelt or missing field does not compile.
 */

export function user(id: number): JsonObject {
  return {
    id,
    is_bot: false,
    first_name: 'Test',
    last_name: 'User',
    username: `user${id}`,
    language_code: 'en',
  } satisfies User
}

export function chat(chatId: number, userId: number): JsonObject {
  if (chatId > 0)
    return {
      id: chatId,
      first_name: 'Test',
      last_name: 'User',
      username: `user${userId}`,
      type: 'private',
    } satisfies Chat.PrivateChat
  if (chatId < SUPERGROUP_BELOW)
    return {id: chatId, title: 'Test supergroup', type: 'supergroup'} satisfies Chat.SupergroupChat
  return {id: chatId, title: 'Test group', type: 'group'} satisfies Chat.GroupChat
}

/** A leading /command (with an optional @botname), as Telegram marks it: a bot_command entity. */
const COMMAND = /^\/[a-zA-Z0-9_]{1,64}(?:@[a-zA-Z0-9_]{3,32})?(?![a-zA-Z0-9_/<>@])/

export function commandEntity(text: string): {offset: number; length: number; type: 'bot_command'} | undefined {
  const m = COMMAND.exec(text)
  return m ? ({offset: 0, length: m[0].length, type: 'bot_command'} satisfies MessageEntity) : undefined
}

/** Telegram's chat_instance: a signed 64-bit number as a string, stable per chat. */
export function chatInstance(chatId: number): string {
  const n =
    (BigInt(Math.abs(chatId)) * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 9_223_372_036_854_775_807n
  return (chatId > 0 ? '-' : '') + n.toString()
}

/** A callback query id as Telegram makes them: a 64-bit number as a string, the user's id in its high bits. */
export function callbackQueryId(userId: number, updateId: number): string {
  return `${BigInt(userId) * 4_294_967_296n + BigInt(updateId % 4_294_967_296)}`
}

export interface SyntheticOptions {
  updateId: number
  /** Clock in ms (default Date.now()). */
  now?: number
  /** message_id of a synthetic message (default derived from the update id). */
  messageId?: number
  /** The bot, as the author of the message a button belongs to. */
  bot?: {id: number; first_name?: string; username?: string}
  /** The user and chat as the session saw them (else made up from the ids). */
  user?: JsonObject
  chat?: JsonObject
  /** The pressed message as the bot's call returned it (else made up from its id). */
  message?: JsonObject
}

/**
 * A realistic Update for a trigger request: `message` (text, a bot_command entity for a leading
 * /command) or `callback_query` (a press of a button under the bot's message `messageId`) from
 * the user (default 1111) in the chat (default: the private chat with that user). An `update`
 * request passes through with its update_id replaced (first, as Telegram orders it) and its own
 * date set to now (withCurrentDate).
 * Throws a TypeError for a request checkTriggerRequest refuses.
 */
export function syntheticUpdate(request: TriggerRequest, o: SyntheticOptions): JsonObject {
  const checked = checkTriggerRequest(request)
  if ('error' in checked) throw new TypeError(checked.error)
  const r = checked.request
  const date = Math.floor((o.now ?? Date.now()) / 1000)
  if (r.kind === 'update') {
    const {update_id: _ignored, ...rest} = withCurrentDate(r.update, o.now)
    return {update_id: o.updateId, ...rest}
  }
  if (r.kind === 'fixture') throw new TypeError('a fixture is filled by the session (fixtures.ts), not here')
  const {userId, chatId} = partiesOf(r)
  const from = o.user && o.user.id === userId ? o.user : user(userId)
  const where = o.chat && o.chat.id === chatId ? o.chat : chat(chatId, userId)
  if (r.kind === 'message') {
    const entity = commandEntity(r.text)
    const message: JsonObject = {
      message_id: o.messageId ?? Math.max(1, o.updateId % 1_000_000),
      from,
      chat: where,
      date,
      text: r.text,
    }
    if (entity) message.entities = [entity]
    return {update_id: o.updateId, message}
  }
  if (o.message)
    return {
      update_id: o.updateId,
      callback_query: {
        id: callbackQueryId(userId, o.updateId),
        from,
        message: o.message,
        chat_instance: chatInstance(chatId),
        data: r.data,
      },
    }
  const message: JsonObject = {message_id: r.messageId ?? 1}
  if (o.bot)
    message.from = {
      id: o.bot.id,
      is_bot: true,
      first_name: o.bot.first_name ?? 'Bot',
      ...(o.bot.username ? {username: o.bot.username} : {}),
    } satisfies User
  message.chat = where
  message.date = date
  return {
    update_id: o.updateId,
    callback_query: {
      id: callbackQueryId(userId, o.updateId),
      from,
      message,
      chat_instance: chatInstance(chatId),
      data: r.data,
    },
  }
}
