/**
 * A user sends media through the control API: `POST /_emulator/bots/{token}/messages` as multipart/form-data, the
 * fields of the JSON form as form fields, `caption`, and exactly one file field named after the kind (photo,
 * document, video, audio, voice, animation, sticker, video note). The table's send_media runs it; answers
 * `{update_id, message}`.
 */
import {ACTIONS} from '../actions/index.js'
import {MEDIA_KINDS, isMediaKind} from '../media-kinds.js'
import {ControlError, type Ctx, only} from './route.js'

/** The form's fields: send_media's, but the kind and the file, which are the file field itself. */
const FIELDS = Object.keys(ACTIONS.send_media.params).filter((name) => name !== 'kind' && name !== 'file')

export function postMedia({emu, bot, body, files}: Ctx): unknown {
  if ('text' in body)
    throw new ControlError(400, 'a media message has no text: send its caption as the field "caption"')
  only(body, FIELDS)
  const names = [...(files?.keys() ?? [])]
  const kinds = names.filter(isMediaKind)
  if (names.length !== 1 || kinds.length !== 1)
    throw new ControlError(
      400,
      `send exactly one file, in a field named after its kind (${MEDIA_KINDS.join(', ')}); got ${
        names.length === 0 ? 'none' : names.join(', ')
      }`,
    )
  const kind = kinds[0]
  const file = files!.get(kind)!
  if (file.size === 0) throw new ControlError(400, `the ${kind} file is empty`)
  return emu.runAction(bot.token, 'send_media', {
    ...body,
    kind,
    file: {
      data: file.data,
      ...(file.filename ? {filename: file.filename} : {}),
      ...(file.mimeType ? {mime_type: file.mimeType} : {}),
    },
  })
}
