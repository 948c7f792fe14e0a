/**
 * Membership: a user joins, leaves or asks to join a group or channel, their status changes, the bot is added or
 * removed; a user blocks or unblocks the bot (../user/members.ts, ../user/actions.ts).
 */
import type {MemberStatus} from '../state/members.js'
import {droppedReason} from '../state/updates.js'
import type {Update} from '../types.js'
import {setBlocked} from '../user/actions.js'
import {
  type JoinRequestOptions,
  type MemberChange,
  requestJoin as joinRequest,
  setBotStatus as botStatus,
  checkStatus,
  setMemberStatus as memberStatus,
} from '../user/members.js'
import {defineAction} from './action.js'
import {type FieldValues, InputError, bool, field, int, isListOf, text, who} from './fields.js'

const CHAT_TYPES = ['group', 'supergroup', 'channel'] as const

const chatType = field(
  {json: {type: 'string', enum: [...CHAT_TYPES]}, description: 'for a chat the bot has not seen: its type'},
  (value, name) => {
    if (typeof value !== 'string' || value === '') throw new InputError(`${name} must be a non-empty string`)
    const type = CHAT_TYPES.find((one) => one === value)
    if (type === undefined) throw new InputError(`chat_type "${value}" must be one of ${CHAT_TYPES.join(', ')}`)
    return type
  },
)

const rights = field(
  {
    json: {type: 'array', items: {type: 'string'}},
    description: "administrator rights or a restricted member's permissions set to true",
  },
  (value) => {
    if (!isListOf(value, (r): r is string => typeof r === 'string' && /^(can_|is_anonymous$)/.test(r)))
      throw new InputError('rights must be a list of right names, e.g. ["can_invite_users", "can_delete_messages"]')
    return value
  },
)

const status = text('creator, administrator, member, restricted, left or kicked', {required: true})
const chat = int('the group or channel (a negative id)', {required: true, nonZero: true})

export const setMemberStatus = defineAction({
  name: 'set_member_status',
  description:
    "a member's status changes in a group or channel: chat_member, and the service message of a join or departure",
  params: {
    chat_id: chat,
    user_id: int('the member', {required: true, min: 1}),
    status,
    by_user_id: int('who made the change', {min: 1}),
    invite_link: text('the invite link used to join (a link the bot made)'),
    rights,
    until_date: int('Unix time a restriction or ban ends', {min: 0}),
    custom_title: text("an administrator's custom title"),
    chat_type: chatType,
    title: text('for a chat the bot has not seen: its title'),
    first_name: who.first_name,
    username: who.username,
  },
  result: '{updates}: the updates queued (update_id 0: dropped)',
  route: 'chats/:chat_id/members/:user_id',
  read: (f): MemberChange => ({
    chatId: f.chat_id,
    userId: f.user_id,
    status: checkStatus(f.status),
    byUserId: f.by_user_id,
    inviteLink: f.invite_link,
    rights: f.rights,
    untilDate: f.until_date,
    customTitle: f.custom_title,
    chatType: f.chat_type,
    title: f.title,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, change: MemberChange): Update[] => memberStatus(bot, change).map(inject),
  json: (updates) => ({updates}),
})

type Move = Omit<MemberChange, 'status'>

const move = {
  chat_id: chat,
  user_id: who.user_id,
  invite_link: text('the invite link used (a link the bot made)'),
  first_name: who.first_name,
  username: who.username,
}

/** A join's or departure's fields (a departure names no invite link). */
function readMove(f: Omit<FieldValues<typeof move>, 'invite_link'> & {invite_link?: string}): Move {
  return {
    chatId: f.chat_id,
    userId: f.user_id,
    inviteLink: f.invite_link,
    firstName: f.first_name,
    username: f.username,
  }
}

export const joinChat = defineAction({
  name: 'join_chat',
  description: 'the user joins a group or channel (set_member_status with status member)',
  params: move,
  result: '{updates}: the updates queued (update_id 0: dropped)',
  read: readMove,
  run: ({bot, inject}, change: Move): Update[] => memberStatus(bot, {...change, status: 'member'}).map(inject),
  json: (updates) => ({updates}),
})

export const leaveChat = defineAction({
  name: 'leave_chat',
  description: 'the user leaves a group or channel (set_member_status with status left)',
  params: {chat_id: chat, user_id: who.user_id, first_name: who.first_name, username: who.username},
  result: '{updates}: the updates queued (update_id 0: dropped)',
  read: readMove,
  run: ({bot, inject}, change: Move): Update[] => memberStatus(bot, {...change, status: 'left'}).map(inject),
  json: (updates) => ({updates}),
})

/** "…the bot must call sendChatJoinRequestWebApp or directly call answerChatJoinRequestQuery within 10 seconds" (core.telegram.org/bots/api, ChatJoinRequest). */
const JOIN_QUERY_WINDOW_MS = 10_000

export const requestJoin = defineAction({
  name: 'request_join',
  description: 'the user asks to join (a join-request link): chat_join_request, answered with approve/decline',
  params: {
    chat_id: chat,
    user_id: who.user_id,
    invite_link: text('a link of the chat made with creates_join_request'),
    bio: text("the user's bio"),
    with_query: bool('Bot API 10.1: the request carries a query_id for answerChatJoinRequestQuery'),
    chat_type: chatType,
    title: text('for a chat the bot has not seen: its title'),
    first_name: who.first_name,
    username: who.username,
  },
  result: '{update_id, chat_join_request}, or {update_id: 0, reason} when the bot gets none',
  route: 'chats/:chat_id/join_requests',
  read: (f): JoinRequestOptions => ({
    chatId: f.chat_id,
    userId: f.user_id,
    inviteLink: f.invite_link,
    bio: f.bio,
    withQuery: f.with_query,
    chatType: f.chat_type,
    title: f.title,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject, window}, options: JoinRequestOptions): Update & {reason?: string} => {
    const made = joinRequest(bot, options, window(JOIN_QUERY_WINDOW_MS))
    if ('skipped' in made) return {update_id: 0, reason: made.skipped}
    const update = inject(made.update)
    return update.update_id !== 0 ? update : {update_id: 0, reason: droppedReason('chat_join_request')}
  },
  json: (result) => result,
})

export type BotChange = Omit<MemberChange, 'userId' | 'inviteLink' | 'customTitle'>

export const setBotStatus = defineAction({
  name: 'set_bot_status',
  description: 'the bot is added to, promoted in or removed from a group or channel: my_chat_member (and more)',
  params: {
    chat_id: chat,
    status,
    by_user_id: int('who made the change', {min: 1}),
    rights,
    until_date: int('Unix time a restriction or ban ends', {min: 0}),
    chat_type: chatType,
    title: text('for a chat the bot has not seen: its title'),
  },
  result: '{updates}: the updates queued (update_id 0: dropped)',
  route: 'chats/:chat_id/bot',
  read: (f): BotChange => ({
    chatId: f.chat_id,
    status: checkStatus(f.status),
    byUserId: f.by_user_id,
    rights: f.rights,
    untilDate: f.until_date,
    chatType: f.chat_type,
    title: f.title,
  }),
  run: ({bot, inject}, change: BotChange): Update[] => botStatus(bot, change).map(inject),
  json: (updates) => ({updates}),
})

const privateChat = int("the user's private chat (the user's id)", {required: true, min: 1})

export const blockBot = defineAction({
  name: 'block_bot',
  description: 'the user blocks the bot: sends to the chat fail with 403, and my_chat_member (member → kicked)',
  params: {chat_id: privateChat},
  result: '{update_id}: the my_chat_member update queued',
  read: (f): {chatId: number} => ({chatId: f.chat_id}),
  run: ({bot, inject}, {chatId}: {chatId: number}): Update => inject(setBlocked(bot, chatId, true)),
  json: (update) => ({update_id: update.update_id}),
})

export const unblockBot = defineAction({
  name: 'unblock_bot',
  description: 'the user unblocks the bot: sends work again, and my_chat_member (kicked → member)',
  params: {chat_id: privateChat},
  result: '{update_id}: the my_chat_member update queued',
  read: (f): {chatId: number} => ({chatId: f.chat_id}),
  run: ({bot, inject}, {chatId}: {chatId: number}): Update => inject(setBlocked(bot, chatId, false)),
  json: (update) => ({update_id: update.update_id}),
})
