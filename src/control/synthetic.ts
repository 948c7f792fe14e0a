/**
 * Synthetic updates for `bot trigger`: realistic Telegram Update objects (field order and
 * shapes as the Bot API server emits them, Client.cpp JsonMessage, JsonCallbackQuery) for a message or a button press
 * by a user, and the checks a trigger request or a hand-written update must pass before anything
 * is delivered. Pure functions: no I/O.
 */
import {MAX_EDIT_DEPTH, nestedDeeperThan} from '../lib/json-depth.js'
import {MESSAGE_UPDATE_TYPES, UPDATE_TYPES} from '../telegram/types.js'
import {FIXTURE_TYPES, isFixtureType} from './fixtures.js'
import type {FixtureSet, Refusal, TriggerRequest} from './protocol.js'

/** The default user of a trigger (a private chat with them unless a chat is given). */
export const DEFAULT_USER_ID = 1111

/**
 * update_ids of synthetic updates (`bot trigger` in webhook mode) count down from the largest
 * positive 32-bit integer, 2147483647. Telegram numbers a bot's updates upwards from where its
 * counter stands, far below that, so within a session a synthetic id never equals a real one
 * (`GET /api/updates/{id}` and `bot replay ID` name one update), and it is still a valid
 * positive 32-bit update_id for every framework.
 */
export const SYNTHETIC_UPDATE_ID_TOP = 2_147_483_647

/** The next synthetic update_id below `previous` (the top for the first) that `taken` does not hold. */
export function nextSyntheticUpdateId(
  previous: number | undefined,
  taken: (id: number) => boolean = () => false,
): number {
  let id = previous === undefined ? SYNTHETIC_UPDATE_ID_TOP : previous - 1
  while (id > 1 && taken(id)) id--
  return id
}

/**
 * The update with its own date (`date`, and `edit_date` when there is one) set to now: a trigger or
 * a replay is a new update, and Telegram never delivers one dated more than a day ago (the emulator
 * drops it, as Telegram does). Nested objects (a reply, the message under a button) keep theirs.
 */
export function withCurrentDate(update: Record<string, unknown>, now = Date.now()): Record<string, unknown> {
  const {type, content} = updateContent(update)
  if (type === undefined || !content) return update
  const seconds = Math.floor(now / 1000)
  const dated: Record<string, unknown> = {...content}
  if (typeof dated.date === 'number') dated.date = seconds
  if (typeof dated.edit_date === 'number') dated.edit_date = seconds
  return {...update, [type]: dated}
}

/** An update's type (its one field besides update_id) and that field's object, when it is one. */
export function updateContent(update: Record<string, unknown>): {type?: string; content?: Record<string, unknown>} {
  const type = Object.keys(update).find((k) => k !== 'update_id')
  const content = type === undefined ? undefined : update[type]
  return {type, ...(isPlainObject(content) ? {content} : {})}
}

/**
 * Update types Telegram never queues once their own (edit) date is more than a day old (Client.cpp add_message_update:
 * message_date + 86400).
 */
const DATED_TYPES = new Set<string>(MESSAGE_UPDATE_TYPES)
const DAY_SECONDS = 86_400

/** Why Telegram (and the emulator) would not deliver this update: dated more than a day ago, else undefined. */
export function expiredDate(update: Record<string, unknown>, now = Date.now()): number | undefined {
  const {type, content} = updateContent(update)
  if (type === undefined || !DATED_TYPES.has(type) || !content) return undefined
  const date = typeof content.edit_date === 'number' ? content.edit_date : content.date
  return typeof date === 'number' && (date + DAY_SECONDS) * 1000 <= now ? date : undefined
}

/** Message text limit of the Bot API (4096 characters after entity parsing). */
export const MAX_TEXT = 4096
/** callback_data is 1-64 bytes. */
export const MAX_CALLBACK_DATA_BYTES = 64

export type {Refusal} from './protocol.js'

/** Supergroup ids are -100xxxxxxxxxx (below -10^12); other negative ids are basic groups. */
const SUPERGROUP_BELOW = -1_000_000_000_000

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value !== 0
}

/** The user and chat of a message/callback request: the user defaults to the chat (private) or 1111. */
export function partiesOf(request: {chatId?: number; userId?: number}): {userId: number; chatId: number} {
  const userId =
    request.userId ?? (request.chatId !== undefined && request.chatId > 0 ? request.chatId : DEFAULT_USER_ID)
  return {userId, chatId: request.chatId ?? userId}
}

function checkParties(request: Record<string, unknown>): Refusal | undefined {
  if (request.userId !== undefined && (!isId(request.userId) || request.userId < 0))
    return {
      error: `user id ${JSON.stringify(request.userId)} is not a positive integer.`,
      fix: 'Pass a user id like --user 1111.',
    }
  if (request.chatId !== undefined && !isId(request.chatId))
    return {
      error: `chat id ${JSON.stringify(request.chatId)} is not a non-zero integer.`,
      fix: 'Pass a positive id (a private chat) or a negative one (a group), e.g. --chat=-1001234567890.',
    }
  const chatId = request.chatId as number | undefined
  const userId = request.userId as number | undefined
  if (chatId !== undefined && userId !== undefined && chatId > 0 && chatId !== userId)
    return {
      error: `chat ${chatId} is a private chat, whose id is its user's id, but the user is ${userId}.`,
      fix: 'Leave --user out (the user is the chat), or use a negative --chat for a group.',
    }
  return undefined
}

/** The largest update_id a replay may carry: Telegram's are positive 32-bit integers (so are the synthetic ones). */
export const MAX_UPDATE_ID = SYNTHETIC_UPDATE_ID_TOP

/**
 * The one Update check of a session, for every update that comes from outside (`bot trigger
 * update`, `bot replay` and the inspector's Edit and replay, through the control port or the
 * inspector): an object nested no deeper than a real update ever is (MAX_EDIT_DEPTH, checked
 * before anything else walks it), with exactly one update type field (an object) besides
 * update_id, and an update_id, when there is one, that is a positive 32-bit integer. Returns the
 * refusal, or undefined.
 */
export function checkUpdateObject(update: unknown, what = 'the update'): Refusal | undefined {
  if (!isPlainObject(update))
    return {
      error: `${what} is not a JSON object.`,
      fix: 'Write one Update object, e.g. {"message": {…}} (update_id is set by the session).',
    }
  if (nestedDeeperThan(update, MAX_EDIT_DEPTH))
    return {
      error: `${what} is nested more than ${MAX_EDIT_DEPTH} levels deep.`,
      fix: 'Send an update shaped like a real one (the inspector shows them).',
    }
  const id = update.update_id
  if (id !== undefined && !(Number.isSafeInteger(id) && (id as number) > 0 && (id as number) <= MAX_UPDATE_ID))
    return {
      error: `${what} has update_id ${String(JSON.stringify(id)).slice(0, 40)}, which is not a positive 32-bit integer.`,
      fix: `Leave update_id out (the session sets it) or give an integer from 1 to ${MAX_UPDATE_ID}.`,
    }
  const types = Object.keys(update).filter((k) => k !== 'update_id')
  if (types.length !== 1)
    return {
      error: `${what} has ${types.length === 0 ? 'no update type field' : `${types.length} fields besides update_id (${types.join(', ')})`}; an update has exactly one.`,
      fix: 'Keep one of message, callback_query, edited_message, inline_query, … (plus update_id if you like).',
    }
  const type = types[0]
  if (!(UPDATE_TYPES as readonly string[]).includes(type))
    return {
      error: `${what} has the field "${type}", which is not an update type.`,
      fix: `Use one of: ${UPDATE_TYPES.join(', ')}.`,
    }
  if (!isPlainObject(update[type]))
    return {error: `"${type}" in ${what} is not an object.`, fix: `Give ${type} as an object, as Telegram sends it.`}
  return undefined
}

/** Validates a TriggerRequest from the wire (or the command line). */
export function checkTriggerRequest(value: unknown): {request: TriggerRequest} | Refusal {
  if (!isPlainObject(value))
    return {
      error: 'The trigger request is not a JSON object.',
      fix: 'Send {"kind": "message", "text": "…"}, {"kind": "callback", …} or {"kind": "update", …}.',
    }
  const kind = value.kind
  if (kind === 'message') {
    const text = value.text
    if (typeof text !== 'string' || text.trim() === '')
      return {error: 'The message text is empty.', fix: 'Give the text to send, e.g. `bot trigger message "/start"`.'}
    if (text.length > MAX_TEXT)
      return {
        error: `The message text is ${text.length} characters long; Telegram messages hold at most ${MAX_TEXT}.`,
        fix: 'Send a shorter text.',
      }
    const bad = checkParties(value)
    if (bad) return bad
    return {
      request: {kind, text, chatId: value.chatId as number | undefined, userId: value.userId as number | undefined},
    }
  }
  if (kind === 'callback') {
    const data = value.data
    if (typeof data !== 'string' || data === '')
      return {
        error: 'The callback data is empty.',
        fix: 'Give the callback_data of the button, e.g. `bot trigger callback like:42 --message-id 7`.',
      }
    const bytes = Buffer.byteLength(data, 'utf8')
    if (bytes > MAX_CALLBACK_DATA_BYTES)
      return {
        error: `The callback data is ${bytes} bytes long; Telegram's callback_data holds 1-${MAX_CALLBACK_DATA_BYTES} bytes.`,
        fix: 'Use the callback_data of a real button (at most 64 bytes).',
      }
    const messageId = value.messageId
    if (
      messageId !== undefined &&
      (typeof messageId !== 'number' || !Number.isSafeInteger(messageId) || messageId <= 0)
    )
      return {
        error: `message id ${JSON.stringify(messageId)} is not a positive integer.`,
        fix: 'Pass the id of the message that carries the button, e.g. --message-id 7, or leave it out (the newest message with that button).',
      }
    const bad = checkParties(value)
    if (bad) return bad
    return {
      request: {
        kind,
        data,
        ...(messageId !== undefined ? {messageId} : {}),
        chatId: value.chatId as number | undefined,
        userId: value.userId as number | undefined,
      },
    }
  }
  if (kind === 'fixture') return checkFixtureRequest(value)
  if (kind === 'update') {
    const bad = checkUpdateObject(value.update)
    if (bad) return bad
    return {request: {kind, update: value.update as Record<string, unknown>}}
  }
  return {
    error: `Unknown trigger kind ${JSON.stringify(kind)}.`,
    fix: 'Use "message", "callback", "update" or "fixture".',
  }
}

/** A photo's bytes travel base64 in the request: at most 5 MB of image. */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024

function checkFixtureRequest(value: Record<string, unknown>): {request: TriggerRequest} | Refusal {
  const type = value.type
  if (typeof type !== 'string' || !isFixtureType(type))
    return {
      error: `Unknown trigger type ${JSON.stringify(type)}.`,
      fix: `Use one of: ${FIXTURE_TYPES.join(', ')} (\`bot trigger --list\`).`,
    }
  const sets = value.sets
  if (
    sets !== undefined &&
    (!Array.isArray(sets) ||
      sets.length > 100 ||
      sets.some(
        (s) =>
          !isPlainObject(s) ||
          !Array.isArray(s.path) ||
          s.path.length === 0 ||
          s.path.length > 20 ||
          s.path.some((p: unknown) => typeof p !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(p)),
      ))
  )
    return {error: 'The --set list is not a list of {path, value}.', fix: 'Write --set path=value.'}
  const template = value.template
  if (template !== undefined) {
    if (!isPlainObject(template) || !isPlainObject(template.update))
      return {error: 'The fixture file has no update object.', fix: 'Write one Update (or {"update": {…}}).'}
    if (template.defaults !== undefined && !isPlainObject(template.defaults))
      return {error: 'The fixture file\'s "defaults" is not an object.', fix: 'Give defaults as an object.'}
  }
  const file = value.file
  if (file !== undefined) {
    if (type !== 'photo')
      return {error: `A file goes with a photo, not a ${type}.`, fix: 'Leave the file out, or trigger a photo.'}
    if (!isPlainObject(file) || typeof file.base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64))
      return {error: 'The photo is not base64.', fix: 'Give the file as bot trigger photo FILE.'}
    if ((file.base64.length * 3) / 4 > MAX_PHOTO_BYTES + 3)
      return {
        error: `The photo is over ${MAX_PHOTO_BYTES / 1024 / 1024} MB.`,
        fix: 'Send a smaller image (Telegram recompresses photos to a few hundred KB).',
      }
    if (file.name !== undefined && typeof file.name !== 'string')
      return {error: 'The photo name is not a string.', fix: 'Give a file name.'}
  }
  const bad = checkParties(value)
  if (bad) return bad
  return {
    request: {
      kind: 'fixture',
      type,
      ...(sets !== undefined ? {sets: sets as FixtureSet[]} : {}),
      ...(template !== undefined ? {template: template as {update: Record<string, unknown>}} : {}),
      ...(file !== undefined ? {file: file as {base64: string; name?: string}} : {}),
      chatId: value.chatId as number | undefined,
      userId: value.userId as number | undefined,
    },
  }
}

export function user(id: number): Record<string, unknown> {
  return {id, is_bot: false, first_name: 'Test', last_name: 'User', username: `user${id}`, language_code: 'en'}
}

export function chat(chatId: number, userId: number): Record<string, unknown> {
  if (chatId > 0) return {id: chatId, first_name: 'Test', last_name: 'User', username: `user${userId}`, type: 'private'}
  const supergroup = chatId < SUPERGROUP_BELOW
  return {id: chatId, title: supergroup ? 'Test supergroup' : 'Test group', type: supergroup ? 'supergroup' : 'group'}
}

/** A leading /command (with an optional @botname), as Telegram marks it: a bot_command entity. */
const COMMAND = /^\/[a-zA-Z0-9_]{1,64}(?:@[a-zA-Z0-9_]{3,32})?(?![a-zA-Z0-9_/<>@])/

export function commandEntity(text: string): {offset: number; length: number; type: 'bot_command'} | undefined {
  const m = COMMAND.exec(text)
  return m ? {offset: 0, length: m[0].length, type: 'bot_command'} : undefined
}

/** Telegram's chat_instance: a signed 64-bit number as a string, stable per chat. */
export function chatInstance(chatId: number): string {
  const n =
    (BigInt(Math.abs(chatId)) * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 9_223_372_036_854_775_807n
  return (chatId > 0 ? '-' : '') + n.toString()
}

/** A callback query id as Telegram makes them: a 64-bit number as a string, the user's id in its high bits. */
export function callbackQueryId(userId: number, updateId: number): string {
  return `${BigInt(userId) * 4_294_967_296n + BigInt(updateId % 4_294_967_296)}`
}

export interface SyntheticOptions {
  updateId: number
  /** Clock in ms (default Date.now()). */
  now?: number
  /** message_id of a synthetic message (default derived from the update id). */
  messageId?: number
  /** The bot, as the author of the message a button belongs to. */
  bot?: {id: number; first_name?: string; username?: string}
  /** The user and chat as the session saw them (else made up from the ids). */
  user?: Record<string, unknown>
  chat?: Record<string, unknown>
  /** The pressed message as the bot's call returned it (else made up from its id). */
  message?: Record<string, unknown>
}

/**
 * A realistic Update for a trigger request: `message` (text, a bot_command entity for a leading
 * /command) or `callback_query` (a press of a button under the bot's message `messageId`) from
 * the user (default 1111) in the chat (default: the private chat with that user). An `update`
 * request passes through with its update_id replaced (first, as Telegram orders it) and its own
 * date set to now (withCurrentDate).
 * Throws a TypeError for a request checkTriggerRequest refuses.
 */
export function syntheticUpdate(request: TriggerRequest, o: SyntheticOptions): Record<string, unknown> {
  const checked = checkTriggerRequest(request)
  if ('error' in checked) throw new TypeError(checked.error)
  const r = checked.request
  const date = Math.floor((o.now ?? Date.now()) / 1000)
  if (r.kind === 'update') {
    const {update_id: _ignored, ...rest} = withCurrentDate(r.update, o.now)
    return {update_id: o.updateId, ...rest}
  }
  if (r.kind === 'fixture') throw new TypeError('a fixture is filled by the session (fixtures.ts), not here')
  const {userId, chatId} = partiesOf(r)
  const from = o.user && o.user.id === userId ? o.user : user(userId)
  const where = o.chat && o.chat.id === chatId ? o.chat : chat(chatId, userId)
  if (r.kind === 'message') {
    const entity = commandEntity(r.text)
    const message: Record<string, unknown> = {
      message_id: o.messageId ?? Math.max(1, o.updateId % 1_000_000),
      from,
      chat: where,
      date,
      text: r.text,
    }
    if (entity) message.entities = [entity]
    return {update_id: o.updateId, message}
  }
  if (o.message)
    return {
      update_id: o.updateId,
      callback_query: {
        id: callbackQueryId(userId, o.updateId),
        from,
        message: o.message,
        chat_instance: chatInstance(chatId),
        data: r.data,
      },
    }
  const message: Record<string, unknown> = {message_id: r.messageId ?? 1}
  if (o.bot)
    message.from = {
      id: o.bot.id,
      is_bot: true,
      first_name: o.bot.first_name ?? 'Bot',
      ...(o.bot.username ? {username: o.bot.username} : {}),
    }
  message.chat = where
  message.date = date
  return {
    update_id: o.updateId,
    callback_query: {
      id: callbackQueryId(userId, o.updateId),
      from,
      message,
      chat_instance: chatInstance(chatId),
      data: r.data,
    },
  }
}
