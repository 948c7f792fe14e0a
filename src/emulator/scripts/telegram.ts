/**
 * The Telegram objects a chat script reads from what the bot did (a call's parameters and result, a message the
 * emulator keeps), each field it reads checked once here (valibot) instead of cast where it is read. The shapes
 * follow core.telegram.org/bots/api (Message, InlineKeyboardMarkup, ReplyKeyboardMarkup, ReplyKeyboardRemove); only
 * the fields a script reads are named, the rest pass through.
 */
import * as v from 'valibot'
import {MESSAGE_KINDS, type MessageKind} from './format.js'

/** An object with an `id` (a Chat, a User, a Poll, an InlineQuery): ids are compared as text. */
const WithId = v.looseObject({id: v.unknown()})

/** A keyboard's rows; a reply keyboard's button may be a bare label. */
const Rows = v.array(v.unknown())

/** reply_markup: an inline keyboard, a reply keyboard, or the order to remove the reply keyboard. */
const Markup = v.looseObject({
  inline_keyboard: v.optional(v.unknown()),
  keyboard: v.optional(v.unknown()),
  remove_keyboard: v.optional(v.unknown()),
})
export type Markup = v.InferOutput<typeof Markup>

/** A message as a script reads it: its id, chat, sender, texts and keyboard. */
const Message = v.looseObject({
  message_id: v.number(),
  chat: v.optional(v.unknown()),
  from: v.optional(v.unknown()),
  text: v.optional(v.unknown()),
  caption: v.optional(v.unknown()),
  reply_markup: v.optional(v.unknown()),
})
export type ScriptMessage = v.InferOutput<typeof Message>

/** The text a message's content shows besides its caption, per kind (a poll's question, a contact's number…). */
export const CONTENT_FIELDS: Partial<Record<MessageKind, string>> = {
  poll: 'question',
  invoice: 'title',
  venue: 'title',
  game: 'title',
  checklist: 'title',
  dice: 'emoji',
  contact: 'phone_number',
  document: 'file_name',
}

/** The value as `schema` reads it, or undefined when it does not fit. */
function parsed<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> | undefined {
  const result = v.safeParse(schema, value)
  return result.success ? result.output : undefined
}

/** The value as a message (a call's result, a kept message), or undefined when it is none (`true`, a MessageId…). */
export function messageOf(value: unknown): ScriptMessage | undefined {
  return parsed(Message, value)
}

/** The value as reply_markup, or undefined when it is no object. */
export function markupOf(value: unknown): Markup | undefined {
  return parsed(Markup, value)
}

/** The `id` of a Chat, User, Poll or query, or undefined when the value has none. */
export function idOf(value: unknown): unknown {
  return v.is(WithId, value) ? value.id : undefined
}

/** The value's field `key` when the value is an object (a message's content object by kind, a media parameter…). */
export function fieldOf(value: unknown, key: string): unknown {
  return v.is(v.looseObject({}), value) ? value[key] : undefined
}

/** A button's label: a reply keyboard's bare string, else its `text` ("" without one). */
export function labelOf(button: unknown): string {
  return typeof button === 'string' ? button : String(fieldOf(button, 'text') ?? '')
}

/** A keyboard's labels, row by row (a row that is no list has none). */
export function labels(rows: unknown): string[][] {
  if (!v.is(Rows, rows)) return []
  return rows.map((row) => (v.is(Rows, row) ? row.map(labelOf) : []))
}

/** The buttons of an inline keyboard, flat, those that are objects. */
export function inlineButtons(markup: Markup | undefined): Array<{text?: unknown; callback_data?: unknown}> {
  const rows = markup?.inline_keyboard
  if (!v.is(Rows, rows)) return []
  return rows.flat().filter((b) => v.is(v.looseObject({}), b))
}

/** The kind of content a message carries and its text (see CONTENT_FIELDS), in MESSAGE_KINDS order. */
export function contentOf(message: ScriptMessage): {kind: MessageKind; value: unknown; text: unknown} | undefined {
  for (const kind of MESSAGE_KINDS) {
    const value = message[kind]
    if (value === undefined) continue
    const field = CONTENT_FIELDS[kind]
    return {kind, value, text: field === undefined ? undefined : fieldOf(value, field)}
  }
  return undefined
}

/** Whether the text names a kind of message content. */
export function isMessageKind(text: unknown): text is MessageKind {
  return MESSAGE_KINDS.some((kind) => kind === text)
}
