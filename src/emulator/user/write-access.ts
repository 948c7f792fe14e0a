/**
 * A user allows the bot to write to them: the `write_access_allowed` service message in their private chat with the
 * bot. telegram-bot-api Client.cpp (JsonWriteAccessAllowed::store, and JsonMessage's messageBotWriteAccessAllowed
 * case) sends it in private chats only and writes exactly one field for td's reason: `web_app_name` (the Web App
 * launched from a link), `from_request` (the user accepted a Web App's requestWriteAccess) or
 * `from_attachment_menu` (the bot added to the attachment or side menu). Bot API 10.5 adds `inviter`, a User.
 */
import type {BotState} from '../state/bot.js'
import type {Message} from '../telegram.js'
import {privateMessage, userFor} from './users.js'

export interface WriteAccessOptions {
  /** Why (exactly one): the Web App launched from a link, a Web App's request accepted, the attachment menu. */
  webAppName?: string
  fromRequest?: boolean
  fromAttachmentMenu?: boolean
  /** Bot API 10.5 WriteAccessAllowed.inviter: the user who invited this one (a user id). */
  inviterUserId?: number
  /** The user who allows it (default 1111). */
  userId?: number
  firstName?: string
  username?: string
}

export function allowWriteAccess(bot: BotState, options: WriteAccessOptions): {message: Message} {
  const reasons = [options.webAppName !== undefined, options.fromRequest === true, options.fromAttachmentMenu === true]
  if (reasons.filter(Boolean).length !== 1)
    throw new Error('pass exactly one reason: web_app_name, from_request: true or from_attachment_menu: true')
  const user = userFor(bot, options.userId ?? 1111, options)
  if (options.inviterUserId !== undefined && options.inviterUserId === user.id)
    throw new Error('inviter_user_id must be another user than the one who allows the bot')
  const inviter =
    options.inviterUserId !== undefined
      ? (bot.users.known(options.inviterUserId) ?? userFor(bot, options.inviterUserId))
      : undefined
  const reason: {web_app_name: string} | {from_request: true} | {from_attachment_menu: true} =
    options.webAppName !== undefined
      ? {web_app_name: options.webAppName}
      : options.fromRequest
        ? {from_request: true}
        : {from_attachment_menu: true}
  return {message: privateMessage(bot, user, {write_access_allowed: {...reason, ...(inviter ? {inviter} : {})}})}
}
