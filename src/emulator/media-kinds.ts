/**
 * The kinds of media a message carries, each in a field of its own name (core.telegram.org/bots/api#message: photo,
 * document, video, audio, voice, animation, sticker, video_note), in that order. A file_id names one of these or a
 * thumbnail or profile photo (state/file-ids.ts); a user sends one (user/media.ts, and a file field of the control API is
 * named after it); a chat script names one.
 */
export const MEDIA_KINDS = [
  'photo',
  'document',
  'video',
  'audio',
  'voice',
  'animation',
  'sticker',
  'video_note',
] as const

/** One of MEDIA_KINDS. */
export type MediaKind = (typeof MEDIA_KINDS)[number]

/** Whether `name` is one of MEDIA_KINDS. */
export function isMediaKind(name: unknown): name is MediaKind {
  return MEDIA_KINDS.some((kind) => kind === name)
}
