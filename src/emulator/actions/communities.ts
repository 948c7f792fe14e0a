/** Communities (Bot API 10.2-10.3): a user adds a chat to a community, removes it, joins it from one (../user/communities.ts). */
import type {Update} from '../types.js'
import {
  type CommunityOptions,
  addToCommunity as add,
  joinFromCommunity as joinFrom,
  removeFromCommunity as remove,
} from '../user/communities.js'
import type {MemberChange} from '../user/members.js'
import {defineAction} from './action.js'
import {int, text, who} from './fields.js'

const chat = int('the group, supergroup or channel (a negative id)', {required: true, nonZero: true})

export const addToCommunity = defineAction({
  name: 'add_to_community',
  description:
    'the user adds a group, supergroup or channel to a community: the community_chat_added service message; getChat shows the community',
  params: {
    chat_id: chat,
    community_id: int("the community's id (default: 1)", {min: 1}),
    name: text("the community's name (default 'Test Community')"),
    user_id: who.user_id,
    first_name: who.first_name,
    username: who.username,
  },
  result: '{update_id, message} (channel_post in a channel; update_id 0: dropped)',
  route: 'chats/:chat_id/community',
  read: (f): CommunityOptions => ({
    chatId: f.chat_id,
    communityId: f.community_id,
    name: f.name,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: CommunityOptions): Update => inject(add(bot, options)),
  json: (update) => update,
})

export const removeFromCommunity = defineAction({
  name: 'remove_from_community',
  description: 'the user removes the chat from its community: the community_chat_removed service message',
  params: {chat_id: chat, user_id: who.user_id, first_name: who.first_name, username: who.username},
  result: '{update_id, message} (channel_post in a channel; update_id 0: dropped)',
  route: 'chats/:chat_id/community/remove',
  read: (f): CommunityOptions => ({
    chatId: f.chat_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, options: CommunityOptions): Update => inject(remove(bot, options)),
  json: (update) => update,
})

export const joinFromCommunity = defineAction({
  name: 'join_from_community',
  description:
    "the user joins a community's chat from the community: the join's updates, then the community_chat_joined service message",
  params: {chat_id: chat, user_id: who.user_id, first_name: who.first_name, username: who.username},
  result: '{updates}: the updates queued (update_id 0: dropped)',
  route: 'chats/:chat_id/community/join',
  read: (f): Omit<MemberChange, 'status'> => ({
    chatId: f.chat_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
  }),
  run: ({bot, inject}, change: Omit<MemberChange, 'status'>): Update[] => joinFrom(bot, change).map(inject),
  json: (updates) => ({updates}),
})
