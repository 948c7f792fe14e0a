/**
 * A user sends media through the control API: `POST /_emulator/bots/{token}/messages` as multipart/form-data, the
 * fields of the JSON form as form fields, `caption`, and exactly one file field named after the kind (photo,
 * document, video, audio, voice, animation, sticker, video_note). Answers `{update_id, message}`.
 */
import type {UserMediaKind} from '../types.js'
import {USER_MEDIA_KINDS} from '../user/media.js'
import {ControlError, type Ctx, int, only, str} from './route.js'
import {readSender, SENDER_FIELDS} from './sender.js'

const FIELDS = [...SENDER_FIELDS, 'caption', 'emoji', 'duration', 'width', 'height', 'title', 'performer']
export function postMedia({emu, bot, body, files}: Ctx): unknown {
  if ('text' in body)
    throw new ControlError(400, 'a media message has no text: send its caption as the field "caption"')
  only(body, FIELDS)
  const names = [...(files?.keys() ?? [])]
  const kinds = names.filter((n) => (USER_MEDIA_KINDS as readonly string[]).includes(n))
  if (names.length !== 1 || kinds.length !== 1)
    throw new ControlError(
      400,
      `send exactly one file, in a field named after its kind (${USER_MEDIA_KINDS.join(', ')}); got ${
        names.length === 0 ? 'none' : names.join(', ')
      }`,
    )
  const kind = kinds[0] as UserMediaKind
  const file = files!.get(kind)!
  if (file.size === 0) throw new ControlError(400, `the ${kind} file is empty`)
  const sender = readSender(bot, body)
  const update = emu.sendUserMedia(bot.token, {
    kind,
    data: file.data,
    filename: file.filename,
    mimeType: file.mimeType,
    caption: str(body, 'caption'),
    emoji: str(body, 'emoji'),
    duration: int(body, 'duration', {min: 0}),
    width: int(body, 'width', {min: 0}),
    height: int(body, 'height', {min: 0}),
    title: str(body, 'title'),
    performer: str(body, 'performer'),
    ...sender,
  })
  return {update_id: update.update_id, message: update.message}
}
