/**
 * Media as the Bot API answers it, from stored files (Client.cpp JsonPhotoSize, JsonFile): a photo as its PhotoSize
 * array (90, 320, 800 and 1280 px boxes, each size smaller than the original, the original last), and Animation, Video,
 * Audio, Voice, VideoNote, Document and Sticker with every always-present field, in the server's key order: the ids
 * last, then file_size; a thumbnail twice, as `thumbnail` and the legacy `thumb`.
 */
import type {FileStore, StoredFile} from '../state/files.js'
import type {FileKind} from '../state/file-ids.js'
import type {TgObject} from '../types.js'

const BOXES = [90, 320, 800, 1280]

/** The sizes Telegram makes of a photo: each box smaller than the original, then the original (or the 1280 box). */
export function photoDimensions(width: number, height: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  const long = Math.max(width, height)
  for (const box of BOXES) {
    if (long <= box) {
      out.push([width, height])
      return out
    }
    const scale = box / long
    out.push([Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))])
  }
  return out
}

const ids = (file: StoredFile): TgObject => ({
  file_id: file.fileId,
  file_unique_id: file.uniqueId,
  ...(file.size > 0 ? {file_size: file.size} : {}),
})

export const photoSizeJson = (file: StoredFile): TgObject => ({
  ...ids(file),
  width: file.width ?? 0,
  height: file.height ?? 0,
})

/**
 * The PhotoSize array of a photo: the sizes made when the photo was stored (each its own file_id and
 * file_unique_id; they share the original's bytes, which the emulator does not scale).
 */
export function photoJson(files: FileStore, photo: StoredFile): TgObject[] {
  return (photo.sizes ?? [photo.fileId]).map((id) => files.get(id) ?? photo).map(photoSizeJson)
}

/** Store a photo and its sizes; returns the original, whose `sizes` lists them smallest first. */
export function storePhoto(files: FileStore, original: StoredFile): StoredFile {
  const dims = photoDimensions(original.width ?? 0, original.height ?? 0)
  const sizes = dims.map(([width, height], i) =>
    i === dims.length - 1 && width === original.width && height === original.height
      ? original
      : files.add('photo', {
          data: original.data,
          size: original.size,
          width,
          height,
          seed: original.uniqueId,
          variant: i + 1,
          ...(original.url ? {url: original.url} : {}),
        }),
  )
  const group = sizes.map((s) => s.fileId)
  for (const size of sizes) size.sizes = group
  original.sizes = group
  return original
}

export interface MediaExtras {
  /** Fields of the object that come from the call (title, performer, emoji, set_name…). */
  fields?: TgObject
  thumbnail?: StoredFile
}

const seconds = (file: StoredFile): number => Math.max(0, Math.round(file.duration ?? 0))

/** The object of a file of `kind`, with its thumbnail if any, in BA's key order. */
export function mediaJson(kind: FileKind, file: StoredFile, extras: MediaExtras = {}): TgObject {
  const thumb = extras.thumbnail ? photoSizeJson(extras.thumbnail) : undefined
  const thumbnail = thumb ? {thumbnail: thumb, thumb} : {}
  const name = file.name ? {file_name: file.name} : {}
  const mime = file.mime ? {mime_type: file.mime} : {}
  const f = extras.fields ?? {}
  switch (kind) {
    case 'animation':
      return {
        ...name,
        ...mime,
        duration: seconds(file),
        width: file.width ?? 0,
        height: file.height ?? 0,
        ...thumbnail,
        ...ids(file),
      }
    case 'video':
      return {
        duration: seconds(file),
        width: file.width ?? 0,
        height: file.height ?? 0,
        ...name,
        ...mime,
        ...thumbnail,
        ...ids(file),
      }
    case 'audio':
      return {
        duration: seconds(file),
        ...name,
        ...mime,
        ...(f.title ? {title: f.title} : {}),
        ...(f.performer ? {performer: f.performer} : {}),
        ...thumbnail,
        ...ids(file),
      }
    case 'voice':
      return {duration: seconds(file), ...mime, ...ids(file)}
    case 'video_note':
      return {duration: seconds(file), length: file.width ?? 0, ...thumbnail, ...ids(file)}
    case 'sticker':
      return {
        width: file.width ?? 512,
        height: file.height ?? 512,
        ...(f.emoji ? {emoji: f.emoji} : {}),
        ...(f.set_name ? {set_name: f.set_name} : {}),
        is_animated: f.is_animated === true,
        is_video: f.is_video === true,
        type: typeof f.type === 'string' ? f.type : 'regular',
        ...(f.custom_emoji_id ? {custom_emoji_id: f.custom_emoji_id} : {}),
        ...thumbnail,
        ...ids(file),
      }
    default:
      return {...name, ...mime, ...thumbnail, ...ids(file)}
  }
}

/** The Message fields of a media message: `photo` as its sizes, an animation also as `document` (BA 4219). */
export function messageMedia(files: FileStore, kind: FileKind, file: StoredFile, extras: MediaExtras = {}): TgObject {
  if (kind === 'photo') return {photo: photoJson(files, file)}
  const object = mediaJson(kind, file, extras)
  if (kind === 'animation') return {animation: object, document: mediaJson('document', file, extras)}
  return {[kind]: object}
}
