/**
 * sendPhoto, sendDocument, sendVideo, sendAnimation, sendAudio, sendVoice, sendVideoNote, sendSticker and
 * sendMediaGroup: the file is required (`there is no photo in the request`), the caption is read, the chat and the
 * reply checked, then the file resolved (upload, file_id, URL; media/input.ts) and the message answered with every
 * field Telegram always sends, derived from the real bytes where they can be (media/objects.ts).
 */
import {randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import type {Handler} from './core.js'
import {ApiError, badRequest, errorText} from '../errors.js'
import {formatted} from './message-params.js'
import {finishSend, prepareSend} from './send.js'
import type {Params} from '../http/params.js'
import type {FileKind} from '../state/file-ids.js'
import type {StoredFile} from '../state/files.js'
import type {TgObject} from '../types.js'
import {type FileRef, fileRef, resolveFile, storeBytes} from '../media/input.js'
import {type InputMedia, readInputMedia, reasonOf} from '../media/input-media.js'
import {messageMedia} from '../media/objects.js'
import {toInteger} from '../integer.js'
import {jsonArg, required} from './args.js'

/** get_integer_arg with the server's clamp to ≥ 0; undefined when absent. */
function attribute(params: Params, name: string): number | undefined {
  const raw = params.get(name)
  if (raw === undefined || raw === '') return undefined
  return Math.max(0, toInteger(raw, 32))
}

/** The thumbnail upload (`thumbnail`, or the legacy `thumb`): `attach://x` or a file field, never a file_id (BA). */
function thumbnailRef(params: Params): FileRef {
  for (const name of ['thumbnail', 'thumb']) {
    const text = params.get(name)
    const upload = text?.startsWith('attach://')
      ? params.files.get(text.slice('attach://'.length))
      : params.files.get(name)
    if (upload) return {upload}
  }
  return undefined
}

async function thumbnailOf(bot: BotState, ref: FileRef): Promise<StoredFile | undefined> {
  if (!ref || !('upload' in ref)) return undefined
  return storeBytes(bot, 'thumbnail', ref.upload.data, ref.upload.filename, ref.upload.mimeType)
}

/**
 * The attributes the bot passed win for a file it uploads (Telegram takes the uploader's duration, width and
 * height); the bytes' own are used otherwise.
 */
function applyAttributes(file: StoredFile, ref: NonNullable<FileRef>, attrs: InputMedia['attributes']): void {
  if (!('upload' in ref)) return
  if (attrs.width) file.width = attrs.width
  if (attrs.height) file.height = attrs.height
  if (attrs.duration) file.duration = attrs.duration
}

const WORDS: Record<FileKind, string> = {
  photo: 'photo',
  video: 'video',
  document: 'document',
  audio: 'audio',
  voice: 'voice',
  animation: 'animation',
  sticker: 'sticker',
  video_note: 'video note',
  thumbnail: 'thumbnail',
  profile_photo: 'photo',
}

function sendMedia(kind: FileKind): Handler {
  return async (bot, params) => {
    const ref = fileRef(params, kind)
    if (!ref) throw badRequest(`there is no ${WORDS[kind]} in the request`)
    const thumb = kind === 'photo' ? undefined : thumbnailRef(params)
    const caption = kind === 'video_note' || kind === 'sticker' ? () => ({}) : formatted(bot, params, 'caption')
    const prepared = prepareSend(bot, params)
    const file = await resolveFile(bot, ref, kind)
    applyAttributes(file, ref, {
      width: attribute(params, kind === 'video_note' ? 'length' : 'width'),
      height: attribute(params, kind === 'video_note' ? 'length' : 'height'),
      duration: attribute(params, 'duration'),
    })
    const thumbnail = await thumbnailOf(bot, thumb)
    const fields: TgObject = {}
    if (kind === 'audio') Object.assign(fields, {title: params.get('title'), performer: params.get('performer')})
    if (kind === 'sticker') {
      Object.assign(fields, {emoji: params.get('emoji') || undefined, ...stickerFlags(file)})
    }
    const body = {...messageMedia(bot.files, kind, file, {fields, ...(thumbnail ? {thumbnail} : {})}), ...caption()}
    return {result: finishSend(bot, prepared, body)}
  }
}

/** A sticker's format, from its bytes: a .tgs is animated, a WebM a video sticker. */
const stickerFlags = (file: StoredFile): TgObject => ({
  is_animated: file.mime === 'application/x-tgsticker' || file.name?.endsWith('.tgs') === true,
  is_video: file.mime === 'video/webm' || file.name?.endsWith('.webm') === true,
})

export const sendPhoto = sendMedia('photo')
export const sendDocument = sendMedia('document')
export const sendVideo = sendMedia('video')
export const sendAnimation = sendMedia('animation')
export const sendAudio = sendMedia('audio')
export const sendVoice = sendMedia('voice')
export const sendVideoNote = sendMedia('video_note')
export const sendSticker = sendMedia('sticker')

/** A media_group_id: a decimal int64, as the server writes it (BA 4201). */
const newMediaGroupId = (): string => String(randomInt(1, 2 ** 47)) + String(randomInt(100000, 999999))

/**
 * sendMediaGroup (Client.cpp process_send_media_group_query, get_input_media): the items are read (`can't parse
 * InputMedia: …`), the chat and reply checked, then td's album rules (count, mixing, caption placement); a file that
 * fails is `failed to send message #N with the error message "…"`. One item is sent as an ordinary message, without
 * media_group_id.
 */
export const sendMediaGroup: Handler = async (bot, params) => {
  const value = jsonArg(required(params, 'media'), "can't parse media JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of InputMedia')
  const items = value.map((item) => {
    try {
      return readInputMedia(params, item, true)
    } catch (err) {
      throw badRequest(`can't parse InputMedia: ${errorText(err)}`)
    }
  })
  const prepared = prepareSend(bot, params)
  if (items.length === 0) throw badRequest('there are no messages to send')
  if (items.length > 10) throw badRequest('too many messages to send as an album')
  const types = new Set(items.map((i) => i.type))
  if (types.has('document') && types.size > 1) throw badRequest("document can't be mixed with other media types")
  if (types.has('audio') && types.size > 1) throw badRequest("audio can't be mixed with other media types")
  if (new Set(items.map((i) => i.showCaptionAboveMedia)).size > 1)
    throw badRequest('parameter show_caption_above_media must be the same for all messages')
  const files: Array<{file: StoredFile; thumbnail?: StoredFile; caption: TgObject}> = []
  for (const [i, item] of items.entries()) {
    try {
      const file = await resolveFile(bot, item.ref, item.type)
      applyAttributes(file, item.ref, item.attributes)
      const thumbnail = await thumbnailOf(bot, item.thumbnail)
      files.push({file, ...(thumbnail ? {thumbnail} : {}), caption: item.caption()})
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 400) throw err
      throw badRequest(`failed to send message #${i + 1} with the error message "${reasonOf(err)}"`)
    }
  }
  const group = items.length > 1 ? newMediaGroupId() : undefined
  const album = {...prepared, keyboard: undefined} // reply_markup is not supported in albums (BA 13389)
  const messages = items.map((item, i) => {
    const {file, thumbnail, caption} = files[i]
    const fields: TgObject =
      item.type === 'audio' ? {title: item.attributes.title, performer: item.attributes.performer} : {}
    const media = messageMedia(bot.files, item.type, file, {fields, ...(thumbnail ? {thumbnail} : {})})
    return finishSend(bot, album, {...media, ...caption}, group)
  })
  return {result: messages}
}

export const MEDIA_METHODS: Record<string, Handler> = {
  sendphoto: sendPhoto,
  senddocument: sendDocument,
  sendvideo: sendVideo,
  sendanimation: sendAnimation,
  sendaudio: sendAudio,
  sendvoice: sendVoice,
  sendvideonote: sendVideoNote,
  sendsticker: sendSticker,
  sendmediagroup: sendMediaGroup,
}
