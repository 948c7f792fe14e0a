/**
 * The Telegram objects the chat page's server reads from the bot's calls and the updates (a sent Message, a
 * reply_markup, an id), each field it reads checked once here (valibot) instead of cast where it is read. The shapes
 * follow core.telegram.org/bots/api; only the fields read are named, the rest pass through untouched.
 */
import * as v from 'valibot'
import {outputOf} from '../lib/refusal.js'

const Id = v.looseObject({id: v.number()})

/** A message in a chat: its id and its chat's id are numbers (an ephemeral one has message_id 0). */
const ChatMessage = v.looseObject({
  message_id: v.number(),
  chat: Id,
  ephemeral_message_id: v.optional(v.unknown()),
  receiver_user: v.optional(v.unknown()),
})
export type ChatMessage = v.InferOutput<typeof ChatMessage>

/** reply_markup as the bot sent it: a reply keyboard, or the order to remove it (or an inline keyboard). */
const ReplyMarkup = v.looseObject({keyboard: v.optional(v.unknown()), remove_keyboard: v.optional(v.unknown())})
export type ReplyMarkup = v.InferOutput<typeof ReplyMarkup>

/** The value as a message with its chat, or undefined (true, a MessageId, a message without its chat…). */
export function chatMessageOf(value: unknown): ChatMessage | undefined {
  return outputOf(ChatMessage, value)
}

/** The value as reply_markup, or undefined when it is no object. */
export function replyMarkupOf(value: unknown): ReplyMarkup | undefined {
  return outputOf(ReplyMarkup, value)
}

/** The numeric `id` of a Chat or User, or undefined. */
export function numericId(value: unknown): number | undefined {
  return v.is(Id, value) ? value.id : undefined
}

/** The value's field `key` when the value is an object, else undefined. */
export function fieldOf(value: unknown, key: string): unknown {
  return v.is(v.looseObject({}), value) ? value[key] : undefined
}
