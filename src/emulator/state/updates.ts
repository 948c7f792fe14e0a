/** Update types, the allowed_updates filter (Client.cpp get_allowed_update_types) and the webhook queue of an update
 * (the webhook_queue_id Client.cpp add_update gives, WebhookActor.cpp load_updates). */
import {detectEntities, entitiesJson} from '../format/index.js'
import type {TgObject} from '../types.js'
import {type Chat, isChat, isObject} from '../telegram.js'
import {parseJsonBounded} from '../json.js'
import {sharedQueueOf} from '../webhook-queue.js'

/** Names recognized in allowed_updates, in the server's order. */
export const UPDATE_TYPES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
  'message_reaction',
  'message_reaction_count',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'purchased_paid_media',
  'managed_bot',
  'guest_message',
  // Bot API 10.2-10.4 (their place in the server's order is not known: after the others)
  'subscription',
  'stopped_message_generation',
  'widget_query',
  'shared_widget_query',
] as const

const NOT_BY_DEFAULT = new Set(['chat_member', 'message_reaction', 'message_reaction_count'])

/** The default filter: every type except chat_member, message_reaction and message_reaction_count. */
export const DEFAULT_ALLOWED: ReadonlySet<string> = new Set(UPDATE_TYPES.filter((t) => !NOT_BY_DEFAULT.has(t)))

/** Why an update of `type` did not reach the bot: the allowed_updates filter (the opt-in types said to be opt-in). */
export function droppedReason(type: string): string {
  const optIn = NOT_BY_DEFAULT.has(type) ? ' (it is off unless asked for, as on Telegram)' : ''
  return `the bot's allowed_updates leave out ${type}${optIn}`
}

/**
 * The new setting for an allowed_updates parameter, or undefined when the setting stays unchanged
 * (missing, invalid JSON, not an array, a non-string element). `[]` or no known name → the default.
 */
export function parseAllowedUpdates(raw: string | undefined): Set<string> | undefined {
  if (raw === undefined) return undefined
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch {
    return undefined
  }
  if (!Array.isArray(value)) return undefined
  const names = value.filter((v: unknown) => typeof v === 'string')
  if (names.length !== value.length) return undefined
  const known = new Set<string>(UPDATE_TYPES)
  const chosen = new Set(names.map((v) => v.toLowerCase()).filter((v) => known.has(v)))
  return chosen.size === 0 ? new Set(DEFAULT_ALLOWED) : chosen
}

/** The names of a setting in the server's order, or undefined when it is the default. */
export function allowedUpdatesList(allowed: ReadonlySet<string>): string[] | undefined {
  const same = allowed.size === DEFAULT_ALLOWED.size && [...allowed].every((t) => DEFAULT_ALLOWED.has(t))
  return same ? undefined : UPDATE_TYPES.filter((t) => allowed.has(t))
}

/** The type of an update: its first key other than update_id. */
export function updateTypeOf(update: TgObject): string | undefined {
  // for…in visits an object's own keys in Object.keys order (a plain object has no inherited enumerable keys)
  for (const key in update) if (key !== 'update_id' && Object.hasOwn(update, key)) return key
  return undefined
}

let uniqueQueue = 0

/**
 * The webhook queue an update belongs to: one update in flight per queue (the rule is webhook-queue.ts's, which `bot
 * dev`'s bridge follows too); an update that shares none gets a queue of its own.
 */
export function webhookQueueOf(update: TgObject): string {
  const shared = sharedQueueOf(update)
  if (shared !== undefined) return shared
  uniqueQueue += 1
  return `unique:${uniqueQueue}`
}

/** Updates from chats that are not the bot's: a business account's chats, and the chats a guest bot is summoned to. */
const NOT_THE_BOTS = new Set([
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'guest_message',
])

/** The fields of an update's object that hold a message whose chats count too. */
const NESTED_MESSAGES = ['message', 'reply_to_message', 'pinned_message', 'edited_message', 'channel_post']

/** Every chat an update mentions (so the bot may write to it later). */
export function chatsIn(update: TgObject): Chat[] {
  const out: Chat[] = []
  // a business chat is the business account's, a guest bot's chat is someone else's: neither lets the bot write there
  for (const key in update)
    if (key !== 'update_id' && Object.hasOwn(update, key) && !NOT_THE_BOTS.has(key)) visitChats(update[key], 0, out)
  return out
}

/** chatsIn's walk: the chat and the sender (a person's private chat) of `o` and of the messages in it, to depth 4. */
function visitChats(o: unknown, depth: number, out: Chat[]): void {
  if (!isObject(o) || depth > 4) return
  if (isChat(o.chat)) out.push(o.chat)
  for (const key of NESTED_MESSAGES) visitChats(o[key], depth + 1, out)
  const from = o.from
  if (isObject(from) && typeof from.id === 'number' && from.is_bot !== true) {
    out.push({
      id: from.id,
      first_name: typeof from.first_name === 'string' ? from.first_name : undefined,
      ...(typeof from.username === 'string' && from.username ? {username: from.username} : {}),
      type: 'private',
    })
  }
}

/**
 * The entities Telegram detects in a text a user typed (mention, bot_command, hashtag, cashtag, url, email; see
 * format/detect.ts), in the Bot API's field order.
 */
export function userMessageEntities(text: string): TgObject[] {
  return entitiesJson(detectEntities(text))
}

/** The former name (it once gave bot_command entities only); now every detected entity, as userMessageEntities. */
export const commandEntities = userMessageEntities
