/**
 * The ephemeral messages (Bot API 10.2) of an online `bot dev` session as their receivers see them, for the chat page
 * (docs/chat.md, "Online"): drawn only from the bot's calls through the api proxy, with Telegram's results.
 *
 * - A send with `ephemeral_message_parameters` returns the Message (`message_id` 0, `receiver_user`,
 *   `ephemeral_message_id`): kept here, never in the chat's history (only its receiver sees it).
 * - editEphemeralMessageText / Caption / Media / ReplyMarkup return `true`, not the message: the change is made from
 *   the call's parameters (the text or caption formatted as the emulator formats it, the markup as sent, which also
 *   takes away a keyboard the call leaves out, as an edit does).
 * - deleteEphemeralMessage takes it away.
 *
 * Bounded: the newest MAX_EPHEMERAL messages.
 */
import type {MessageView, TgObject} from '../emulator/index.js'
import {entitiesJson, formatText} from '../emulator/format/index.js'
import {type JsonObject as Json, isJsonObject} from '../lib/json-object.js'

export const MAX_EPHEMERAL = 5000

/** What a call changed: the message now (`view`), or its deletion (no `view`). */
export interface EphemeralChange {
  chat_id: number
  receiver_user_id: number
  ephemeral_message_id: number
  view?: MessageView
}

const numberOf = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : Number.NaN
  return Number.isSafeInteger(n) ? n : undefined
}

/** A parameter that is JSON: as the proxy recorded it (parsed), or its text. */
function jsonParam(v: unknown): unknown {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    return undefined
  }
}

/** Whether a result is an ephemeral message: `message_id` 0 with a receiver and an ephemeral id. */
export function isEphemeralMessage(v: unknown): v is Json & {
  chat: Json & {id: number}
  receiver_user: Json & {id: number}
  ephemeral_message_id: number
} {
  return (
    isJsonObject(v) &&
    v.message_id === 0 &&
    typeof v.ephemeral_message_id === 'number' &&
    isJsonObject(v.chat) &&
    typeof v.chat.id === 'number' &&
    isJsonObject(v.receiver_user) &&
    typeof v.receiver_user.id === 'number'
  )
}

/** `text`/`caption` with its parse_mode and entities as the message shows it (the raw text when it cannot be read). */
function formatted(raw: unknown, parseMode: unknown, entities: unknown, kind: 'text' | 'caption'): Json {
  const text = typeof raw === 'string' ? raw : ''
  const field = kind === 'text' ? 'entities' : 'caption_entities'
  const list = jsonParam(entities)
  try {
    const out = formatText({
      raw: text,
      kind,
      ...(typeof parseMode === 'string' ? {parseMode} : {}),
      ...(Array.isArray(list) ? {entities: JSON.stringify(list)} : {}),
    })()
    if (out.text === '') return {}
    return {[kind]: out.text, ...(out.entities.length > 0 ? {[field]: entitiesJson(out.entities)} : {})}
  } catch {
    return text === '' ? {} : {[kind]: text}
  }
}

/** The media fields a message may carry (one of them at a time). */
const MEDIA = ['photo', 'video', 'animation', 'audio', 'document', 'voice', 'video_note', 'sticker']

/** InputMedia's file as a message shows it before Telegram's sizes are known: its file_id (or URL). */
function mediaOf(media: Json): Json {
  const type = typeof media.type === 'string' ? media.type : ''
  const ref = typeof media.media === 'string' && !media.media.startsWith('attach://') ? media.media : ''
  if (!MEDIA.includes(type)) return {}
  const file = {file_id: ref, file_unique_id: ''}
  return {[type]: type === 'photo' ? [{...file, width: 0, height: 0}] : file}
}

export class SessionEphemeral {
  /** `chat:receiver:ephemeral_message_id` → the message as its receiver sees it now */
  readonly #messages = new Map<string, TgObject>()

  #key(chatId: number, receiver: number, id: number): string {
    return `${chatId}:${receiver}:${id}`
  }

  /** The ephemeral messages `userId` still sees in a chat, oldest first. */
  list(chatId: number, userId: number): MessageView[] {
    const prefix = `${chatId}:${userId}:`
    const out: MessageView[] = []
    for (const [k, message] of this.#messages) if (k.startsWith(prefix)) out.push({message, reactions: []})
    return out
  }

  view(chatId: number, receiver: number, id: number): MessageView | undefined {
    const message = this.#messages.get(this.#key(chatId, receiver, id))
    return message && {message, reactions: []}
  }

  /** A call Telegram answered: the ephemeral message it sent, changed or deleted, if any. */
  fromCall(method: string, params: Json, result: unknown): EphemeralChange | undefined {
    const m = method.toLowerCase()
    if (isEphemeralMessage(result)) {
      this.#put(result)
      return {
        chat_id: result.chat.id,
        receiver_user_id: result.receiver_user.id,
        ephemeral_message_id: result.ephemeral_message_id,
        view: {message: result, reactions: []},
      }
    }
    if (!m.startsWith('editephemeralmessage') && m !== 'deleteephemeralmessage') return undefined
    const chatId = numberOf(params.chat_id)
    const receiver = numberOf(params.receiver_user_id)
    const id = numberOf(params.ephemeral_message_id)
    if (result !== true || chatId === undefined || receiver === undefined || id === undefined) return undefined
    const key = this.#key(chatId, receiver, id)
    const where = {chat_id: chatId, receiver_user_id: receiver, ephemeral_message_id: id}
    if (m === 'deleteephemeralmessage') {
      this.#messages.delete(key)
      return where
    }
    const old = this.#messages.get(key)
    if (!old) return undefined
    const next: Json = {...old}
    delete next.reply_markup
    if (m === 'editephemeralmessagetext') {
      delete next.text
      delete next.entities
      Object.assign(next, formatted(params.text, params.parse_mode, params.entities, 'text'))
    } else if (m === 'editephemeralmessagecaption') {
      delete next.caption
      delete next.caption_entities
      Object.assign(next, formatted(params.caption, params.parse_mode, params.caption_entities, 'caption'))
    } else if (m === 'editephemeralmessagemedia') {
      const media = jsonParam(params.media)
      if (isJsonObject(media)) {
        for (const field of [...MEDIA, 'caption', 'caption_entities']) delete next[field]
        Object.assign(next, mediaOf(media))
        Object.assign(next, formatted(media.caption, media.parse_mode, media.caption_entities, 'caption'))
      }
    } else if (m !== 'editephemeralmessagereplymarkup') return undefined
    const markup = jsonParam(params.reply_markup)
    if (isJsonObject(markup) && Array.isArray(markup.inline_keyboard) && markup.inline_keyboard.length > 0)
      next.reply_markup = {inline_keyboard: markup.inline_keyboard}
    this.#messages.set(key, next)
    return {...where, view: {message: next, reactions: []}}
  }

  /** A message a callback query carried (a press under it): kept if it was not known yet. */
  seen(message: TgObject & {chat: Json & {id: number}; receiver_user: Json & {id: number}}): void {
    const key = this.#key(message.chat.id, message.receiver_user.id, message.ephemeral_message_id as number)
    if (!this.#messages.has(key)) this.#put(message)
  }

  #put(message: TgObject & {chat: Json & {id: number}; receiver_user: Json & {id: number}}): void {
    const key = this.#key(message.chat.id, message.receiver_user.id, message.ephemeral_message_id as number)
    this.#messages.delete(key)
    this.#messages.set(key, message)
    if (this.#messages.size > MAX_EPHEMERAL) this.#messages.delete(this.#messages.keys().next().value!)
  }
}
