/** The method table: lower-cased name → handler, with the generic fallbacks for send*, edit*, answer*, set*, delete*. */
import type {Handler} from './core.js'
import {ApiError, badRequest, tooManyRequests} from '../errors.js'
import * as out from './outgoing.js'
import {getUpdates} from './polling.js'
import {getWebhookInfo, setWebhook} from './webhook-config.js'
import {PAYMENT_METHODS} from './payments.js'
import {STAR_METHODS} from './stars.js'
import {REACTION_METHODS} from './reactions.js'
import {MEMBER_METHODS} from './members.js'
import {BUSINESS_METHODS} from './business.js'
import {BOOST_METHODS} from './boosts.js'
import {GUEST_METHODS} from './guests.js'

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
 * close: 429 during the first 10 minutes of an instance launched more than 10 minutes after the server (§7.2).
 * Then the instance is closing (every request gets `500 Internal Server Error: restart`), then closed: `close` again
 * gets `400 the bot has already been closed`, any other request launches it again (see dispatch in emulator.ts).
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

const TABLE: Record<string, Handler> = {
  getme: (bot) => ({result: bot.user}),
  getupdates: getUpdates,
  setwebhook: setWebhook,
  deletewebhook: setWebhook,
  getwebhookinfo: getWebhookInfo,
  logout: logOut,
  close,
  sendmessage: out.sendMessage,
  sendphoto: out.sendPhoto,
  senddocument: out.sendDocument,
  sendchataction: out.sendChatAction,
  editmessagetext: out.editMessageText,
  editmessagereplymarkup: out.editMessageReplyMarkup,
  editmessagecaption: out.editMessageCaption,
  deletemessage: out.deleteMessage,
  answercallbackquery: out.answerCallbackQuery,
  setmycommands: out.setMyCommands,
  getmycommands: out.getMyCommands,
  deletemycommands: out.deleteMyCommands,
  getchat: out.getChat,
  forwardmessage: out.forwardMessage,
  copymessage: out.copyMessage,
  getchatmember: out.getChatMember,
  getfile: out.getFile,
  getchatmembercount: () => ({result: 2}),
  getchatadministrators: () => ({result: []}),
  stoppoll: out.stopPoll,
  stopmessagelivelocation: out.editOther,
  ...PAYMENT_METHODS,
  ...STAR_METHODS,
  ...REACTION_METHODS,
  ...MEMBER_METHODS,
  ...BUSINESS_METHODS,
  ...BOOST_METHODS,
  ...GUEST_METHODS,
}

/** Chat-management actions answered with `true` (ban, pin, approve…). */
const ACCEPTED_ACTIONS =
  /^(ban|unban|restrict|promote|approve|decline|pin|unpin|leave|hide|unhide|reopen|closeforum|closegeneral|verify|remove|read|refund|gift|transfer|convert|upgrade|post|repost|upload)[a-z]/

/** The handler of a lower-cased method name, or undefined (→ 404 `Not Found: method not found`). */
export function handlerFor(method: string): Handler | undefined {
  const known = TABLE[method]
  if (known) return known
  if (method.startsWith('send') && method.length > 4) return out.sendOther
  if (method.startsWith('edit') && method.length > 4) return out.editOther
  if (/^(answer|set|delete)[a-z]/.test(method) || ACCEPTED_ACTIONS.test(method)) return out.acceptTrue
  return undefined
}

/** Methods a webhook reply may not run (§6.5). */
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
