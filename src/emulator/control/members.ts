/**
 * The control API's membership routes (docs/emulator.md, "Joining and membership"):
 *
 *   POST /_emulator/bots/{token}/chats/{chat_id}/members/{user_id}   {status, by_user_id?, invite_link?, rights?,
 *                                                                    until_date?, custom_title?, chat_type?, title?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/join_requests      {user_id?, invite_link?, bio?, with_query?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/bot                {status, by_user_id?, rights?, chat_type?, title?}
 *   GET  /_emulator/bots/{token}/chats/{chat_id}/members            the members, invite links and join requests
 */
import type {MemberStatus} from '../state/members.js'
import {type Ctx, type Route, bad, bool, int, only, pathInt, str} from './route.js'

const CHAT_TYPES = ['group', 'supergroup', 'channel']

function chatType(body: Record<string, unknown>): 'group' | 'supergroup' | 'channel' | undefined {
  const type = str(body, 'chat_type')
  if (type !== undefined && !CHAT_TYPES.includes(type))
    throw bad(`chat_type "${type}" must be one of ${CHAT_TYPES.join(', ')}`)
  return type as 'group' | 'supergroup' | 'channel' | undefined
}

function rights(body: Record<string, unknown>): string[] | undefined {
  const value = body.rights
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'string' || !/^(can_|is_anonymous$)/.test(r)))
    throw bad('rights must be a list of right names, e.g. ["can_invite_users", "can_delete_messages"]')
  return value as string[]
}

function postMember(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, [
    'status',
    'by_user_id',
    'invite_link',
    'rights',
    'until_date',
    'custom_title',
    'chat_type',
    'title',
    'first_name',
    'username',
  ])
  const updates = emu.setMemberStatus(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    userId: pathInt(ctx, 'user_id', {min: 1}),
    status: str(body, 'status', true) as MemberStatus,
    byUserId: int(body, 'by_user_id', {min: 1}),
    inviteLink: str(body, 'invite_link'),
    rights: rights(body),
    untilDate: int(body, 'until_date', {min: 0}),
    customTitle: str(body, 'custom_title'),
    chatType: chatType(body),
    title: str(body, 'title'),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
  })
  return {updates}
}

function postJoinRequest(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, ['user_id', 'invite_link', 'bio', 'with_query', 'chat_type', 'title', 'first_name', 'username'])
  return emu.requestJoin(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    userId: int(body, 'user_id', {min: 1}),
    inviteLink: str(body, 'invite_link'),
    bio: str(body, 'bio'),
    withQuery: bool(body, 'with_query'),
    chatType: chatType(body),
    title: str(body, 'title'),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
  })
}

function postBot(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, ['status', 'by_user_id', 'rights', 'until_date', 'chat_type', 'title'])
  const updates = emu.setBotStatus(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    status: str(body, 'status', true) as MemberStatus,
    byUserId: int(body, 'by_user_id', {min: 1}),
    rights: rights(body),
    untilDate: int(body, 'until_date', {min: 0}),
    chatType: chatType(body),
    title: str(body, 'title'),
  })
  return {updates}
}

function getMembers(ctx: Ctx): unknown {
  const {members, inviteLinks, joinRequests} = ctx.emu.chatMembers(
    ctx.bot.token,
    pathInt(ctx, 'chat_id', {nonZero: true}),
  )
  return {members, invite_links: inviteLinks, join_requests: joinRequests}
}

export const MEMBER_ROUTES: Record<string, Route> = {
  'chats/:chat_id/members/:user_id': {method: 'POST', handler: postMember},
  'chats/:chat_id/join_requests': {method: 'POST', handler: postJoinRequest},
  'chats/:chat_id/bot': {method: 'POST', handler: postBot},
  'chats/:chat_id/members': {method: 'GET', handler: getMembers},
}
