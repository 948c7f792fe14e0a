/**
 * The kinds of media a user can send, each named as the message field that carries it (core.telegram.org/bots/api#message):
 * one list for the user's actions, the control API's file fields and the chat scripts' media steps.
 */
export const USER_MEDIA_KINDS = [
  'photo',
  'document',
  'video',
  'audio',
  'voice',
  'animation',
  'sticker',
  'video_note',
] as const

/** The kinds of media a user can send (a file field of the control API's POST …/messages is named after its kind). */
export type UserMediaKind = (typeof USER_MEDIA_KINDS)[number]

/** Whether `name` is one of USER_MEDIA_KINDS. */
export function isUserMediaKind(name: unknown): name is UserMediaKind {
  return USER_MEDIA_KINDS.some((kind) => kind === name)
}
