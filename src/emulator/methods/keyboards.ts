/**
 * reply_markup as the server reads it (Client.cpp get_reply_markup, get_keyboard_button, get_inline_keyboard_button):
 * the JSON checks of the Bot API server with its exact texts, then td's checks of an inline keyboard (button URLs, the
 * silent cut to 12 buttons per row and 300 in all, empty buttons and rows dropped) and the server's BUTTON_DATA_INVALID
 * for callback_data over 64 bytes.
 */
import {badRequest, errorText} from '../errors.js'
import {checkLink, checkWebAppLink, linkRefusal, linkUserId} from '../format/links.js'
import type {TgObject} from '../types.js'
import {ADMINISTRATOR_RIGHTS} from '../state/members.js'
import {integerFieldText, tdIntegerFieldText} from '../json.js'
import {jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/** What a markup becomes: an inline keyboard (stored on the message and answered back), or anything else. */
export type Markup = {inline: TgObject[][]; forceReply?: true} | {other: true} | undefined

const MAX_PER_ROW = 12
const MAX_BUTTONS = 300
const MAX_CALLBACK_DATA = 64

/** The action fields of an InlineKeyboardButton, in the order the server tries them. */
const ACTIONS = [
  'url',
  'callback_data',
  'callback_game',
  'pay',
  'switch_inline_query',
  'switch_inline_query_chosen_chat',
  'switch_inline_query_current_chat',
  'login_url',
  'web_app',
  'copy_text',
] as const

const buttonError = (what: string, message: string): Error => badRequest(`can't parse ${what} button: ${message}`)

function stringField(o: TgObject, name: string, what: string, required: boolean): string | undefined {
  if (!(name in o)) {
    if (required) throw buttonError(what, `Can't find field "${name}"`)
    return undefined
  }
  const v = o[name]
  if (typeof v === 'string') return v
  if (typeof v === 'number') return integerFieldText(o, name) ?? String(v) // its literal (get_*_string_field)
  throw buttonError(what, `Field "${name}" must be of type String`)
}

/** td get_optional_bool_field: a present field must be a Boolean. */
function boolField(o: TgObject, name: string, what: string): boolean {
  if (!(name in o)) return false
  const v = o[name]
  if (typeof v !== 'boolean') throw buttonError(what, `Field "${name}" must be of type Boolean`)
  return v
}

/** td get_optional_int_field / get_required_int_field / get_optional_long_field (json.ts tdIntegerFieldText). */
function integerField(o: TgObject, name: string, what: string, bits: 32 | 64, required = false): string | undefined {
  try {
    return tdIntegerFieldText(o, name, bits, required)
  } catch (err) {
    throw buttonError(what, errorText(err))
  }
}

/**
 * What a button of either keyboard starts with (Client.cpp get_keyboard_button, get_inline_keyboard_button): `text`,
 * `icon_custom_emoji_id` (a long) and `style` (get_button_style: default, primary, danger or success, any case).
 */
function buttonHead(o: TgObject, what: string): string {
  const text = stringField(o, 'text', what, true)!
  integerField(o, 'icon_custom_emoji_id', what, 64)
  const style = (stringField(o, 'style', what, false) ?? '').toLowerCase()
  if (!['', 'default', 'primary', 'danger', 'success'].includes(style))
    throw buttonError(what, 'invalid button style specified')
  return text
}

/** get_chat_administrator_rights (Client.cpp): an Object of optional Booleans. */
function administratorRights(value: unknown, what: string): void {
  if (!isObject(value)) throw buttonError(what, 'ChatAdministratorRights must be an Object')
  for (const name of [...ADMINISTRATOR_RIGHTS, 'is_anonymous']) boolField(value, name, what)
}

function objectField(o: TgObject, name: string, what: string): TgObject {
  const v = o[name]
  if (!isObject(v)) throw buttonError(what, `Field "${name}" must be of type Object`)
  return v
}

/** One inline button as the server reads it: `{text, <its action>}`. */
function inlineButton(value: unknown): TgObject {
  const what = 'inline keyboard'
  if (!isObject(value)) throw buttonError(what, 'InlineKeyboardButton must be an Object')
  const o = value
  const text = buttonHead(o, what)
  const url = stringField(o, 'url', what, false)
  if (url) return {text, url}
  const data = stringField(o, 'callback_data', what, false)
  if (data) return {text, callback_data: data}
  for (const action of ACTIONS.slice(2)) {
    if (!(action in o)) continue
    if (action === 'switch_inline_query' || action === 'switch_inline_query_current_chat') {
      return {text, [action]: stringField(o, action, what, true)}
    }
    if (
      action === 'login_url' ||
      action === 'web_app' ||
      action === 'copy_text' ||
      action === 'switch_inline_query_chosen_chat'
    ) {
      const inner = objectField(o, action, what)
      if (action !== 'switch_inline_query_chosen_chat')
        stringField(inner, action === 'copy_text' ? 'text' : 'url', what, true)
      else {
        stringField(inner, 'query', what, false)
        for (const name of ['allow_user_chats', 'allow_bot_chats', 'allow_group_chats', 'allow_channel_chats'])
          boolField(inner, name, what)
      }
      if (action === 'login_url') {
        stringField(inner, 'bot_username', what, false)
        boolField(inner, 'request_write_access', what)
        stringField(inner, 'forward_text', what, false)
        const username = String(inner.bot_username ?? '').replace(/^@/, '')
        if ('bot_username' in inner && (username === '' || !/^[A-Za-z0-9_]+$/.test(username))) {
          throw buttonError(what, 'LoginUrl bot username is invalid')
        }
      }
      return {text, [action]: inner}
    }
    return {text, [action]: o[action]}
  }
  throw buttonError(what, 'Text buttons are unallowed in the inline keyboard')
}

/**
 * Bot API 10.3: a button with `disabled` (a DisabledButton, an empty object) does nothing. It needs no action, and
 * an action it has is kept (not settled: whether Telegram keeps it).
 */
function inlineButtonOrDisabled(value: unknown): TgObject {
  if (!isObject(value) || value.disabled === undefined) return inlineButton(value)
  const o = value
  if (!isObject(o.disabled)) throw buttonError('inline keyboard', 'Field "disabled" must be of type Object')
  const {disabled: _disabled, ...rest} = o
  const button = ACTIONS.some((a) => a in rest) ? inlineButton(rest) : {text: buttonHead(rest, 'inline keyboard')}
  return {...button, disabled: {}}
}

/**
 * One reply keyboard button as Client.cpp get_keyboard_button and get_keyboard_button_type read it: the head, then
 * the first type it has (request_phone_number / request_contact, request_location, request_poll, web_app,
 * request_users or request_user, request_chat, request_managed_bot), each object's fields with td's texts.
 */
function keyboardButton(value: unknown): void {
  const what = 'keyboard'
  if (typeof value === 'string') return
  if (!isObject(value)) {
    throw buttonError(what, 'KeyboardButton must be a String or an Object')
  }
  const o = value
  buttonHead(o, what)
  if (boolField(o, 'request_phone_number', what) || boolField(o, 'request_contact', what)) return
  if (boolField(o, 'request_location', what)) return
  if ('request_poll' in o) {
    stringField(objectField(o, 'request_poll', what), 'type', what, false)
    return
  }
  if ('web_app' in o) {
    const url = stringField(objectField(o, 'web_app', what), 'url', what, true)!
    // td ReplyMarkup.cpp get_keyboard_button: "Keyboard button Web App " + check_link's error
    const checked = checkWebAppLink(url)
    if ('error' in checked) throw badRequest(`keyboard button Web App ${linkRefusal(url, checked.error)}`)
    return
  }
  if ('request_users' in o || 'request_user' in o) {
    const request = objectField(o, 'request_users' in o ? 'request_users' : 'request_user', what)
    integerField(request, 'request_id', what, 32, true)
    boolField(request, 'user_is_bot', what)
    boolField(request, 'user_is_premium', what)
    integerField(request, 'max_quantity', what, 32)
    for (const name of ['request_name', 'request_username', 'request_photo']) boolField(request, name, what)
    return
  }
  if ('request_chat' in o) {
    const request = objectField(o, 'request_chat', what)
    integerField(request, 'request_id', what, 32, true)
    for (const name of ['chat_is_channel', 'chat_is_forum', 'chat_has_username', 'chat_is_created'])
      boolField(request, name, what)
    for (const name of ['user_administrator_rights', 'bot_administrator_rights'])
      if (name in request) administratorRights(request[name], what)
    for (const name of ['bot_is_member', 'request_title', 'request_username', 'request_photo'])
      boolField(request, name, what)
    return
  }
  if ('request_managed_bot' in o) {
    const request = objectField(o, 'request_managed_bot', what)
    integerField(request, 'request_id', what, 32, true)
    stringField(request, 'suggested_name', what, false)
    stringField(request, 'suggested_username', what, false)
  }
}

/**
 * The Bot API server's reading of `reply_markup` (before the chat is looked up). Returns the inline rows as given
 * (each button reduced to its text and action), `{other: true}` for a reply keyboard / remove / force reply, or
 * undefined when there is none.
 */
export function readReplyMarkup(raw: string | undefined): Markup {
  if (raw === undefined || raw === '') return undefined
  const value = jsonArg(raw, "can't parse reply keyboard markup JSON object")
  return readReplyMarkupValue(value)
}

/** The same for a parsed value (Client.cpp get_reply_markup(JsonValue), also an inline query result's markup). */
export function readReplyMarkupValue(value: unknown): Markup {
  if (!isObject(value)) throw badRequest('object expected as reply markup')
  const o = value
  let hasKeyboard = false
  if ('keyboard' in o) {
    if (!Array.isArray(o.keyboard)) throw badRequest('field "keyboard" must be of type Array')
    for (const row of o.keyboard) {
      if (!Array.isArray(row)) throw badRequest('field "keyboard" must be an Array of Arrays')
      row.forEach(keyboardButton)
    }
    hasKeyboard = o.keyboard.length > 0
  }
  const rows: TgObject[][] = []
  if ('inline_keyboard' in o) {
    if (!Array.isArray(o.inline_keyboard)) throw badRequest('field "inline_keyboard" must be of type Array')
    for (const row of o.inline_keyboard) {
      if (!Array.isArray(row))
        throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
      rows.push(row.map(inlineButtonOrDisabled))
    }
  }
  // telegram-bot-api Client.cpp get_reply_markup: the flags, each a Boolean (td get_optional_bool_field), the
  // placeholder a String; the reply keyboard's own flags only when it has rows
  const flags = [
    'hide_keyboard',
    'remove_keyboard',
    'personal_keyboard',
    'selective',
    'force_reply_keyboard',
    'force_reply',
  ]
  if (hasKeyboard) flags.push('resize_keyboard', 'one_time_keyboard', 'is_persistent')
  for (const name of flags)
    if (name in o && typeof o[name] !== 'boolean') throw badRequest(`field "${name}" must be of type Boolean`)
  if (
    'input_field_placeholder' in o &&
    typeof o.input_field_placeholder !== 'string' &&
    typeof o.input_field_placeholder !== 'number'
  )
    throw badRequest('field "input_field_placeholder" must be of type String')
  if (hasKeyboard) return {other: true}
  // Bot API 10.3: force_reply on an inline keyboard shows the reply interface too
  if (rows.length > 0) return {inline: rows, ...(o.force_reply === true ? {forceReply: true as const} : {})}
  return o.remove_keyboard === true || o.hide_keyboard === true || o.force_reply === true ? {other: true} : undefined
}

/**
 * td's checks and the server's on an inline keyboard (after the chat was found): URLs normalized or refused, the
 * silent cut, BUTTON_DATA_INVALID. Returns the InlineKeyboardMarkup to store on the message, or undefined when
 * nothing is left.
 */
export function finishInlineKeyboard(rows: TgObject[][], forceReply?: boolean): TgObject | undefined {
  const kept: TgObject[][] = []
  let total = 0
  for (const row of rows) {
    const out: TgObject[] = []
    for (const button of row) {
      if (button.text === '') continue
      const app = button.web_app
      if (isObject(app) && typeof app.url === 'string') {
        // td ReplyMarkup.cpp get_inline_keyboard_button: "Inline keyboard button Web App " + check_link's error
        const checked = checkWebAppLink(app.url)
        if ('error' in checked)
          throw badRequest(`inline keyboard button Web App ${linkRefusal(app.url, checked.error)}`)
      }
      if (typeof button.url === 'string' && linkUserId(button.url) === undefined) {
        const checked = checkLink(button.url)
        if ('error' in checked) {
          throw badRequest(`inline keyboard button URL '${button.url}' is invalid: ${checked.error}`)
        }
        out.push({...button, url: checked.url})
      } else out.push(button)
      total++
      if (out.length >= MAX_PER_ROW || total >= MAX_BUTTONS) break
    }
    if (out.length > 0) kept.push(out)
    if (total >= MAX_BUTTONS) break
  }
  for (const row of kept) {
    for (const button of row) {
      if (typeof button.callback_data === 'string' && Buffer.byteLength(button.callback_data) > MAX_CALLBACK_DATA) {
        throw badRequest('BUTTON_DATA_INVALID')
      }
    }
  }
  return kept.length > 0 ? {inline_keyboard: kept, ...(forceReply ? {force_reply: true} : {})} : undefined
}
