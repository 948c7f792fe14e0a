/**
 * A user opens a Mini App: the URL a Telegram web client loads in its frame, the app's URL with the launch
 * parameters in its hash (core.telegram.org/bots/webapps, "Initializing Mini Apps"): `tgWebAppData` (the initData
 * query string), `tgWebAppVersion`, `tgWebAppPlatform`, `tgWebAppThemeParams` (JSON) and `tgWebAppStartParam`
 * where given. initData is signed with the bot's token as "Validating data received via the Mini App" says, so the
 * bot's own check accepts it. The third-party `signature` ("Validating data for Third-Party Use": Ed25519 with
 * Telegram's private key) cannot be made here: the field is there (apps built on @telegram-apps/sdk refuse initData
 * without it) and holds an Ed25519 signature of the same text by a key this process makes at start, so a check with
 * Telegram's public key refuses it, as it must; the `hash`, which covers it as it covers every other field, is what a
 * bot checks with its token.
 *
 * How it was opened decides the fields, as the same page documents them:
 * - in the user's private chat with the bot and without a start parameter: a button (the menu button, an inline
 *   keyboard's web_app button, the attachment menu), with a `query_id` the bot may answer with answerWebAppQuery;
 * - with a start parameter, or in another chat (web_app buttons and the menu exist only in the bot's private chat):
 *   a direct link (t.me/bot/app?startapp=…), with `chat_type`, `chat_instance` and `start_param`, and no query_id.
 */
import {createHmac, generateKeyPairSync, type KeyObject, sign} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import {type User, isObject} from '../telegram.js'
import {BOT_API_VERSION} from '../methods/catalog/index.js'
import {openWebApp} from './boosts.js'
import {userOf} from './actions.js'

export interface WebAppLaunchOptions {
  /** The app's URL (default: the bot's web_app menu button for the user, else its default one). */
  url?: string
  /** Who opens it (default 1111). */
  userId?: number
  /** The chat it is opened in (default: the user's private chat with the bot). */
  chatId?: number
  /** The `startapp` parameter of a direct link. */
  startParam?: string
}

export interface WebAppLaunch {
  /** The URL the client's frame loads: the app's URL with the launch parameters in its hash. */
  url: string
  /** `Telegram.WebApp.initData`: the signed query string. */
  initData: string
  /** The query the bot may answer with answerWebAppQuery (a launch from a button in the bot's chat). */
  queryId?: string
}

/** The platform the launch names: Telegram's web client (WebA). */
export const WEB_APP_PLATFORM = 'weba'

/** The colours of a light theme, as a client passes them (ThemeParams, core.telegram.org/bots/webapps). */
export const THEME_PARAMS: Readonly<Record<string, string>> = {
  bg_color: '#ffffff',
  text_color: '#000000',
  hint_color: '#707579',
  link_color: '#3390ec',
  button_color: '#3390ec',
  button_text_color: '#ffffff',
  secondary_bg_color: '#f4f4f5',
  header_bg_color: '#ffffff',
  bottom_bar_bg_color: '#ffffff',
  accent_text_color: '#3390ec',
  section_bg_color: '#ffffff',
  section_header_text_color: '#3390ec',
  section_separator_color: '#e7e7e7',
  subtitle_text_color: '#707579',
  destructive_text_color: '#e53935',
}

export function launchWebApp(bot: BotState, options: WebAppLaunchOptions): WebAppLaunch {
  const userId = options.userId ?? 1111
  const chatId = options.chatId ?? userId
  const url = options.url ?? menuButtonUrl(bot, userId)
  if (url === undefined)
    throw new Error(
      'url is required: the bot has no web_app menu button to open (setChatMenuButton with a web_app button)',
    )
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new Error(`url ${JSON.stringify(url)} must be an http(s) URL`)
  const profile = userOf(bot, {userId})
  const fields: Array<[string, string]> = []
  let queryId: string | undefined
  if (options.startParam === undefined && chatId === userId) {
    queryId = openWebApp(bot, {userId, chatId})
    fields.push(['query_id', queryId])
    fields.push(['user', JSON.stringify(webAppUser(profile))])
  } else {
    fields.push(['user', JSON.stringify(webAppUser(profile))])
    fields.push(['chat_instance', bot.users.chatInstance(chatId)])
    fields.push(['chat_type', chatType(bot, chatId, userId)])
    if (options.startParam !== undefined) fields.push(['start_param', options.startParam])
  }
  fields.push(['auth_date', String(Math.floor(Date.now() / 1000))])
  fields.push(['signature', thirdPartySignature(bot.token, fields)])
  fields.push(['hash', initDataHash(bot.token, fields)])
  const initData = new URLSearchParams(fields).toString()
  const launch = new URLSearchParams([
    ['tgWebAppData', initData],
    ['tgWebAppVersion', BOT_API_VERSION],
    ['tgWebAppPlatform', WEB_APP_PLATFORM],
    ['tgWebAppThemeParams', JSON.stringify(THEME_PARAMS)],
    ...(options.startParam !== undefined ? [['tgWebAppStartParam', options.startParam]] : []),
  ])
  parsed.hash = parsed.hash ? `${parsed.hash.slice(1)}&${launch}` : launch.toString()
  return {url: parsed.toString(), initData, ...(queryId ? {queryId} : {})}
}

/**
 * The `hash` of initData (core.telegram.org/bots/webapps, "Validating data received via the Mini App"): the
 * fields but `hash` as `key=value` lines sorted by key, signed with HMAC-SHA-256 whose key is the HMAC-SHA-256 of
 * the bot's token under the key "WebAppData"; in hex.
 */
export function initDataHash(token: string, fields: Array<[string, string]>): string {
  const secret = createHmac('sha256', 'WebAppData').update(token).digest()
  const lines = fields
    .filter(([key]) => key !== 'hash')
    .map(([key, value]) => `${key}=${value}`)
    .sort()
  return createHmac('sha256', secret).update(lines.join('\n')).digest('hex')
}

/** The emulator's own Ed25519 key: Telegram's private key is not to be had (see the module's comment). */
let signingKey: KeyObject | undefined

/**
 * `signature` as "Validating data for Third-Party Use" (core.telegram.org/bots/webapps) lays it out: Ed25519 over
 * `{bot_id}:WebAppData` and a newline, then the fields but `hash` and `signature` as `key=value` lines sorted by
 * key; base64url without padding. Signed with the emulator's key, not Telegram's.
 */
function thirdPartySignature(token: string, fields: Array<[string, string]>): string {
  signingKey ??= generateKeyPairSync('ed25519').privateKey
  const botId = token.split(':')[0]
  const lines = fields
    .filter(([key]) => key !== 'hash' && key !== 'signature')
    .map(([key, value]) => `${key}=${value}`)
    .sort()
  const text = `${botId}:WebAppData\n${lines.join('\n')}`
  return sign(null, Buffer.from(text), signingKey).toString('base64url')
}

/** The bot's web_app menu button for the user (or the default one): its URL. */
function menuButtonUrl(bot: BotState, userId: number): string | undefined {
  for (const button of [bot.profile.menuButton(userId), bot.profile.menuButton()]) {
    const webApp = button?.type === 'web_app' ? button.web_app : undefined
    if (isObject(webApp) && typeof webApp.url === 'string') return webApp.url
  }
  return undefined
}

/** WebAppUser: the User without is_bot (returned only for a receiver), and whether the bot may write to them. */
function webAppUser(user: User): Omit<User, 'is_bot'> & {allows_write_to_pm: true} {
  const {is_bot: _bot, ...rest} = user
  return {...rest, allows_write_to_pm: true}
}

/** "sender" for the user's own chat with the bot, else the chat's type. */
function chatType(bot: BotState, chatId: number, userId: number): string {
  if (chatId === userId) return 'sender'
  const known = bot.findChat(String(chatId))
  if (typeof known?.type === 'string') return known.type
  return chatId > 0 ? 'private' : String(chatId).startsWith('-100') ? 'supergroup' : 'group'
}
