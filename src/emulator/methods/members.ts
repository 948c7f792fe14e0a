/**
 * Membership from the bot's side (core.telegram.org/bots/api#chatinvitelink): invite links (createChatInviteLink with
 * creates_join_request, edit, revoke, export), join requests (approve, decline; Bot API 10.1's join request queries),
 * bans, restrictions, promotions, tags and titles, leaving, and what getChatMember / getChatMemberCount /
 * getChatAdministrators answer. Every change goes through state/member-updates.ts, so the bot gets the chat_member (or
 * my_chat_member) update and the service message Telegram sends for it.
 */
import {randomBytes} from 'node:crypto'
import type {Core, Handler} from './core.js'
import {badRequest} from '../errors.js'
import {chatParam} from './chats.js'
import {integerArg, permissionsArg, required, toBool, userIdParam} from './args.js'
import {QUERY_INVALID} from './callbacks.js'
import type {BotState} from '../state/bot.js'
import {ADMINISTRATOR_RIGHTS, chatMember, rightsOf} from '../state/members.js'
import {changeMember, isPresent} from '../state/member-updates.js'
import type {Params} from '../http/params.js'
import type {Chat, ChatInviteLink, ChatMember, User} from '../telegram.js'

const PRIVATE = "chat member status can't be changed in private chats"
const SUPERGROUP_OR_CHANNEL = 'method is available for supergroup and channel chats only'

/** The known user (a User object) of an id, as the bot would see them. */
function userOf(bot: BotState, userId: number): User {
  const chat = bot.findChat(String(userId))
  return {
    id: userId,
    is_bot: false,
    first_name: chat?.first_name ?? 'User',
    ...(chat?.username ? {username: chat.username} : {}),
  }
}

/** A member's current ChatMember: recorded, else a member if they wrote in the chat, else left. */
export function currentMember(bot: BotState, chat: Chat, userId: number): ChatMember {
  if (userId === bot.id) return bot.members.bot(chat, bot.from)
  const known = bot.members.get(chat.id, userId)
  if (known) return known
  const wrote = bot.messages.inChat(chat.id).some((m) => m.message.from?.id === userId)
  return chatMember(chat, userOf(bot, userId), wrote || chat.type === 'private' ? 'member' : 'left')
}

function apply(bot: BotState, core: Core, chat: Chat, next: ChatMember, extra = {}): void {
  for (const update of changeMember(bot, chat, next, bot.from, extra)) core.inject(bot, update)
}

/** The bot's own right (it must be an administrator that has it). */
function botHas(bot: BotState, chat: Chat, right: string): boolean {
  const me = bot.members.bot(chat, bot.from)
  return me.status === 'creator' || (me.status === 'administrator' && me[right] === true)
}

// ---------------------------------------------------------------- invite links

function inviteLinkJson(link: {
  url: string
  name?: string
  creator: User
  expireDate?: number
  memberLimit?: number
  createsJoinRequest: boolean
  isPrimary: boolean
}): ChatInviteLink {
  return {
    invite_link: link.url,
    ...(link.name ? {name: link.name} : {}),
    creator: link.creator,
    ...(link.expireDate ? {expire_date: link.expireDate} : {}),
    ...(link.memberLimit ? {member_limit: link.memberLimit} : {}),
    creates_join_request: link.createsJoinRequest,
    is_primary: link.isPrimary,
    is_revoked: false,
  }
}

function linkFields(params: Params) {
  const memberLimit = integerArg(params, 'member_limit', 0, 0, 100_000)
  const createsJoinRequest = toBool(params.get('creates_join_request'))
  if (memberLimit > 0 && createsJoinRequest)
    throw badRequest("member limit can't be specified for links requiring administrator approval")
  return {
    name: params.get('name') || undefined,
    expireDate: integerArg(params, 'expire_date', 0, 0, 2 ** 31 - 1) || undefined,
    memberLimit: memberLimit || undefined,
    createsJoinRequest,
  }
}

const newLinkUrl = (): string => `https://t.me/+${randomBytes(12).toString('base64url')}`

export const createChatInviteLink: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  const fields = linkFields(params)
  const link = inviteLinkJson({url: newLinkUrl(), creator: bot.from, isPrimary: false, ...fields})
  bot.members.links.set(link.invite_link, {chatId: chat.id, link, joined: 0})
  bot.members.trim()
  return {result: link}
}

/** A link of this chat the bot made, or Telegram's INVITE_HASH_EXPIRED (not settled: from Telegram's error list). */
function knownLink(bot: BotState, chat: Chat, url: string) {
  const entry = bot.members.links.get(url)
  if (!entry || entry.chatId !== chat.id) throw badRequest('INVITE_HASH_EXPIRED')
  return entry
}

export const editChatInviteLink: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  const entry = knownLink(bot, chat, params.get('invite_link') ?? '')
  const fields = linkFields(params)
  entry.link = {
    ...inviteLinkJson({url: entry.link.invite_link, creator: bot.from, isPrimary: false, ...fields}),
    is_revoked: entry.link.is_revoked,
  }
  return {result: entry.link}
}

export const revokeChatInviteLink: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  const entry = knownLink(bot, chat, params.get('invite_link') ?? '')
  entry.link = {...entry.link, is_revoked: true}
  return {result: entry.link}
}

/** exportChatInviteLink: a new primary link (the old primary one is revoked). */
export const exportChatInviteLink: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  for (const entry of bot.members.links.values())
    if (entry.chatId === chat.id && entry.link.is_primary) entry.link = {...entry.link, is_revoked: true}
  const link = inviteLinkJson({url: newLinkUrl(), creator: bot.from, isPrimary: true, createsJoinRequest: false})
  bot.members.links.set(link.invite_link, {chatId: chat.id, link, joined: 0})
  bot.members.trim()
  return {result: link.invite_link}
}

// ---------------------------------------------------------------- join requests

/** Approve (join, `via_join_request`) or decline a pending request; HIDE_REQUESTER_MISSING when there is none. */
export function settleJoinRequest(bot: BotState, core: Core, chat: Chat, userId: number, approve: boolean): void {
  const key = `${chat.id}:${userId}`
  const request = bot.members.requests.get(key)
  if (isPresent(currentMember(bot, chat, userId))) throw badRequest('USER_ALREADY_PARTICIPANT')
  if (!request) throw badRequest('HIDE_REQUESTER_MISSING')
  bot.members.requests.delete(key)
  if (request.queryId) bot.members.queries.delete(request.queryId)
  if (!approve) return
  const link = request.inviteLink ? bot.members.links.get(request.inviteLink) : undefined
  if (link) link.joined += 1
  apply(bot, core, chat, chatMember(chat, request.user, 'member'), {
    ...(link ? {inviteLink: link.link} : {}),
    viaJoinRequest: true,
  })
}

const joinRequestAnswer =
  (approve: boolean): Handler =>
  (bot, params, core) => {
    const userId = userIdParam(params)
    const chat = chatParam(bot, params)
    settleJoinRequest(bot, core, chat, userId, approve)
    return {result: true}
  }

/**
 * answerChatJoinRequestQuery (Bot API 10.1): `approve`, `decline` or `queue` (left to the other administrators)
 * for a join request that carried a `query_id`, answered within its 10 seconds (times timeScale).
 */
export const answerChatJoinRequestQuery: Handler = (bot, params, core) => {
  const id = required(params, 'chat_join_request_query_id')
  const result = required(params, 'result')
  if (!['approve', 'decline', 'queue'].includes(result))
    throw badRequest('result must be one of "approve", "decline" and "queue"')
  const request = bot.members.queries.get(id)
  if (!request || Date.now() > (request.queryDeadline ?? 0)) throw badRequest(QUERY_INVALID)
  const chat = bot.findChat(String(request.chatId))!
  bot.members.queries.delete(id)
  if (result === 'queue') {
    delete request.queryId
    return {result: true}
  }
  settleJoinRequest(bot, core, chat, request.user.id, result === 'approve')
  return {result: true}
}

/** sendChatJoinRequestWebApp (10.1): the Mini App is shown to the user; the query waits for its answer. */
export const sendChatJoinRequestWebApp: Handler = (bot, params) => {
  const id = required(params, 'chat_join_request_query_id')
  required(params, 'web_app_url')
  const request = bot.members.queries.get(id)
  if (!request || Date.now() > (request.queryDeadline ?? 0)) throw badRequest(QUERY_INVALID)
  request.webAppUrl = params.get('web_app_url')
  return {result: true}
}

// ---------------------------------------------------------------- member changes

/** The chat of a member change: a group or channel (not a private chat), and the target user's id. */
function memberTarget(bot: BotState, params: Params, refusal = PRIVATE): {chat: Chat; userId: number} {
  const userId = userIdParam(params)
  const chat = chatParam(bot, params)
  if (chat.type === 'private') throw badRequest(refusal)
  return {chat, userId}
}

export const banChatMember: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params, "can't ban members in private chats") // td ban_dialog_participant
  if (!botHas(bot, chat, 'can_restrict_members')) throw badRequest('not enough rights to restrict/ban chat member')
  const untilDate = integerArg(params, 'until_date', 0, 0, 2 ** 31 - 1)
  const user = currentMember(bot, chat, userId).user
  apply(bot, core, chat, chatMember(chat, user, 'kicked', {untilDate}))
  return {result: true}
}

export const unbanChatMember: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params)
  if (chat.type !== 'supergroup' && chat.type !== 'channel') throw badRequest(SUPERGROUP_OR_CHANNEL)
  if (!botHas(bot, chat, 'can_restrict_members')) throw badRequest('not enough rights to restrict/ban chat member')
  const current = currentMember(bot, chat, userId)
  if (toBool(params.get('only_if_banned')) && current.status !== 'kicked') return {result: true}
  if (current.status === 'left') return {result: true}
  apply(bot, core, chat, chatMember(chat, current.user, 'left'))
  return {result: true}
}

export const restrictChatMember: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params)
  const permissions = Object.entries(permissionsArg(params))
    .filter(([, on]) => on)
    .map(([name]) => name)
  if (chat.type !== 'supergroup') throw badRequest('method is available only for supergroups')
  if (!botHas(bot, chat, 'can_restrict_members')) throw badRequest('not enough rights to restrict/ban chat member')
  const current = currentMember(bot, chat, userId)
  const untilDate = integerArg(params, 'until_date', 0, 0, 2 ** 31 - 1)
  apply(
    bot,
    core,
    chat,
    chatMember(chat, current.user, 'restricted', {
      rights: permissions,
      untilDate,
      tag: current.tag,
      isMember: isPresent(current),
    }),
  )
  return {result: true}
}

/** What promoteChatMember reads: the administrator rights, then two of its own. */
const PROMOTE_RIGHTS = [...ADMINISTRATOR_RIGHTS, 'can_send_welcome_messages', 'is_anonymous']

/** promoteChatMember: the rights passed make an administrator; none at all demotes to a member. */
export const promoteChatMember: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params)
  if (chat.type !== 'supergroup' && chat.type !== 'channel') throw badRequest(SUPERGROUP_OR_CHANNEL)
  if (!botHas(bot, chat, 'can_promote_members')) throw badRequest('not enough rights')
  const rights = PROMOTE_RIGHTS.filter((r) => toBool(params.get(r)))
  const current = currentMember(bot, chat, userId)
  if (current.status === 'creator') throw badRequest("can't promote the chat owner")
  const next =
    rights.length > 0
      ? chatMember(chat, current.user, 'administrator', {rights})
      : chatMember(chat, current.user, 'member')
  apply(bot, core, chat, next)
  return {result: true}
}

export const setChatAdministratorCustomTitle: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params)
  const current = currentMember(bot, chat, userId)
  if (current.status !== 'administrator') throw badRequest('not enough rights to change custom title of the user')
  const title = params.get('custom_title') ?? ''
  apply(
    bot,
    core,
    chat,
    chatMember(chat, current.user, 'administrator', {rights: rightsOf(current), customTitle: title}),
  )
  return {result: true}
}

/** setChatMemberTag (Bot API 9.5): a member's tag, 0-16 characters. */
export const setChatMemberTag: Handler = (bot, params, core) => {
  const {chat, userId} = memberTarget(bot, params)
  const current = currentMember(bot, chat, userId)
  const tag = params.get('tag') ?? ''
  const status = current.status
  if (status !== 'member' && status !== 'restricted') return {result: true}
  apply(
    bot,
    core,
    chat,
    chatMember(chat, current.user, status, {
      rights: rightsOf(current),
      tag,
      untilDate: current.until_date,
      isMember: current.is_member,
    }),
  )
  return {result: true}
}

/** leaveChat: the bot leaves (a my_chat_member update); not in private chats. */
export const leaveChat: Handler = (bot, params, core) => {
  const chat = chatParam(bot, params)
  // td Requests.cpp on_request(leaveChat) → DialogParticipantManager::set_dialog_participant_status
  if (chat.type === 'private') throw badRequest(PRIVATE)
  apply(bot, core, chat, chatMember(chat, bot.from, 'left'))
  return {result: true}
}

// ---------------------------------------------------------------- reading

/** getChatMember (BA Client.cpp process_get_chat_member_query): get_user_id before check_chat. */
export const getChatMember: Handler = (bot, params) => {
  const userId = userIdParam(params)
  const chat = chatParam(bot, params)
  if (userId !== bot.id && !bot.findChat(String(userId)) && !bot.members.get(chat.id, userId))
    throw badRequest('user not found')
  return {result: currentMember(bot, chat, userId)}
}

/** getChatMemberCount: the bot (when present) and every user recorded or seen writing who has not left. */
export const getChatMemberCount: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  if (chat.type === 'private') return {result: 2}
  const ids = new Set<number>()
  for (const stored of bot.messages.inChat(chat.id)) {
    const from = stored.message.from
    if (from && from.id !== bot.id) ids.add(from.id)
  }
  for (const member of bot.members.all(chat.id)) ids.add(member.user.id)
  ids.add(bot.id)
  let count = 0
  for (const id of ids) if (isPresent(currentMember(bot, chat, id))) count += 1
  return {result: count}
}

export const getChatAdministrators: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  if (chat.type === 'private') throw badRequest('there are no administrators in the private chat')
  const admins = bot.members.all(chat.id).filter((m) => m.status === 'administrator' || m.status === 'creator')
  const me = bot.members.bot(chat, bot.from)
  if ((me.status === 'administrator' || me.status === 'creator') && !admins.some((m) => m.user.id === bot.id))
    admins.push(me)
  return {result: admins}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const MEMBER_METHODS: Record<string, Handler> = {
  createchatinvitelink: createChatInviteLink,
  editchatinvitelink: editChatInviteLink,
  revokechatinvitelink: revokeChatInviteLink,
  exportchatinvitelink: exportChatInviteLink,
  approvechatjoinrequest: joinRequestAnswer(true),
  declinechatjoinrequest: joinRequestAnswer(false),
  answerchatjoinrequestquery: answerChatJoinRequestQuery,
  sendchatjoinrequestwebapp: sendChatJoinRequestWebApp,
  banchatmember: banChatMember,
  kickchatmember: banChatMember,
  unbanchatmember: unbanChatMember,
  restrictchatmember: restrictChatMember,
  promotechatmember: promoteChatMember,
  setchatadministratorcustomtitle: setChatAdministratorCustomTitle,
  setchatmembertag: setChatMemberTag,
  leavechat: leaveChat,
  getchatmember: getChatMember,
  getchatmembercount: getChatMemberCount,
  getchatmemberscount: getChatMemberCount,
  getchatadministrators: getChatAdministrators,
}
