/**
 * The bot's own settings (Bot API 10.5): setMySettings changes what BotFather sets (inline mode and its placeholder
 * and location request, privacy mode, joining groups, business, managed bots, guest and join request queries,
 * topics in private chats and their sidebar) and `callback_query_mode`; settings left out stay as they are. getMe
 * answers them in a BotFullInfo. `has_topic_sidebar` stays false while `has_topics_enabled` is off (as
 * node-telegram-bot-api 2.5.0's notes say Telegram does). callback_query_mode (TDLib's BotCallbackQueryMode*):
 * `default` (callback queries carry `message`), `auto` (`inline_message_id` when the message is inaccessible to the
 * bot), `inline` (always `inline_message_id`).
 */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {toBool} from './args.js'
import type {BotUser} from '../telegram.js'

/** setMySettings' boolean parameters, each the getMe field of the same name. */
const FLAGS = [
  'supports_inline_queries',
  'needs_inline_query_location',
  'can_join_groups',
  'can_read_all_group_messages',
  'can_connect_to_business',
  'can_manage_bots',
  'supports_guest_queries',
  'supports_join_request_queries',
  'has_topics_enabled',
  'allows_users_to_create_topics',
  'has_topic_sidebar',
  'can_communicate_with_bots',
] as const satisfies ReadonlyArray<keyof BotUser | 'can_communicate_with_bots'>

export const CALLBACK_QUERY_MODES = ['default', 'auto', 'inline']

export const setMySettings: Handler = (bot, params) => {
  const mode = params.get('callback_query_mode')
  if (mode !== undefined && mode !== '' && !CALLBACK_QUERY_MODES.includes(mode))
    throw badRequest('callback_query_mode must be one of "default", "auto" or "inline"')
  const denominator = params.get('inline_feedback_share_denominator')
  if (denominator !== undefined && denominator.trim() !== '') {
    const n = Number.parseInt(denominator, 10)
    if (!(n >= 0 && n <= 100_000)) throw badRequest('invalid inline_feedback_share_denominator specified')
  }
  for (const flag of FLAGS) {
    const raw = params.get(flag)
    if (raw === undefined || raw === '') continue
    if (flag === 'can_communicate_with_bots') continue // not a getMe field in the sources found
    bot.user[flag] = toBool(raw)
  }
  const placeholder = params.get('inline_query_placeholder')
  if (placeholder !== undefined) {
    if (placeholder === '') delete bot.user.inline_query_placeholder
    else bot.user.inline_query_placeholder = placeholder
  }
  if (bot.user.has_topics_enabled !== true) bot.user.has_topic_sidebar = false
  if (mode) bot.callbackQueryMode = mode
  return {result: true}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const SETTINGS_METHODS: Record<string, Handler> = {
  setmysettings: setMySettings,
}
