/**
 * The control port's request bodies, each declared once as a schema (valibot): the checks `bot trigger`, `bot replay`
 * and the session's control port (server.ts) run, in the order they run (the first failing one is the refusal), with
 * our own error and fix texts, and the TypeScript types derived from them (protocol.ts re-exports those). Pure: no I/O.
 *
 * What passes is still untrusted JSON where it comes from outside: an update is checked for its shape as an update
 * (one update type field, an object), not for every Telegram field, so it stays a plain JSON object here.
 */
import * as v from 'valibot'
import {MAX_EDIT_DEPTH, nestedDeeperThan} from '../lib/json-depth.js'
import {isJsonObject, type JsonObject} from '../lib/json-object.js'
import {checkWith, fields, type Refusal, refuse} from '../lib/refusal.js'
import {UPDATE_TYPES} from '../telegram/types.js'
import {FIXTURE_TYPES} from './fixtures.js'

/** Message text limit of the Bot API (4096 characters after entity parsing). */
export const MAX_TEXT = 4096
/** callback_data is 1-64 bytes. */
export const MAX_CALLBACK_DATA_BYTES = 64
/** A photo's bytes travel base64 in the request: at most 5 MB of image. */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024
/** The largest update_id a replay may carry: Telegram's are positive 32-bit integers (so are the synthetic ones). */
export const MAX_UPDATE_ID = 2_147_483_647

export {isJsonObject, objectOf, type JsonObject} from '../lib/json-object.js'

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value !== 0
}

const show = (value: unknown) => JSON.stringify(value)

/**
 * The one Update check of a session, for every update that comes from outside (`bot trigger update`, `bot replay`
 * and the inspector's Edit and replay, through the control port or the inspector): an object nested no deeper than
 * a real update ever is (MAX_EDIT_DEPTH, checked before anything else walks it), with exactly one update type field
 * (an object) besides update_id, and an update_id, when there is one, that is a positive 32-bit integer.
 */
export function updateObject(what = 'the update') {
  const types = (update: JsonObject) => Object.keys(update).filter((k) => k !== 'update_id')
  return v.pipe(
    v.custom<JsonObject>(
      isJsonObject,
      refuse(
        `${what} is not a JSON object.`,
        'Write one Update object, e.g. {"message": {…}} (update_id is set by the session).',
      ),
    ),
    v.check(
      (update) => !nestedDeeperThan(update, MAX_EDIT_DEPTH),
      refuse(
        `${what} is nested more than ${MAX_EDIT_DEPTH} levels deep.`,
        'Send an update shaped like a real one (the inspector shows them).',
      ),
    ),
    v.check(
      ({update_id: id}) =>
        id === undefined || (typeof id === 'number' && Number.isSafeInteger(id) && id > 0 && id <= MAX_UPDATE_ID),
      refuse<JsonObject>(
        (update) =>
          `${what} has update_id ${String(show(update.update_id)).slice(0, 40)}, which is not a positive 32-bit integer.`,
        `Leave update_id out (the session sets it) or give an integer from 1 to ${MAX_UPDATE_ID}.`,
      ),
    ),
    v.check(
      (update) => types(update).length === 1,
      refuse<JsonObject>((update) => {
        const found = types(update)
        return `${what} has ${found.length === 0 ? 'no update type field' : `${found.length} fields besides update_id (${found.join(', ')})`}; an update has exactly one.`
      }, 'Keep one of message, callback_query, edited_message, inline_query, … (plus update_id if you like).'),
    ),
    v.check(
      (update) => (UPDATE_TYPES as readonly string[]).includes(types(update)[0]),
      refuse<JsonObject>(
        (update) => `${what} has the field "${types(update)[0]}", which is not an update type.`,
        `Use one of: ${UPDATE_TYPES.join(', ')}.`,
      ),
    ),
    v.rawCheck(({dataset, addIssue}) => {
      if (!dataset.typed) return
      const type = types(dataset.value)[0]
      if (!isJsonObject(dataset.value[type]))
        addIssue({
          message: refuse(
            `"${type}" in ${what} is not an object.`,
            `Give ${type} as an object, as Telegram sends it.`,
          )({
            input: dataset.value,
          }),
        })
    }),
  )
}

/** The user of a message/callback/fixture request (--user). */
const userId = v.optional(
  v.custom<number>(
    (id) => isId(id) && id > 0,
    refuse((id) => `user id ${show(id)} is not a positive integer.`, 'Pass a user id like --user 1111.'),
  ),
)

/** The chat of a message/callback/fixture request (--chat): positive, a private chat; negative, a group. */
const chatId = v.optional(
  v.custom<number>(
    isId,
    refuse(
      (id) => `chat id ${show(id)} is not a non-zero integer.`,
      'Pass a positive id (a private chat) or a negative one (a group), e.g. --chat=-1001234567890.',
    ),
  ),
)

/** A private chat's id is its user's id. */
const privateChatIsItsUser = <T extends {chatId?: number; userId?: number}>() =>
  v.check<T, (issue: {input: T}) => string>(
    ({chatId, userId}) => chatId === undefined || userId === undefined || chatId < 0 || chatId === userId,
    refuse<T>(
      ({chatId, userId}) => `chat ${chatId} is a private chat, whose id is its user's id, but the user is ${userId}.`,
      'Leave --user out (the user is the chat), or use a negative --chat for a group.',
    ),
  )

const notAnObject = (what: string) => refuse(`${what} is not a JSON object.`, 'Send a JSON object.')

const messageRequest = v.pipe(
  fields(
    {
      kind: v.literal('message'),
      text: v.pipe(
        v.string(refuse('The message text is empty.', 'Give the text to send, e.g. `bot trigger message "/start"`.')),
        v.check(
          (text) => text.trim() !== '',
          refuse('The message text is empty.', 'Give the text to send, e.g. `bot trigger message "/start"`.'),
        ),
        v.maxLength(
          MAX_TEXT,
          refuse<string>(
            (text) => `The message text is ${text.length} characters long; Telegram messages hold at most ${MAX_TEXT}.`,
            'Send a shorter text.',
          ),
        ),
      ),
      userId,
      chatId,
    },
    notAnObject('The trigger request'),
  ),
  privateChatIsItsUser(),
)

const callbackDataFix = 'Give the callback_data of the button, e.g. `bot trigger callback like:42 --message-id 7`.'

/** Without messageId: the newest bot message in the chat with a button of that callback_data. */
const callbackRequest = v.pipe(
  fields(
    {
      kind: v.literal('callback'),
      data: v.pipe(
        v.string(refuse('The callback data is empty.', callbackDataFix)),
        v.minLength(1, refuse('The callback data is empty.', callbackDataFix)),
        v.check(
          (data) => Buffer.byteLength(data, 'utf8') <= MAX_CALLBACK_DATA_BYTES,
          refuse<string>(
            (data) =>
              `The callback data is ${Buffer.byteLength(data, 'utf8')} bytes long; Telegram's callback_data holds 1-${MAX_CALLBACK_DATA_BYTES} bytes.`,
            'Use the callback_data of a real button (at most 64 bytes).',
          ),
        ),
      ),
      messageId: v.optional(
        v.custom<number>(
          (id) => typeof id === 'number' && Number.isSafeInteger(id) && id > 0,
          refuse(
            (id) => `message id ${show(id)} is not a positive integer.`,
            'Pass the id of the message that carries the button, e.g. --message-id 7, or leave it out (the newest message with that button).',
          ),
        ),
      ),
      userId,
      chatId,
    },
    notAnObject('The trigger request'),
  ),
  privateChatIsItsUser(),
)

const updateRequest = fields({kind: v.literal('update'), update: updateObject()}, notAnObject('The trigger request'))

const badSets = refuse('The --set list is not a list of {path, value}.', 'Write --set path=value.')

/** One `--set path=value`, its value already read (fixtures.ts setValue). */
const fixtureSet = v.object(
  {
    path: v.pipe(
      v.array(v.pipe(v.string(badSets), v.regex(/^[A-Za-z0-9_]{1,64}$/, badSets)), badSets),
      v.minLength(1, badSets),
      v.maxLength(20, badSets),
    ),
    value: v.optional(v.unknown()),
  },
  badSets,
)

const noTemplateUpdate = refuse('The fixture file has no update object.', 'Write one Update (or {"update": {…}}).')

const fixtureType = v.picklist(
  FIXTURE_TYPES,
  refuse(
    (type) => `Unknown trigger type ${show(type)}.`,
    `Use one of: ${FIXTURE_TYPES.join(', ')} (\`bot trigger --list\`).`,
  ),
)

/** The fields of a fixture request checked before its file. */
const fixtureHead = {
  kind: v.literal('fixture'),
  /** A FIXTURE_TYPES name (photo, reaction, payment…). */
  type: fixtureType,
  /** Written into the template before it is filled. */
  sets: v.optional(v.pipe(v.array(fixtureSet, badSets), v.maxLength(100, badSets))),
  /** A template given as a file (`--file`) in place of the shipped one. */
  template: v.optional(
    fields(
      {
        update: v.custom<JsonObject>(isJsonObject, noTemplateUpdate),
        defaults: v.optional(
          v.custom<JsonObject>(
            isJsonObject,
            refuse('The fixture file\'s "defaults" is not an object.', 'Give defaults as an object.'),
          ),
        ),
      },
      noTemplateUpdate,
    ),
  ),
}

const notBase64 = refuse('The photo is not base64.', 'Give the file as bot trigger photo FILE.')

/** Read loosely first (the rest kept for the full check after it): a file goes with a photo only. */
const fixtureRequest = v.pipe(
  fields(
    {
      ...fixtureHead,
      file: v.optional(v.unknown()),
      userId: v.optional(v.unknown()),
      chatId: v.optional(v.unknown()),
    },
    notAnObject('The trigger request'),
  ),
  v.check(
    (r) => r.file === undefined || r.type === 'photo',
    refuse<{type: string}>(
      (r) => `A file goes with a photo, not a ${r.type}.`,
      'Leave the file out, or trigger a photo.',
    ),
  ),
  fields(
    {
      ...fixtureHead,
      /** photo: the image, base64. */
      file: v.optional(
        fields(
          {
            base64: v.pipe(
              v.string(notBase64),
              v.regex(/^[A-Za-z0-9+/]*={0,2}$/, notBase64),
              v.check(
                (base64) => (base64.length * 3) / 4 <= MAX_PHOTO_BYTES + 3,
                refuse(
                  `The photo is over ${MAX_PHOTO_BYTES / 1024 / 1024} MB.`,
                  'Send a smaller image (Telegram recompresses photos to a few hundred KB).',
                ),
              ),
            ),
            name: v.optional(v.string(refuse('The photo name is not a string.', 'Give a file name.'))),
          },
          notBase64,
        ),
      ),
      userId,
      chatId,
    },
    notAnObject('The trigger request'),
  ),
  privateChatIsItsUser(),
)

/** `POST /trigger`: what `bot trigger` (and `bot mcp`) ask a running session to deliver. */
export const triggerRequest = v.pipe(
  v.unknown(),
  v.check(
    isJsonObject,
    refuse(
      'The trigger request is not a JSON object.',
      'Send {"kind": "message", "text": "…"}, {"kind": "callback", …} or {"kind": "update", …}.',
    ),
  ),
  v.variant(
    'kind',
    [messageRequest, callbackRequest, updateRequest, fixtureRequest],
    refuse((kind) => `Unknown trigger kind ${show(kind)}.`, 'Use "message", "callback", "update" or "fixture".'),
  ),
)

export type TriggerRequest = v.InferOutput<typeof triggerRequest>
export type FixtureSet = v.InferOutput<typeof fixtureSet>

/** Validates a TriggerRequest from the wire (or the command line). */
export function checkTriggerRequest(value: unknown): {request: TriggerRequest} | Refusal {
  const checked = checkWith(triggerRequest, value)
  return 'output' in checked ? {request: checked.output} : checked
}

/** An update from outside as a JSON object, checked (see updateObject), or the refusal. */
export function readUpdateObject(value: unknown, what = 'the update'): {update: JsonObject} | Refusal {
  const checked = checkWith(updateObject(what), value)
  return 'output' in checked ? {update: checked.output} : checked
}

/** `POST /actions/{name}`: the action's input, one JSON object (its fields are the action table's to check). */
export const actionInput = v.custom<JsonObject>(
  isJsonObject,
  refuse('The action input is not a JSON object.', "Send the action's fields as one JSON object."),
)

/** The refusal for an update from outside (see updateObject), or undefined. */
export function checkUpdateObject(update: unknown, what = 'the update'): Refusal | undefined {
  const checked = checkWith(updateObject(what), update)
  return 'output' in checked ? undefined : checked
}

const replayFix = 'Send {"updateId": 123} or {"updateId": "last"}.'

/** `POST /replay`: the recorded update to deliver again (its update_id, or the newest), optionally edited. */
export const replayRequest = v.pipe(
  v.unknown(),
  v.check(isJsonObject, refuse('The replay request is not a JSON object.', replayFix)),
  fields(
    {
      updateId: v.custom<number | 'last'>(
        (id) => id === 'last' || (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0),
        refuse(
          (id) => `updateId ${show(id) ?? 'undefined'} is neither an update_id (a non-negative integer) nor "last".`,
          replayFix,
        ),
      ),
      update: v.optional(updateObject('the edited update')),
    },
    refuse('The replay request is not a JSON object.', replayFix),
  ),
)

export type ReplayRequest = v.InferOutput<typeof replayRequest>

/** The body of `POST /replay`, or the refusal. */
export function checkReplayRequest(value: unknown): ReplayRequest | Refusal {
  const checked = checkWith(replayRequest, value)
  return 'output' in checked ? checked.output : checked
}

const faultFix =
  'Send {"method": "sendMessage", "error_code": 429, "description": "Too Many Requests: retry after 5", "retry_after": 5}.'
const FAULT_FIELDS = ['method', 'error_code', 'description', 'retry_after', 'migrate_to_chat_id', 'times']
const faultInteger = (key: string) =>
  v.optional(
    v.custom<number>(
      Number.isSafeInteger,
      refuse((n) => `${key} ${show(n)} is not an integer.`, faultFix),
    ),
  )

/** `POST /faults` (offline only): the next `times` calls of `method` fail with this error (the emulator's failNext). */
export const faultRequest = v.pipe(
  v.custom<JsonObject>(isJsonObject, refuse('The fault is not a JSON object.', faultFix)),
  v.check(
    (f) => Object.keys(f).every((key) => FAULT_FIELDS.includes(key)),
    refuse<JsonObject>(
      (f) => `Unknown field "${Object.keys(f).find((key) => !FAULT_FIELDS.includes(key))}" in the fault.`,
      faultFix,
    ),
  ),
  fields(
    {
      method: v.custom<string>(
        (m) => typeof m === 'string' && /^[A-Za-z]{1,64}$/.test(m),
        refuse((m) => `method ${show(m) ?? 'undefined'} is not a Bot API method name.`, faultFix),
      ),
      error_code: v.custom<number>(
        (n) => typeof n === 'number' && Number.isInteger(n) && n >= 400 && n <= 599,
        refuse((n) => `error_code ${show(n) ?? 'undefined'} is not an HTTP error code (400-599).`, faultFix),
      ),
      description: v.custom<string>(
        (d) => typeof d === 'string' && d.length > 0 && d.length <= 1000,
        refuse('description must be the error text (1-1000 characters).', faultFix),
      ),
      retry_after: faultInteger('retry_after'),
      migrate_to_chat_id: faultInteger('migrate_to_chat_id'),
      times: v.pipe(
        faultInteger('times'),
        v.check(
          (n) => n === undefined || (n >= 1 && n <= 1000),
          refuse((n) => `times ${n} is not from 1 to 1000.`, faultFix),
        ),
      ),
    },
    refuse('The fault is not a JSON object.', faultFix),
  ),
)

export type FaultRequest = v.InferOutput<typeof faultRequest>

/** The body of `POST /faults`, or the refusal. */
export function checkFaultRequest(value: unknown): FaultRequest | Refusal {
  const checked = checkWith(faultRequest, value)
  return 'output' in checked ? checked.output : checked
}

const scriptFix = 'Send {"text": "<the chat script\'s YAML>", "file": "start.chat.yml"}.'
const scriptPath = (key: string) => v.optional(v.string(refuse(`${key} must be a string.`, scriptFix)))

/** `POST /script` (offline): a chat script's YAML, and the file it came from. */
export const scriptRequest = v.pipe(
  fields(
    {
      text: v.string(refuse('The script request has no text.', scriptFix)),
      file: scriptPath('file'),
      base_dir: scriptPath('base_dir'),
    },
    refuse('The script request has no text.', scriptFix),
  ),
)

export type ScriptRequest = v.InferOutput<typeof scriptRequest>

/** The body of `POST /script`, or the refusal. */
export function checkScriptRequest(value: unknown): ScriptRequest | Refusal {
  const checked = checkWith(scriptRequest, value)
  return 'output' in checked ? checked.output : checked
}
