/**
 * What users do to a group's or channel's membership (Client.cpp add_update_chat_member, add_update_chat_join_request):
 * join (through an invite link, or one that creates a join request: then a `chat_join_request` instead), leave, get
 * promoted, restricted or banned by an administrator; and what happens to the bot itself: added, promoted, removed
 * (`my_chat_member`). Each returns the update bodies Telegram sends (state/member-updates.ts), for the emulator to
 * queue.
 */
import {randomInt} from 'node:crypto'
import type {BotState} from '../state/bot.js'
import {type MemberStatus, MEMBER_STATUSES, chatMember} from '../state/members.js'
import {changeMember, groupChat, isPresent} from '../state/member-updates.js'
import type {TgObject} from '../types.js'
import {userFor} from './users.js'

export interface MemberChange {
  chatId: number
  /** The member (default 1111). */
  userId?: number
  status: MemberStatus
  /** Who made the change (default: the member themselves for joining and leaving, else user 1 as an admin). */
  byUserId?: number
  /** The invite link used to join (a link the bot made). */
  inviteLink?: string
  /** Administrator rights, or a restricted member's permissions, set to true. */
  rights?: string[]
  untilDate?: number
  customTitle?: string
  /** For a chat the bot has not seen yet: its type (default: `supergroup` for `-100…` ids, else `group`) and title. */
  chatType?: 'group' | 'supergroup' | 'channel'
  title?: string
  firstName?: string
  username?: string
}

/** The status a change names, or an Error naming the statuses there are. */
export function checkStatus(status: unknown): MemberStatus {
  const found = MEMBER_STATUSES.find((one) => one === status)
  if (found === undefined)
    throw new Error(`status ${JSON.stringify(status)} must be one of ${MEMBER_STATUSES.join(', ')}`)
  return found
}

/** The link a user joins through: one of this chat's, not revoked, not expired, below its member limit. */
function linkFor(bot: BotState, chatId: number, url: string) {
  const entry = bot.members.links.get(url)
  if (!entry || entry.chatId !== chatId)
    throw new Error(`there is no invite link ${url} of chat ${chatId} (createChatInviteLink)`)
  if (entry.link.is_revoked) throw new Error(`the invite link ${url} was revoked`)
  const expire = entry.link.expire_date
  if (expire && expire * 1000 < Date.now()) throw new Error(`the invite link ${url} has expired`)
  const limit = entry.link.member_limit
  if (limit && entry.joined >= limit) throw new Error(`the invite link ${url} reached its member_limit (${limit})`)
  return entry
}

/** A member's new status, as set by themselves (join, leave) or an administrator; the update bodies. */
export function setMemberStatus(bot: BotState, change: MemberChange): TgObject[] {
  const status = checkStatus(change.status)
  const chat = groupChat(bot, change.chatId, change.chatType, change.title)
  const userId = change.userId ?? 1111
  if (userId === bot.id) throw new Error('the bot is a member like no other: use setBotStatus for it')
  const user = userFor(bot, userId, change)
  const self = status === 'member' || status === 'left'
  const actor = userFor(bot, change.byUserId ?? (self ? userId : 1))
  const link = change.inviteLink ? linkFor(bot, change.chatId, change.inviteLink) : undefined
  if (link?.link.creates_join_request)
    throw new Error(`the invite link ${change.inviteLink} creates join requests: use requestJoin`)
  const current = bot.members.get(change.chatId, userId)
  if (status === 'member' && current?.status === 'kicked' && self)
    throw new Error(`user ${userId} is banned from chat ${change.chatId}: an administrator must unban them first`)
  if (link) link.joined += 1
  const next = chatMember(chat, user, status, {
    rights: change.rights,
    untilDate: change.untilDate,
    customTitle: change.customTitle,
    isMember: status === 'restricted' ? isPresent(current) || current === undefined : undefined,
  })
  return changeMember(bot, chat, next, actor, link ? {inviteLink: link.link} : {})
}

/** The bot's own new status in a group or channel (added, promoted, removed): my_chat_member. */
export function setBotStatus(
  bot: BotState,
  change: Omit<MemberChange, 'userId' | 'inviteLink' | 'customTitle'>,
): TgObject[] {
  const status = checkStatus(change.status)
  const known = bot.findChat(String(change.chatId)) !== undefined
  const chat = groupChat(bot, change.chatId, change.chatType, change.title)
  // a chat the bot never saw: it was not in it (a chat it saw, it is in, as an administrator unless told otherwise)
  if (!known) bot.members.set(change.chatId, chatMember(chat, bot.from, 'left'))
  const actor = userFor(bot, change.byUserId ?? 1111)
  const next = chatMember(chat, bot.from, status, {rights: change.rights, untilDate: change.untilDate})
  return changeMember(bot, chat, next, actor)
}

export interface JoinRequestOptions {
  chatId: number
  userId?: number
  /** A link of the chat made with creates_join_request (optional: a request can come without one). */
  inviteLink?: string
  bio?: string
  /**
   * Bot API 10.1: the bot is assigned to process join requests; the update gets a `query_id` to answer (default:
   * the bot's supports_join_request_queries, createBot({supportsJoinRequestQueries})).
   */
  withQuery?: boolean
  firstName?: string
  username?: string
  chatType?: 'group' | 'supergroup' | 'channel'
  title?: string
}

/**
 * A user asks to join: a `chat_join_request` `{chat, from, user_chat_id, date, bio?, invite_link?, query_id?}` (BA
 * `JsonChatJoinRequest` 5288), which a bot gets when it may invite users (an administrator with can_invite_users,
 * DOC). `{skipped}` when it may not. The request waits for approveChatJoinRequest / declineChatJoinRequest.
 */
export function requestJoin(
  bot: BotState,
  options: JoinRequestOptions,
  queryWindowMs: number,
): {update: TgObject} | {skipped: string} {
  const chat = groupChat(bot, options.chatId, options.chatType, options.title)
  const userId = options.userId ?? 1111
  const user = userFor(bot, userId, options)
  if (isPresent(bot.members.get(options.chatId, userId)))
    throw new Error(`user ${userId} is already a member of chat ${options.chatId}`)
  const link = options.inviteLink ? linkFor(bot, options.chatId, options.inviteLink) : undefined
  if (link && !link.link.creates_join_request)
    throw new Error(`the invite link ${options.inviteLink} does not create join requests: the user joins at once`)
  const date = Math.floor(Date.now() / 1000)
  const withQuery = options.withQuery ?? bot.user.supports_join_request_queries === true
  const queryId = withQuery ? String(randomInt(1, 2 ** 47)) + String(randomInt(100, 999)) : undefined
  const request = {
    chatId: options.chatId,
    user,
    date,
    ...(options.bio ? {bio: options.bio} : {}),
    ...(link ? {inviteLink: options.inviteLink} : {}),
    ...(queryId ? {queryId, queryDeadline: Date.now() + queryWindowMs} : {}),
  }
  bot.members.requests.set(`${options.chatId}:${userId}`, request)
  if (queryId) bot.members.queries.set(queryId, request)
  bot.members.trim()
  const me = bot.members.bot(chat, bot.from)
  if (!(me.status === 'creator' || (me.status === 'administrator' && me.can_invite_users === true)))
    return {
      skipped: 'the bot may not invite users to the chat (an administrator with can_invite_users gets join requests)',
    }
  return {
    update: {
      chat_join_request: {
        chat,
        from: user,
        user_chat_id: userId,
        date,
        ...(options.bio ? {bio: options.bio} : {}),
        ...(link ? {invite_link: link.link} : {}),
        ...(queryId ? {query_id: queryId} : {}),
      },
    },
  }
}
