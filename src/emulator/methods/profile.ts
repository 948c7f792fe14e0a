/**
 * The bot's own profile, set… and get… (BA Client.cpp process_{set,get}_my_* and *_chat_menu_button): name,
 * description and short description per language, the menu button, the default administrator rights, and the
 * access settings of managed bots. What a set… stores, the matching get… answers.
 */
import type {BotState} from '../state/bot.js'
import type {MenuButton, ProfileText} from '../state/profile.js'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {toBool, type Params} from '../http/params.js'
import type {TgObject} from '../types.js'
import {toInteger} from '../integer.js'
import {checkWebAppLink, linkRefusal} from '../format/links.js'
import {jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/**
 * td's check of a language code: empty, or two lower-case Latin letters (text: td/telegram/BotInfoManager.cpp, "Invalid
 * language code specified").
 */
export function languageOf(params: Params): string {
  const code = params.get('language_code') ?? ''
  if (code !== '' && !/^[a-z]{2}$/.test(code)) throw badRequest('invalid language code specified')
  return code
}

function textPair(kind: ProfileText, param: string): [Handler, Handler] {
  const set: Handler = (bot, params) => {
    const language = languageOf(params)
    const value = params.get(param) ?? ''
    bot.profile.setText(kind, language, value)
    if (kind === 'name' && language === '') bot.user.first_name = value === '' ? bot.defaultName : value
    return {result: true}
  }
  const get: Handler = (bot, params) => {
    const language = languageOf(params)
    const fallback = kind === 'name' ? bot.defaultName : ''
    return {result: {[param]: bot.profile.text(kind, language) || fallback}}
  }
  return [set, get]
}

const [setMyName, getMyName] = textPair('name', 'name')
const [setMyDescription, getMyDescription] = textPair('description', 'description')
const [setMyShortDescription, getMyShortDescription] = textPair('short_description', 'short_description')

/** The chat_id of the menu-button methods: a user (get_user_id on "chat_id"), who must be known to the bot. */
function menuChat(bot: BotState, params: Params): number | undefined {
  if (params.get('chat_id') === undefined) return undefined
  const id = Math.max(0, toInteger(params.get('chat_id') ?? ''))
  if (id === 0) throw badRequest('invalid chat_id specified')
  if (!bot.findChat(String(id))) throw badRequest('user not found')
  return id
}

/** get_bot_menu_button: no menu_button is the default button; commands, web_app or default (BA 10680-10722). */
function readMenuButton(raw: string | undefined): MenuButton {
  if (raw === undefined || raw === '') return {type: 'default'}
  const value = jsonArg(raw, "can't parse menu button JSON object")
  const fail = (why: string) => badRequest(`can't parse menu button: ${why}`)
  if (!isObject(value)) throw fail('MenuButton must be an Object')
  const o = value
  if (!('type' in o)) throw fail('Can\'t find field "type"')
  if (typeof o.type !== 'string') throw fail('Field "type" must be of type String')
  if (o.type === 'default' || o.type === 'commands') return {type: o.type}
  if (o.type !== 'web_app') throw fail('MenuButton has unsupported type')
  if (!('text' in o)) throw fail('Can\'t find field "text"')
  if (typeof o.text !== 'string') throw fail('Field "text" must be of type String')
  const app = o.web_app
  if (!('web_app' in o)) throw fail('Can\'t find field "web_app"')
  if (!isObject(app)) throw fail('Field "web_app" must be of type Object')
  if (!('url' in app)) throw fail('Can\'t find field "url"')
  if (typeof app.url !== 'string') throw fail('Field "url" must be of type String')
  // td BotMenuButton.cpp set_menu_button: an empty text, then the URL as a Web App's
  if (o.text === '') throw badRequest('menu button text must be non-empty')
  const checked = checkWebAppLink(app.url)
  if ('error' in checked) throw badRequest(`menu button Web App ${linkRefusal(app.url, checked.error)}`)
  return {type: 'web_app', text: o.text, web_app: {url: app.url}}
}

const setChatMenuButton: Handler = (bot, params) => {
  const button = readMenuButton(params.get('menu_button'))
  bot.profile.setMenuButton(menuChat(bot, params), button)
  return {result: true}
}

/** A private chat without a button of its own shows the default one (`default`); the bot's default is `commands`. */
const getChatMenuButton: Handler = (bot, params) => {
  const chat = menuChat(bot, params)
  const button = bot.profile.menuButton(chat) ?? (chat === undefined ? {type: 'commands'} : {type: 'default'})
  return {result: button}
}

/** The fields of ChatAdministratorRights in the server's order, for groups (supergroup order) or channels. */
const RIGHTS_ORDER = (channels: boolean): string[] => [
  'can_manage_chat',
  'can_change_info',
  ...(channels ? ['can_post_messages', 'can_edit_messages'] : []),
  'can_delete_messages',
  'can_invite_users',
  'can_restrict_members',
  ...(channels ? [] : ['can_pin_messages', 'can_manage_topics']),
  'can_promote_members',
  'can_manage_video_chats',
  'can_post_stories',
  'can_edit_stories',
  'can_delete_stories',
  ...(channels ? ['can_manage_direct_messages'] : ['can_manage_tags']),
  'can_send_welcome_messages', // Bot API 10.3 (its place in the server's order is not known)
  'is_anonymous',
]

const ALL_RIGHTS = [...new Set([...RIGHTS_ORDER(false), ...RIGHTS_ORDER(true)])]

const setMyDefaultAdministratorRights: Handler = (bot, params) => {
  const forChannels = toBool(params.get('for_channels'))
  const raw = params.get('rights') ?? ''
  if (raw === '') {
    bot.profile.setDefaultRights(forChannels, undefined)
    return {result: true}
  }
  const value = jsonArg(raw, "can't parse ChatAdministratorRights JSON object")
  if (!isObject(value))
    throw badRequest("can't parse ChatAdministratorRights: ChatAdministratorRights must be an Object")
  const rights: TgObject = {}
  for (const name of ALL_RIGHTS) {
    const v = value[name]
    if (v === undefined) continue
    if (typeof v !== 'boolean' && !(typeof v === 'string' && /^(true|false)$/.test(v)) && typeof v !== 'number')
      throw badRequest(`can't parse ChatAdministratorRights: Field "${name}" must be of type Boolean`)
    rights[name] = v === true || v === 'true' || v === 1
  }
  bot.profile.setDefaultRights(forChannels, rights)
  return {result: true}
}

const getMyDefaultAdministratorRights: Handler = (bot, params) => {
  const forChannels = toBool(params.get('for_channels'))
  const set = bot.profile.defaultRights(forChannels) ?? {}
  return {result: Object.fromEntries(RIGHTS_ORDER(forChannels).map((name) => [name, set[name] === true]))}
}

/** The managed bot's user id (get_user_id), which must be a user the bot knows. */
function managedBot(bot: BotState, params: Params): number {
  const id = Math.max(0, toInteger(params.get('user_id') ?? ''))
  if (id === 0) throw badRequest('invalid user_id specified')
  if (!bot.findChat(String(id))) throw badRequest('user not found')
  return id
}

const setManagedBotAccessSettings: Handler = (bot, params) => {
  const id = managedBot(bot, params)
  const restricted = toBool(params.get('is_access_restricted'))
  const raw = params.get('added_user_ids')
  let added: number[] = []
  if (raw !== undefined && raw !== '') {
    const value = jsonArg(raw, "can't parse added_user_ids JSON object")
    if (!Array.isArray(value)) throw badRequest('expected an Array of user identifiers')
    added = value.map((v) => {
      const n = Number(v)
      if (!Number.isSafeInteger(n) || n <= 0) throw badRequest('invalid user identifier specified')
      return n
    })
  }
  const users = added.map((uid) => bot.users.profile(uid))
  bot.profile.managedAccess.set(id, {
    is_access_restricted: restricted,
    ...(restricted && users.length > 0 ? {added_users: users} : {}),
  })
  return {result: true}
}

const getManagedBotAccessSettings: Handler = (bot, params) => {
  const id = managedBot(bot, params)
  return {result: bot.profile.managedAccess.get(id) ?? {is_access_restricted: false}}
}

export const PROFILE_METHODS: Record<string, Handler> = {
  setmyname: setMyName,
  getmyname: getMyName,
  setmydescription: setMyDescription,
  getmydescription: getMyDescription,
  setmyshortdescription: setMyShortDescription,
  getmyshortdescription: getMyShortDescription,
  setchatmenubutton: setChatMenuButton,
  getchatmenubutton: getChatMenuButton,
  setmydefaultadministratorrights: setMyDefaultAdministratorRights,
  getmydefaultadministratorrights: getMyDefaultAdministratorRights,
  setmanagedbotaccesssettings: setManagedBotAccessSettings,
  getmanagedbotaccesssettings: getManagedBotAccessSettings,
}
