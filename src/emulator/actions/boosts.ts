/** Boosts: a user boosts a channel or supergroup, or takes a boost back (../user/boosts.ts). */
import type {Update} from '../types.js'
import {type BoostOptions, boostChat as boost, removeBoost} from '../user/boosts.js'
import {defineAction} from './action.js'
import {int, text, who} from './fields.js'

const chat = int('the channel or supergroup', {required: true, nonZero: true})

export const boostChat = defineAction({
  name: 'boost_chat',
  description:
    'the user boosts a channel or supergroup: chat_boost (for an administrator bot), boost_added in a supergroup',
  params: {
    chat_id: chat,
    user_id: who.user_id,
    first_name: who.first_name,
    username: who.username,
    expiration_date: int('Unix time the boost expires (default: 30 days from now)', {min: 1}),
  },
  result: '{updates}: the updates queued',
  route: 'chats/:chat_id/boosts',
  read: (f): BoostOptions => ({
    chatId: f.chat_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
    expirationDate: f.expiration_date,
  }),
  run: ({bot, inject}, options: BoostOptions): Update[] => boost(bot, options).updates.map(inject),
  json: (updates) => ({updates}),
})

export const removeChatBoost = defineAction({
  name: 'remove_chat_boost',
  description: 'a boost is taken back: removed_chat_boost',
  params: {chat_id: chat, boost_id: text("the boost's id", {required: true})},
  result: '{update_id, removed_chat_boost} (update_id 0 when the bot administers no such chat)',
  route: 'chats/:chat_id/boosts/:boost_id/remove',
  read: (f): {chatId: number; boostId: string} => ({chatId: f.chat_id, boostId: f.boost_id}),
  run: ({bot, inject}, options: {chatId: number; boostId: string}): Update => {
    const body = removeBoost(bot, options)
    return body ? inject(body) : {update_id: 0}
  },
  json: (update) => update,
})
