/** Business connections: an account connects the bot, its chats get messages, edits and deletions (../user/business.ts). */
import {businessConnectionJson} from '../state/business.js'
import type {TgObject, Update} from '../types.js'
import {
  type BusinessMessageOptions,
  type ConnectOptions,
  businessMessage,
  connect,
  deleteBusinessMessages as deleteBody,
  editBusinessMessage as editBody,
  editConnection,
} from '../user/business.js'
import {defineAction} from './action.js'
import {InputError, bool, field, idList, int, text, who} from './fields.js'

const rights = field(
  {
    json: {type: 'array', items: {type: 'string'}},
    description: 'BusinessBotRights names set to true, e.g. ["can_reply"]',
  },
  (value) => {
    if (!Array.isArray(value))
      throw new InputError('rights must be a list of BusinessBotRights names, e.g. ["can_reply"]')
    // each name is checked against BusinessBotRights (user/business.ts)
    return value
  },
)

const connectionId = text("the business connection's id", {required: true})
/** The customer's chat (default 3333, the default customer). */
const customerChat = int("the customer's chat (default 3333)", {min: 1})

/** The connection and the customer's chat an edit or a deletion names. */
const inCustomerChat = (f: {connection_id: string; chat_id?: number}): {connectionId: string; chatId: number} => ({
  connectionId: f.connection_id,
  chatId: f.chat_id ?? 3333,
})

type Made = {connection: TgObject; update: Update}

export const connectBusiness = defineAction({
  name: 'connect_business',
  description: 'a business account connects the bot: a business_connection update',
  params: {
    user_id: int("the business account's user (default 2222)", {min: 1}),
    first_name: who.first_name,
    username: who.username,
    rights,
    is_enabled: bool('whether the connection is enabled (default true)'),
  },
  result: '{business_connection, update_id}',
  route: 'business_connections',
  read: (f): ConnectOptions => ({
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
    rights: f.rights,
    isEnabled: f.is_enabled,
  }),
  run: ({bot, inject}, options: ConnectOptions): Made => {
    const made = connect(bot, options)
    return {connection: businessConnectionJson(made.connection), update: inject(made.update)}
  },
  json: (made) => ({business_connection: made.connection, update_id: made.update.update_id}),
})

export interface ConnectionChange {
  id: string
  rights?: string[]
  isEnabled?: boolean
}

export const editBusinessConnection = defineAction({
  name: 'edit_business_connection',
  description: "the connection's rights change, or it is disabled or enabled again: a business_connection update",
  params: {connection_id: connectionId, rights, is_enabled: bool('false disconnects, true connects again')},
  result: '{business_connection, update_id}',
  route: 'business_connections/:connection_id',
  read: (f): ConnectionChange => ({id: f.connection_id, rights: f.rights, isEnabled: f.is_enabled}),
  run: ({bot, inject}, {id, ...change}: ConnectionChange): Made => {
    const made = editConnection(bot, id, change)
    return {connection: businessConnectionJson(made.connection), update: inject(made.update)}
  },
  json: (made) => ({business_connection: made.connection, update_id: made.update.update_id}),
})

export const sendBusinessMessage = defineAction({
  name: 'send_business_message',
  description: 'a customer (or the account itself) writes in a business chat: a business_message update',
  params: {
    connection_id: connectionId,
    text: text('the message text', {required: true}),
    user_id: int('the customer (default 3333)', {min: 1}),
    first_name: who.first_name,
    username: who.username,
    from_owner: bool('the business account itself writes'),
  },
  result: '{update_id, business_message}',
  route: 'business_connections/:connection_id/messages',
  read: (f): BusinessMessageOptions => ({
    connectionId: f.connection_id,
    text: f.text,
    customerId: f.user_id,
    firstName: f.first_name,
    username: f.username,
    fromOwner: f.from_owner,
  }),
  run: ({bot, inject}, options: BusinessMessageOptions): Update => inject(businessMessage(bot, options)),
  json: (update) => update,
})

export interface BusinessEdit {
  connectionId: string
  chatId: number
  messageId: number
  text: string
}

export const editBusinessMessage = defineAction({
  name: 'edit_business_message',
  description: 'a message of a business chat is edited: an edited_business_message update',
  params: {
    connection_id: connectionId,
    message_id: int('the message', {required: true, min: 1}),
    text: text('the new text', {required: true}),
    chat_id: customerChat,
  },
  result: '{update_id, edited_business_message}',
  route: 'business_connections/:connection_id/messages/:message_id/edit',
  read: (f): BusinessEdit => ({...inCustomerChat(f), messageId: f.message_id, text: f.text}),
  run: ({bot, inject}, options: BusinessEdit): Update => inject(editBody(bot, options)),
  json: (update) => update,
})

const messageIds = idList('the messages deleted', {
  missing: 'message_ids must be a non-empty list of message ids',
  bad: 'message_ids must be a non-empty list of message ids',
})

export interface BusinessDeletion {
  connectionId: string
  chatId: number
  messageIds: number[]
}

export const deleteBusinessMessages = defineAction({
  name: 'delete_business_messages',
  description: 'messages of a business chat are deleted: a deleted_business_messages update',
  params: {connection_id: connectionId, chat_id: customerChat, message_ids: messageIds},
  result: '{update_id, deleted_business_messages}',
  route: 'business_connections/:connection_id/messages/delete',
  read: (f): BusinessDeletion => ({...inCustomerChat(f), messageIds: f.message_ids}),
  run: ({bot, inject}, options: BusinessDeletion): Update => inject(deleteBody(bot, options)),
  json: (update) => update,
})
