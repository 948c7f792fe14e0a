/**
 * What a user's app sends when a reply keyboard button asks for something (core.telegram.org/bots/api#keyboardbutton):
 * `request_contact` → a message with the user's own `contact`, `request_location` → a `location`, `request_users` →
 * `users_shared` {request_id, users}, `request_chat` → `chat_shared` {request_id, chat_id, title?}. Each is a message
 * from the user in the chat of the keyboard.
 */
import type {BotState} from '../state/bot.js'
import type {UserMessageOptions} from '../types.js'
import type {Message} from '../telegram.js'
import {userMessage} from './actions.js'

export type ShareBase = Omit<UserMessageOptions, 'text'>

export type Shared =
  | {kind: 'contact'; phoneNumber: string}
  | {kind: 'location'; latitude: number; longitude: number}
  | {kind: 'users'; requestId: number; userIds: number[]}
  | {kind: 'chat'; requestId: number; chatId: number}

/** The message the user's app sends for a shared contact, location, users or chat. */
export function sharedMessage(bot: BotState, base: ShareBase, shared: Shared): Message {
  const {text: _text, entities: _entities, ...message} = userMessage(bot, {...base, text: ''})
  const from = message.from
  switch (shared.kind) {
    case 'contact':
      // a channel's post has no user to share (sender_chat instead)
      if (!from) throw new Error('a contact is shared by a user: not in a channel')
      return {
        ...message,
        contact: {
          phone_number: shared.phoneNumber,
          first_name: from.first_name,
          ...(from.last_name ? {last_name: from.last_name} : {}),
          user_id: from.id,
        },
      }
    case 'location':
      return {...message, location: {latitude: shared.latitude, longitude: shared.longitude}}
    case 'users':
      return {
        ...message,
        users_shared: {
          request_id: shared.requestId,
          users: shared.userIds.map((id) => {
            const known = bot.users.known(id)
            return {
              user_id: id,
              ...(known?.first_name ? {first_name: known.first_name} : {}),
              ...(known?.username ? {username: known.username} : {}),
            }
          }),
        },
      }
    case 'chat': {
      const chat = bot.chats.get(String(shared.chatId))
      return {
        ...message,
        chat_shared: {
          request_id: shared.requestId,
          chat_id: shared.chatId,
          ...(typeof chat?.title === 'string' ? {title: chat.title} : {}),
        },
      }
    }
  }
}
