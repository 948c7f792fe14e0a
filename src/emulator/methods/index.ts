/** The method table: lower-cased name → handler; the catalogue's generic answer for every other Bot API method. */
import type {Handler} from './core.js'
import {ApiError, badRequest, tooManyRequests} from '../errors.js'
import {allMethods, methodSpec} from './catalog/index.js'
import {CHAT_METHODS} from './chats.js'
import {COMMAND_METHODS} from './commands.js'
import {FILE_METHODS} from './files.js'
import {generic} from './generic.js'
import {MESSAGE_METHODS} from './outgoing.js'
import {MEDIA_METHODS} from './send-media.js'
import {POLL_METHODS} from './polls.js'
import {INLINE_METHODS} from './inline.js'
import {PROFILE_METHODS} from './profile.js'
import {STICKER_METHODS} from './stickers.js'
import {getUpdates} from './polling.js'
import {getWebhookInfo, setWebhook} from './webhook-config.js'
import {PAYMENT_METHODS} from './payments.js'
import {STAR_METHODS} from './stars.js'
import {REACTION_METHODS} from './reactions.js'
import {MEMBER_METHODS} from './members.js'
import {BUSINESS_METHODS} from './business.js'
import {BOOST_METHODS} from './boosts.js'
import {GUEST_METHODS} from './guests.js'
import {EPHEMERAL_METHODS, withEphemeral} from './ephemeral.js'
import {WIDGET_METHODS} from './widgets.js'
import {SETTINGS_METHODS} from './bot-settings.js'

const logOut: Handler = (bot, _params, core) => {
  bot.clearQueue()
  core.closeWebhook(bot)
  bot.webhook = undefined
  bot.loggedOut = true
  return {result: true}
}

/** How long a closing instance keeps answering `500 restart` before it is closed (before timeScale). */
const CLOSING_MS = 500

/**
 * close: 429 during the first 10 minutes of an instance launched more than 10 minutes after the server (Client.cpp
 * on_cmd). Then the instance is closing (every request gets `500 Internal Server Error: restart`), then closed: `close`
 * again gets `400 the bot has already been closed`, any other request launches it again (see dispatch in emulator.ts).
 */
const close: Handler = (bot, _params, core) => {
  if (bot.closeState === 'closed') throw badRequest('the bot has already been closed')
  const age = Date.now() - bot.createdAt
  if (bot.createdAt - core.startedAt > 600_000 && age < 600_000)
    throw tooManyRequests(Math.ceil((600_000 - age) / 1000))
  bot.closeState = 'closing'
  bot.poll?.end()
  core.closeWebhook(bot)
  core.later(() => {
    if (bot.closeState === 'closing') bot.closeState = 'closed'
  }, core.scale(CLOSING_MS))
  return {result: true}
}

/** The instance itself: identity, updates, webhook, logOut and close. */
const CORE_METHODS: Record<string, Handler> = {
  getme: (bot) => ({result: bot.user}),
  getupdates: getUpdates,
  setwebhook: setWebhook,
  deletewebhook: setWebhook,
  getwebhookinfo: getWebhookInfo,
  logout: logOut,
  close,
}

/**
 * Handlers with behaviour of their own, by lower-cased name, one table per area: a later table overrides an earlier
 * one for the same name. Every other method of the Bot API (catalog/) gets the generic answer (generic.ts): its
 * documented parameters checked, a result of its documented type. A name the Bot API does not have is a 404.
 */
const TABLE: Record<string, Handler> = {
  ...CORE_METHODS,
  ...MESSAGE_METHODS,
  ...MEDIA_METHODS,
  ...POLL_METHODS,
  ...INLINE_METHODS,
  ...CHAT_METHODS,
  ...PROFILE_METHODS,
  ...COMMAND_METHODS,
  ...FILE_METHODS,
  ...STICKER_METHODS,
  ...PAYMENT_METHODS,
  ...STAR_METHODS,
  ...REACTION_METHODS,
  ...MEMBER_METHODS,
  ...BUSINESS_METHODS,
  ...BOOST_METHODS,
  ...GUEST_METHODS,
  ...EPHEMERAL_METHODS,
  ...WIDGET_METHODS,
  ...SETTINGS_METHODS,
}

// The send… methods that take ephemeral_message_parameters (Bot API 10.2/10.3) also send ephemeral messages.
for (const spec of allMethods())
  if (spec.params.some((p) => p.name === 'ephemeral_message_parameters')) {
    const lower = spec.name.toLowerCase()
    TABLE[lower] = withEphemeral(TABLE[lower] ?? generic)
  }

/** The handler of a lower-cased method name (or a legacy alias), or undefined (→ 404 `Not Found: method not found`). */
export function handlerFor(method: string): Handler | undefined {
  const own = TABLE[method]
  if (own) return own
  const spec = methodSpec(method)
  if (!spec) return undefined
  return TABLE[spec.name.toLowerCase()] ?? generic
}

/** Methods a webhook reply may not run (WebhookActor.cpp handle). */
export function runnableAsReply(method: string): boolean {
  return (
    method !== '' && !method.startsWith('get') && !['deletewebhook', 'setwebhook', 'close', 'logout'].includes(method)
  )
}

/** Outgoing actions: what `sentMessages` lists. */
export function isOutgoing(method: string): boolean {
  const m = method.toLowerCase()
  if (m === 'deletewebhook' || m.startsWith('deletemy') || m === 'deletestickerset' || m === 'deletechatphoto')
    return false
  return /^(send|edit|answer|copy|forward|stopmessage|stoppoll|deletemessage|pinchatmessage|unpinchatmessage|setmessagereaction)/.test(
    m,
  )
}

export const methodNotFound = (): ApiError => new ApiError(404, 'Not Found: method not found')
