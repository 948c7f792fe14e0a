/**
 * Sticker sets the bot owns: createNewStickerSet, addStickerToSet, setStickerSetTitle, deleteStickerSet and what
 * getStickerSet answers for them (BA JsonStickerSet: name, title, sticker_type, contains_masks, stickers);
 * getCustomEmojiStickers' checks. Unknown sets are `STICKERSET_INVALID`, as on Telegram.
 */
import type {BotState} from '../state/bot.js'
import type {StickerSetState} from '../state/sticker-sets.js'
import type {Handler} from './core.js'
import {badRequest, errorText} from '../errors.js'
import type {Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {type FileRef, fileRef, resolveFile} from '../media/input.js'
import {mediaJson} from '../media/objects.js'
import {toInteger} from '../integer.js'
import {jsonArg, required} from './args.js'
import {isObject} from '../telegram.js'

/** The docs' rule: letters, digits, underscores; a letter first; no `__`; ends in `_by_<bot username>`; ≤ 64. */
function checkSetName(bot: BotState, name: string): void {
  const suffix = `_by_${String(bot.user.username).toLowerCase()}`
  if (
    name.length === 0 ||
    name.length > 64 ||
    !/^[A-Za-z][A-Za-z0-9_]*$/.test(name) ||
    name.includes('__') ||
    !name.toLowerCase().endsWith(suffix)
  )
    throw badRequest('invalid sticker set name is specified')
}

function userOf(bot: BotState, params: Params): number {
  const id = Math.max(0, toInteger(params.get('user_id') ?? ''))
  if (id === 0) throw badRequest('invalid user_id specified')
  if (!bot.users.known(id) && !bot.findChat(String(id))) throw badRequest('user not found')
  return id
}

/**
 * An InputSticker as BA get_input_sticker reads it: `sticker` (a file), `format` (static, animated, video; `auto`
 * only through sticker_format), `emoji_list` (1-20 emoji), `mask_position`, `keywords`. Errors are prefixed by the
 * caller.
 */
function readInputSticker(params: Params, value: unknown, defaultFormat: string): PendingSticker {
  if (!isObject(value)) throw new Error('InputSticker must be an Object')
  const o = value
  if (o.sticker !== undefined && typeof o.sticker !== 'string')
    throw new Error('Field "sticker" must be of type String')
  const ref = fileRef(params, '', typeof o.sticker === 'string' ? o.sticker : '')
  if (!ref) throw new Error('sticker not found')
  let format = defaultFormat
  if (o.format !== undefined) {
    if (typeof o.format !== 'string') throw new Error('Field "format" must be of type String')
    if (o.format !== '') format = o.format
  }
  if (format === '') throw new Error('Can\'t find field "format"')
  if (!['static', 'animated', 'video', 'auto'].includes(format)) throw new Error('Invalid sticker format specified')
  if (!('emoji_list' in o)) throw new Error('Can\'t find field "emoji_list"')
  const emoji = o.emoji_list
  if (!Array.isArray(emoji)) throw new Error('Field "emoji_list" must be of type Array')
  if (emoji.length === 0) throw new Error('emoji list must be non-empty')
  if (emoji.length > 20) throw new Error('too many emoji specified')
  const emojis = emoji.filter((e: unknown) => typeof e === 'string')
  if (emojis.length !== emoji.length) throw new Error('emoji must be a string')
  return {ref, emoji: emojis[0], format}
}

/** A sticker read from an InputSticker, before its file is resolved. */
interface PendingSticker {
  ref: NonNullable<FileRef>
  emoji: string
  format: string
}

/** The Sticker of the set, its file resolved (upload, this bot's file_id, URL). */
async function storeSticker(bot: BotState, pending: PendingSticker, set: StickerSetState): Promise<TgObject> {
  const file = await resolveFile(bot, pending.ref, 'sticker')
  const fields = {
    emoji: pending.emoji,
    set_name: set.name,
    is_animated: pending.format === 'animated',
    is_video: pending.format === 'video',
    type: set.stickerType,
    ...(set.stickerType === 'custom_emoji'
      ? {custom_emoji_id: String(5_000_000_000_000_000_000n + BigInt(bot.stickerSerial++))}
      : {}),
  }
  return mediaJson('sticker', file, {fields})
}

/** `can't parse InputSticker: <why>` for an item the reader refused. */
function parsedSticker(params: Params, value: unknown, format: string): PendingSticker {
  try {
    return readInputSticker(params, value, format)
  } catch (err) {
    throw badRequest(`can't parse InputSticker: ${errorText(err)}`)
  }
}

const STICKER_TYPES: ReadonlySet<string> = new Set<StickerSetState['stickerType']>(['regular', 'mask', 'custom_emoji'])
const isStickerType = (type: string): type is StickerSetState['stickerType'] => STICKER_TYPES.has(type)

const createNewStickerSet: Handler = async (bot, params) => {
  userOf(bot, params)
  const name = params.get('name') ?? ''
  const title = params.get('title') ?? ''
  const items = jsonArg(params.get('stickers') ?? '', "can't parse stickers JSON object")
  if (!Array.isArray(items)) throw badRequest('expected an Array of InputSticker')
  if (items.length > 50) throw badRequest('too many stickers specified')
  const type = params.get('sticker_type') || 'regular'
  if (!isStickerType(type)) throw badRequest('unsupported sticker type specified')
  const set: StickerSetState = {name, title, stickerType: type, stickers: []}
  const format = params.get('sticker_format') ?? ''
  const pending = items.map((item) => parsedSticker(params, item, format))
  checkSetName(bot, name)
  if (bot.stickerSets.get(name)) throw badRequest('sticker set name is already occupied')
  for (const p of pending) set.stickers.push(await storeSticker(bot, p, set))
  bot.stickerSets.add(set)
  return {result: true}
}

function setOf(bot: BotState, params: Params): StickerSetState {
  const set = bot.stickerSets.get(params.get('name') ?? '')
  if (!set) throw badRequest('STICKERSET_INVALID')
  return set
}

const addStickerToSet: Handler = async (bot, params) => {
  userOf(bot, params)
  const set = setOf(bot, params)
  const item = jsonArg(params.get('sticker') ?? '', "can't parse sticker JSON object")
  const pending = parsedSticker(params, item, '')
  if (set.stickers.length >= (set.stickerType === 'custom_emoji' ? 200 : 120)) throw badRequest('STICKERS_TOO_MUCH')
  set.stickers.push(await storeSticker(bot, pending, set))
  return {result: true}
}

const setStickerSetTitle: Handler = (bot, params) => {
  const set = setOf(bot, params)
  set.title = params.get('title') ?? ''
  return {result: true}
}

const deleteStickerSet: Handler = (bot, params) => {
  if (!bot.stickerSets.delete(params.get('name') ?? '')) throw badRequest('STICKERSET_INVALID')
  return {result: true}
}

/** BA JsonStickerSet's keys, in its order. */
function stickerSetJson(set: StickerSetState): TgObject {
  return {
    name: set.name,
    title: set.title,
    sticker_type: set.stickerType,
    contains_masks: set.stickerType === 'mask',
    stickers: set.stickers,
  }
}

const getStickerSet: Handler = (bot, params) => ({result: stickerSetJson(setOf(bot, params))})

const getCustomEmojiStickers: Handler = (bot, params) => {
  const value = jsonArg(required(params, 'custom_emoji_ids'), "can't parse custom emoji identifiers JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of custom emoji identifiers')
  const ids = value.map((id) => {
    if (typeof id !== 'string') throw badRequest('custom emoji identifier must be of type String')
    if (!/^-?\d{1,19}$/.test(id.trim())) throw badRequest('invalid custom emoji identifier specified')
    return id.trim()
  })
  const found: TgObject[] = []
  for (const id of ids) {
    for (const set of bot.stickerSets.values()) {
      const sticker = set.stickers.find((s) => s.custom_emoji_id === id)
      if (sticker) found.push(sticker)
    }
  }
  return {result: found}
}

export const STICKER_METHODS: Record<string, Handler> = {
  createnewstickerset: createNewStickerSet,
  addstickertoset: addStickerToSet,
  setstickersettitle: setStickerSetTitle,
  deletestickerset: deleteStickerSet,
  getstickerset: getStickerSet,
  getcustomemojistickers: getCustomEmojiStickers,
}
