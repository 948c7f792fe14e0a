/**
 * send* methods: the server's checks in its order (text, formatting, reply parameters, markup, chat, reply target,
 * keyboard contents, text limits), then a plausible Message, stored in the bot's message store.
 */
import {randomBytes} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {entitiesJson, formatText} from '../format/index.js'
import {chatOf, formatted, markupOf, now, parseJson, repliedMessage, replyTarget} from './message-params.js'
import type {Params, UploadedFile} from '../http/params.js'
import type {TgObject} from '../types.js'

/**
 * A new message from the bot in the chat of `chat_id`: `content()` runs after the chat and the reply target were
 * checked (td's checks come last); fields in the server's order.
 */
export function sendNew(bot: BotState, params: Params, content: () => TgObject, chat?: TgObject): TgObject {
  const reply = replyTarget(params)
  const markup = markupOf(params)
  const target = chat ?? chatOf(bot, params)
  const replied = repliedMessage(bot, target, reply)
  const keyboard = markup()
  const body = content()
  const message: TgObject = {
    message_id: bot.nextMessageId(target.id as number),
    from: bot.from,
    chat: target,
    date: now(),
    ...(replied ? {reply_to_message: replied} : {}),
    ...body,
    ...(keyboard ? {reply_markup: keyboard} : {}),
  }
  bot.storeMessage(message)
  return message
}

export const sendMessage: Handler = (bot, params) => {
  if ((params.get('text') ?? '') === '') throw badRequest('message text is empty')
  const text = formatted(bot, params, 'text')
  return {result: sendNew(bot, params, text)}
}

const fileId = (): string => randomBytes(24).toString('base64url')

function fileObject(params: Params, field: string, upload: UploadedFile | undefined): TgObject {
  const size = upload?.size ?? 1024
  return {
    ...(upload?.filename ? {file_name: upload.filename} : {}),
    ...(upload?.mimeType ? {mime_type: upload.mimeType} : {}),
    file_id: params.get(field)?.startsWith('attach://') || upload ? fileId() : (params.get(field) ?? fileId()),
    file_unique_id: randomBytes(8).toString('base64url'),
    file_size: size,
  }
}

/** sendPhoto, sendDocument, sendVideo…: the InputFile (upload, file_id or URL) is required; a formatted caption. */
function sendMedia(field: string, build: (file: TgObject) => unknown): Handler {
  return (bot, params) => {
    const upload = params.file(field)
    if (!upload && !params.get(field)) throw badRequest(`there is no ${field} in the request`)
    const caption = formatted(bot, params, 'caption')
    const file = fileObject(params, field, upload)
    return {result: sendNew(bot, params, () => ({[field]: build(file), ...caption()}))}
  }
}

export const sendPhoto = sendMedia('photo', (file) => {
  const {file_name: _n, mime_type: _m, ...rest} = file
  return [
    {...rest, width: 90, height: 90},
    {...rest, file_unique_id: randomBytes(8).toString('base64url'), width: 800, height: 800},
  ]
})
export const sendDocument = sendMedia('document', (file) => file)

const MEDIA_FIELDS: Record<string, string> = {
  sendaudio: 'audio',
  sendvideo: 'video',
  sendanimation: 'animation',
  sendvoice: 'voice',
  sendvideonote: 'video_note',
  sendsticker: 'sticker',
}

/** Any other send*: a message carrying what could be read from the parameters. */
export const sendOther: Handler = (bot, params, core, ctx) => {
  const media = MEDIA_FIELDS[ctx.method]
  if (media) return sendMedia(media, (file) => file)(bot, params, core, ctx)
  const content: TgObject = {}
  switch (ctx.method) {
    case 'sendlocation':
      content.location = {latitude: Number(params.get('latitude')), longitude: Number(params.get('longitude'))}
      break
    case 'senddice':
      content.dice = {emoji: params.get('emoji') || '🎲', value: 1 + Math.floor(Math.random() * 6)}
      break
    case 'sendcontact':
      content.contact = {phone_number: params.get('phone_number') ?? '', first_name: params.get('first_name') ?? ''}
      break
    case 'sendpoll':
      content.poll = {
        id: String(Date.now()),
        question: params.get('question') ?? '',
        options: ((parseJson(params.get('options'), 'options') as unknown[] | undefined) ?? []).map((o) => ({
          text: typeof o === 'string' ? o : ((o as {text?: string}).text ?? ''),
          voter_count: 0,
        })),
        total_voter_count: 0,
        is_closed: false,
        is_anonymous: true,
        type: 'regular',
        allows_multiple_answers: false,
      }
      break
    case 'sendmediagroup': {
      const items = parseJson(params.get('media'), 'media') as Array<TgObject> | undefined
      if (!Array.isArray(items) || items.length === 0) throw badRequest('media is empty')
      const captions = items.map((m) => captionOf(m))
      const chat = chatOf(bot, params)
      return {
        result: items.map((m, i) =>
          sendNew(
            bot,
            params,
            () => ({
              [m.type === 'photo' ? 'photo' : String(m.type ?? 'document')]: {file_id: fileId()},
              ...captions[i](),
            }),
            chat,
          ),
        ),
      }
    }
    case 'sendchataction':
      return sendChatAction(bot, params, core, ctx)
    default:
      if (params.get('text') !== undefined) content.text = params.get('text')
  }
  return {result: sendNew(bot, params, () => content)}
}

/** The caption of an InputMedia (`caption`, `parse_mode`, `caption_entities`), formatted like a message caption. */
function captionOf(media: TgObject): () => TgObject {
  if (typeof media.caption !== 'string' || media.caption === '') return () => ({})
  const finish = formatText({
    raw: media.caption,
    kind: 'caption',
    parseMode: typeof media.parse_mode === 'string' ? media.parse_mode : undefined,
    entities: media.caption_entities === undefined ? undefined : JSON.stringify(media.caption_entities),
  })
  return () => {
    const {text, entities} = finish()
    return text === ''
      ? {}
      : {caption: text, ...(entities.length > 0 ? {caption_entities: entitiesJson(entities)} : {})}
  }
}

const ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
])

export const sendChatAction: Handler = (bot, params) => {
  chatOf(bot, params)
  if (!ACTIONS.has(params.get('action') ?? '')) throw badRequest('wrong parameter action in request')
  return {result: true}
}
