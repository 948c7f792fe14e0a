/** Guest mode (Bot API 10.0): a user summons the bot in a chat it is not in (../user/guests.ts). */
import type {Update} from '../types.js'
import {type GuestOptions, guestMessage} from '../user/guests.js'
import {defineAction} from './action.js'
import {int, text, who} from './fields.js'

export const summonGuest = defineAction({
  name: 'summon_guest',
  description: 'the user summons the bot in a chat it is not in: a guest_message with guest_query_id',
  params: {
    chat_id: int('a group (negative id) or a private chat between users', {required: true, nonZero: true}),
    text: text('the message that mentions the bot', {required: true}),
    user_id: who.user_id,
    first_name: who.first_name,
    username: who.username,
    title: text("the group's title (default 'Test Group')"),
  },
  result: '{update_id, guest_message}',
  route: 'guest_messages',
  read: (f): GuestOptions => ({
    chatId: f.chat_id,
    text: f.text,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
    title: f.title,
  }),
  run: ({bot, inject}, options: GuestOptions): Update => inject(guestMessage(bot, options)),
  json: (update) => update,
})
