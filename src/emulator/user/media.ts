/**
 * A user sends media: the file is stored for the bot (media/input.ts) and the message carries it as Telegram does: a
 * photo as its PhotoSize array (sizes from the image's own width and height), a document with its file_name,
 * mime_type and file_size, a video with its width, height and duration read from the bytes, and so on; a caption
 * with the entities Telegram detects.
 */
import type {BotState} from '../state/bot.js'
import type {TgObject, UserMediaOptions} from '../types.js'
import type {Message} from '../telegram.js'
import {MEDIA_KINDS} from '../media-kinds.js'
import {storeBytes} from '../media/input.js'
import {messageMedia} from '../media/objects.js'
import {userMessageEntities} from '../state/updates.js'
import {userMessage} from './actions.js'

/** The largest file a user may send through the emulator (Telegram's limit for users is far higher). */
export const MAX_USER_FILE = 50 * 1024 * 1024

export function userMediaMessage(bot: BotState, options: UserMediaOptions): Message {
  const {kind, data} = options
  if (!MEDIA_KINDS.includes(kind))
    throw new Error(`sendUserMedia: kind ${JSON.stringify(kind)} must be one of ${MEDIA_KINDS.join(', ')}`)
  if (!Buffer.isBuffer(data) || data.length === 0) throw new Error('sendUserMedia: data must be a non-empty Buffer')
  if (data.length > MAX_USER_FILE) throw new Error(`sendUserMedia: the file is over ${MAX_USER_FILE} bytes`)
  const file = storeBytes(bot, kind, data, options.filename, options.mimeType)
  if (options.width) file.width = options.width
  if (options.height) file.height = options.height
  if (options.duration) file.duration = options.duration
  const fields: TgObject = {}
  if (kind === 'audio') Object.assign(fields, {title: options.title, performer: options.performer})
  if (kind === 'sticker')
    Object.assign(fields, {
      emoji: options.emoji,
      is_animated: file.mime === 'application/x-tgsticker',
      is_video: file.mime === 'video/webm',
    })
  const {text: _text, entities: _entities, ...base} = userMessage(bot, {...options, text: ''})
  const caption = options.caption && kind !== 'sticker' && kind !== 'video_note' ? options.caption : undefined
  const captionEntities = caption ? userMessageEntities(caption) : []
  return {
    ...base,
    ...messageMedia(bot.files, kind, file, {fields}),
    ...(caption ? {caption} : {}),
    ...(captionEntities.length > 0 ? {caption_entities: captionEntities} : {}),
  }
}
