/**
 * reply_markup as the server reads it (Client.cpp get_reply_markup, get_keyboard_button, get_inline_keyboard_button):
 * the JSON checks of the Bot API server with its exact texts, then td's checks of an inline keyboard (button URLs, the
 * silent cut to 12 buttons per row and 300 in all, empty buttons and rows dropped) and the server's BUTTON_DATA_INVALID
 * for callback_data over 64 bytes.
 */
import {badRequest} from '../errors.js'
import {checkLink, checkWebAppLink, linkRefusal, linkUserId} from '../format/links.js'
import type {TgObject} from '../types.js'
import {parseJsonBounded} from '../json.js'

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
  if (typeof v === 'number') return String(v)
  throw buttonError(what, `Field "${name}" must be of type String`)
}

function objectField(o: TgObject, name: string, what: string): TgObject {
  const v = o[name]
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw buttonError(what, `Field "${name}" must be of type Object`)
  return v as TgObject
}

/** One inline button as the server reads it: `{text, <its action>}`. */
function inlineButton(value: unknown): TgObject {
  const what = 'inline keyboard'
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw buttonError(what, 'InlineKeyboardButton must be an Object')
  const o = value as TgObject
  const text = stringField(o, 'text', what, true)!
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
      if (action === 'login_url') {
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
  const o = value as TgObject | undefined
  if (!o || typeof o !== 'object' || Array.isArray(o) || o.disabled === undefined) return inlineButton(value)
  if (!o.disabled || typeof o.disabled !== 'object' || Array.isArray(o.disabled))
    throw buttonError('inline keyboard', 'Field "disabled" must be of type Object')
  const {disabled: _disabled, ...rest} = o
  const button = ACTIONS.some((a) => a in rest)
    ? inlineButton(rest)
    : {text: stringField(rest, 'text', 'inline keyboard', true)}
  return {...button, disabled: {}}
}

function keyboardButton(value: unknown): void {
  if (typeof value === 'string') return
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw buttonError('keyboard', 'KeyboardButton must be a String or an Object')
  }
  const o = value as TgObject
  stringField(o, 'text', 'keyboard', true)
  if ('web_app' in o) {
    const url = stringField(objectField(o, 'web_app', 'keyboard'), 'url', 'keyboard', true)!
    // td ReplyMarkup.cpp get_keyboard_button: "Keyboard button Web App " + check_link's error
    const checked = checkWebAppLink(url)
    if ('error' in checked) throw badRequest(`keyboard button Web App ${linkRefusal(url, checked.error)}`)
  }
}

/**
 * The Bot API server's reading of `reply_markup` (before the chat is looked up). Returns the inline rows as given
 * (each button reduced to its text and action), `{other: true}` for a reply keyboard / remove / force reply, or
 * undefined when there is none.
 */
export function readReplyMarkup(raw: string | undefined): Markup {
  if (raw === undefined || raw === '') return undefined
  let value: unknown
  try {
    value = parseJsonBounded(raw)
  } catch {
    throw badRequest("can't parse reply keyboard markup JSON object")
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('object expected as reply markup')
  const o = value as TgObject
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
      const app = button.web_app as TgObject | undefined
      if (app && typeof app.url === 'string') {
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
