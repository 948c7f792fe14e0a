/**
 * A bot's business connections (core.telegram.org/bots/api#businessconnection): the business accounts that connected
 * the bot, with their rights, and the messages of their private chats with customers. A business chat has the
 * customer's id as its chat id, the same id as the bot's own private chat with that customer: its messages are kept
 * here, per connection, apart from the bot's chats (the bot tells them apart by `business_connection_id`, as on
 * Telegram).
 */
import {randomBytes} from 'node:crypto'
import {badRequest} from '../errors.js'
import type {TgObject} from '../types.js'
import type {Message, User} from '../telegram.js'

/** The BusinessBotRights flags, in the server's order (BA `JsonBusinessBotRights`). */
export const BUSINESS_RIGHTS = [
  'can_reply',
  'can_read_messages',
  'can_delete_sent_messages',
  'can_delete_all_messages',
  'can_edit_name',
  'can_edit_bio',
  'can_edit_profile_photo',
  'can_edit_username',
  'can_view_gifts_and_stars',
  'can_convert_gifts_to_stars',
  'can_change_gift_settings',
  'can_transfer_and_upgrade_gifts',
  'can_transfer_stars',
  'can_manage_stories',
] as const

export interface BusinessConnection {
  id: string
  /** The business account's user. */
  user: User
  date: number
  isEnabled: boolean
  /** The rights set to true. */
  rights: Set<string>
}

interface StoredBusinessMessage {
  message: Message
  deleted: boolean
}

const MAX_CONNECTIONS = 10_000
const MAX_MESSAGES = 50_000

export class Business {
  readonly connections = new Map<string, BusinessConnection>()
  private readonly messages = new Map<string, StoredBusinessMessage>()
  private readonly lastIds = new Map<string, number>()

  add(user: User, rights: Iterable<string>, isEnabled: boolean): BusinessConnection {
    let id = ''
    while (id === '' || this.connections.has(id)) id = randomBytes(12).toString('base64url')
    const connection: BusinessConnection = {
      id,
      user,
      date: Math.floor(Date.now() / 1000),
      isEnabled,
      rights: new Set(rights),
    }
    this.connections.set(id, connection)
    if (this.connections.size > MAX_CONNECTIONS) this.connections.delete(this.connections.keys().next().value!)
    return connection
  }

  /** The connection, or the server's `business connection not found` (Client.cpp). */
  require(id: string): BusinessConnection {
    const connection = this.connections.get(id)
    if (!connection) throw badRequest('business connection not found')
    return connection
  }

  nextMessageId(connectionId: string, chatId: number): number {
    const key = `${connectionId}:${chatId}`
    const next = (this.lastIds.get(key) ?? 0) + 1
    this.lastIds.set(key, next)
    return next
  }

  /** The last message id used in a business chat (ids count per chat, as in a private chat). */
  lastMessageId(connectionId: string, chatId: number): number {
    return this.lastIds.get(`${connectionId}:${chatId}`) ?? 0
  }

  noteMessageId(connectionId: string, chatId: number, messageId: number): void {
    if (this.lastMessageId(connectionId, chatId) < messageId) this.lastIds.set(`${connectionId}:${chatId}`, messageId)
  }

  /** Store a message of a business chat (a new one, or the new content of an edited one). */
  put(connectionId: string, message: Message): void {
    const key = `${connectionId}:${message.chat.id}:${message.message_id}`
    this.messages.set(key, {message, deleted: false})
    if (this.messages.size > MAX_MESSAGES) this.messages.delete(this.messages.keys().next().value!)
  }

  /** A live message of a business chat. */
  message(connectionId: string, chatId: number, messageId: number): Message | undefined {
    const stored = this.messages.get(`${connectionId}:${chatId}:${messageId}`)
    return stored && !stored.deleted ? stored.message : undefined
  }

  /** Mark messages deleted; the ids that existed. */
  delete(connectionId: string, chatId: number, messageIds: number[]): number[] {
    const out: number[] = []
    for (const id of messageIds) {
      const stored = this.messages.get(`${connectionId}:${chatId}:${id}`)
      if (stored && !stored.deleted) {
        stored.deleted = true
        out.push(id)
      }
    }
    return out
  }

  /** The chats of a connection that have messages. */
  chatIds(connectionId: string): number[] {
    const prefix = `${connectionId}:`
    const out = new Set<number>()
    for (const key of this.messages.keys()) if (key.startsWith(prefix)) out.add(Number(key.split(':')[1]))
    return [...out]
  }

  /** The live messages of one business chat, oldest first. */
  chat(connectionId: string, chatId: number): Message[] {
    const prefix = `${connectionId}:${chatId}:`
    const out: Message[] = []
    for (const [key, stored] of this.messages) if (key.startsWith(prefix) && !stored.deleted) out.push(stored.message)
    return out.sort((a, b) => a.message_id - b.message_id)
  }

  clear(): void {
    this.connections.clear()
    this.messages.clear()
    this.lastIds.clear()
  }
}

/** A BusinessConnection as the Bot API writes it (BA `JsonBusinessConnection`): `can_reply` always, rights if any. */
export function businessConnectionJson(connection: BusinessConnection): TgObject {
  const rights: TgObject = {}
  for (const name of BUSINESS_RIGHTS) if (connection.rights.has(name)) rights[name] = true
  return {
    id: connection.id,
    user: connection.user,
    user_chat_id: connection.user.id,
    date: connection.date,
    is_enabled: connection.isEnabled,
    can_reply: connection.rights.has('can_reply'),
    ...(connection.rights.size > 0 ? {rights} : {}),
  }
}
