/**
 * Communities (Bot API 10.2, core.telegram.org/bots/api Community): a group of chats. A user adds a group,
 * supergroup or channel to a community or removes it from one: the chat's service message `community_chat_added`
 * `{community}` or `community_chat_removed` `{}`, and getChat's `ChatFullInfo.community` from then on. A user who
 * joins a chat of a community from the community (10.3) brings the `community_chat_joined` `{community}` service
 * message after the join's own updates.
 */
import type {BotState} from '../state/bot.js'
import {groupChat} from '../state/member-updates.js'
import type {Community} from '@grammyjs/types'
import type {TgObject} from '../types.js'
import {type Chat, type Message, type User, isObject} from '../telegram.js'
import {type MemberChange, setMemberStatus} from './members.js'
import {userFor} from './users.js'

export interface CommunityOptions {
  /** The group, supergroup or channel. */
  chatId: number
  /** The community's id (default: the chat's community, else 1). */
  communityId?: number
  /** The community's name (default: the known one, else "Test Community"). */
  name?: string
  /** Who adds or removes the chat (default 1111). */
  userId?: number
  firstName?: string
  username?: string
}

/** The chat's community (ChatFullInfo.community), if it is in one. */
export function communityOf(bot: BotState, chatId: number): Community | undefined {
  const community = bot.chatInfo.get(chatId).community
  return isObject(community) && typeof community.id === 'number' && typeof community.name === 'string'
    ? {id: community.id, name: community.name}
    : undefined
}

/** A service message's update: a group's `message`, a channel's `channel_post`. */
type ServiceUpdate = {message: Message} | {channel_post: Message}

/**
 * A service message in the chat: `message` from the user in a group or supergroup; in a channel a `channel_post`
 * signed by the channel (`sender_chat`), as a channel's service messages are.
 */
function serviceMessage(bot: BotState, chat: Chat, user: User, content: Record<string, unknown>): ServiceUpdate {
  const date = Math.floor(Date.now() / 1000)
  const id = bot.nextMessageId(chat.id)
  if (chat.type === 'channel') return {channel_post: {message_id: id, sender_chat: chat, chat, date, ...content}}
  return {message: {message_id: id, from: user, chat, date, ...content}}
}

function chatFor(bot: BotState, chatId: number): Chat {
  if (!Number.isSafeInteger(chatId) || chatId >= 0)
    throw new Error(
      `chat ${String(chatId)} must be a group, supergroup or channel (a negative id): communities hold those`,
    )
  return groupChat(bot, chatId)
}

/** A user adds the chat to a community (or moves it to another): `community_chat_added`. */
export function addToCommunity(bot: BotState, options: CommunityOptions): ServiceUpdate {
  const chat = chatFor(bot, options.chatId)
  const current = communityOf(bot, options.chatId)
  const id = options.communityId ?? current?.id ?? 1
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`community_id ${String(id)} must be a positive integer`)
  const community = {id, name: options.name ?? (current?.id === id ? current.name : 'Test Community')}
  if (current?.id === community.id && current.name === community.name)
    throw new Error(`chat ${options.chatId} is already in community ${id}`)
  bot.chatInfo.set(options.chatId, 'community', community)
  const user = userFor(bot, options.userId ?? 1111, options)
  return serviceMessage(bot, chat, user, {community_chat_added: {community}})
}

/** A user removes the chat from its community: `community_chat_removed` (an empty object, as the type is). */
export function removeFromCommunity(
  bot: BotState,
  options: Omit<CommunityOptions, 'communityId' | 'name'>,
): ServiceUpdate {
  const chat = chatFor(bot, options.chatId)
  if (!communityOf(bot, options.chatId)) throw new Error(`chat ${options.chatId} is in no community`)
  bot.chatInfo.set(options.chatId, 'community', undefined)
  const user = userFor(bot, options.userId ?? 1111, options)
  return serviceMessage(bot, chat, user, {community_chat_removed: {}})
}

/**
 * A user joins a community's chat from the community (Bot API 10.3 CommunityChatJoined): the join's updates (as
 * join_chat sends them), then the `community_chat_joined` service message.
 */
export function joinFromCommunity(bot: BotState, change: Omit<MemberChange, 'status'>): TgObject[] {
  const chat = chatFor(bot, change.chatId)
  const community = communityOf(bot, change.chatId)
  if (!community) throw new Error(`chat ${change.chatId} is in no community: add it first (add_to_community)`)
  const updates = setMemberStatus(bot, {...change, status: 'member'})
  const user = userFor(bot, change.userId ?? 1111, change)
  updates.push(serviceMessage(bot, chat, user, {community_chat_joined: {community}}))
  return updates
}
