/**
 * edit* and deleteMessage against the bot's message store, with the server's texts: `message to edit not
 * found`, `message can't be edited` (not the bot's own message), `there is no text in the message to edit`,
 * `message is not modified: …`, `message to delete not found`.
 */
import type {BotState} from '../state/bot.js'
import type {Answer, Handler} from './core.js'
import {badRequest} from '../errors.js'
import {chatOf, formatted, markupOf, now} from './message-params.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'

export const NOT_MODIFIED =
  'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'

/** Content types that carry a caption. */
const WITH_CAPTION = ['photo', 'video', 'document', 'audio', 'animation', 'voice', 'paid_media']

/**
 * The message an edit* call targets (chat_id + message_id), or 'inline' for inline_message_id. `kind` names the
 * content the edit needs: the message must have it.
 */
function editTarget(bot: BotState, params: Params, kind?: 'text' | 'caption'): TgObject | 'inline' {
  if (params.get('inline_message_id')) return 'inline'
  const chat = chatOf(bot, params)
  const id = Number(params.get('message_id'))
  if (!Number.isInteger(id) || id <= 0) throw badRequest('message to edit not found')
  const stored = bot.messages.get(chat.id as number, id)
  if (!stored || stored.deleted) throw badRequest('message to edit not found')
  if (!stored.byBot) throw badRequest("message can't be edited")
  const message = stored.message
  if (kind === 'text' && typeof message.text !== 'string') throw badRequest('there is no text in the message to edit')
  if (kind === 'caption' && !WITH_CAPTION.some((f) => f in message))
    throw badRequest('there is no caption in the message to edit')
  return message
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Apply new content (fields to set; `drop` fields to remove) and the new keyboard; `not modified` when nothing changes. */
function applyEdit(
  bot: BotState,
  message: TgObject,
  changes: TgObject,
  drop: string[],
  keyboard: TgObject | undefined,
): Answer {
  const next: TgObject = {...message}
  for (const field of drop) delete next[field]
  Object.assign(next, changes)
  delete next.reply_markup
  delete next.edit_date
  if (keyboard) next.reply_markup = keyboard
  const {edit_date: _e, ...before} = message
  if (same(before, next)) throw badRequest(NOT_MODIFIED)
  next.edit_date = now()
  bot.storeMessage(next)
  return {result: next}
}

export const editMessageText: Handler = (bot, params) => {
  if ((params.get('text') ?? '') === '') throw badRequest('message text is empty')
  const text = formatted(bot, params, 'text')
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'text')
  const keyboard = markup()
  const content = text()
  if (target === 'inline') return {result: true}
  return applyEdit(bot, target, content, ['text', 'entities'], keyboard)
}

export const editMessageCaption: Handler = (bot, params) => {
  const caption = formatted(bot, params, 'caption')
  const markup = markupOf(params)
  const target = editTarget(bot, params, 'caption')
  const keyboard = markup()
  const content = caption()
  if (target === 'inline') return {result: true}
  return applyEdit(bot, target, content, ['caption', 'caption_entities'], keyboard)
}

export const editMessageReplyMarkup: Handler = (bot, params) => {
  const markup = markupOf(params)
  const target = editTarget(bot, params)
  const keyboard = markup()
  if (target === 'inline') return {result: true}
  return applyEdit(bot, target, {}, [], keyboard)
}

/** Any other edit*: the message with an edit_date, or true for inline messages. */
export const editOther: Handler = (bot, params) => {
  const target = editTarget(bot, params)
  if (target === 'inline') return {result: true}
  const next = {...target, edit_date: now()}
  bot.storeMessage(next)
  return {result: next}
}

export const deleteMessage: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const raw = params.get('message_id')
  if (raw === undefined || raw === '') throw badRequest('message identifier is not specified')
  const id = Number(raw)
  if (!Number.isInteger(id) || id <= 0 || !bot.messages.markDeleted(chat.id as number, id)) {
    throw badRequest('message to delete not found')
  }
  return {result: true}
}
