/**
 * Ephemeral messages (Bot API 10.2): messages a bot shows one user of a chat (`receiver_user`), numbered per chat by
 * `ephemeral_message_id` (with `message_id` 0), edited and deleted by editEphemeralMessage… / deleteEphemeralMessage;
 * and the callback queries a bot may answer with one (10.3 `EphemeralMessageParameters.callback_query_id`): who
 * pressed which message's button, so that the query alone names the chat and the receiver (10.4).
 */
import type {TgObject} from '../types.js'

export interface EphemeralMessage {
  chatId: number
  receiverUserId: number
  message: TgObject
  /** Epoch ms when it was sent (a reply to it is accepted within 15 s, core.telegram.org ReplyParameters). */
  sentAt: number
  deleted: boolean
}

export interface CallbackOrigin {
  /** Who pressed (an injected query without a user id has none). */
  userId?: number
  chatId?: number
  messageId?: number
  /** The pressed message was itself ephemeral: it is changed with editEphemeralMessage…, not replaced. */
  ephemeral: boolean
}

/** Kept per bot; the oldest are forgotten beyond this. */
const MAX = 10_000

const key = (chatId: number, receiverUserId: number, id: number): string => `${chatId}:${receiverUserId}:${id}`

export class EphemeralStore {
  private readonly messages = new Map<string, EphemeralMessage>()
  private readonly lastIds = new Map<number, number>()
  private readonly origins = new Map<string, CallbackOrigin>()

  /** The next ephemeral_message_id of a chat. */
  nextId(chatId: number): number {
    const next = (this.lastIds.get(chatId) ?? 0) + 1
    this.lastIds.set(chatId, next)
    if (this.lastIds.size > MAX) this.lastIds.delete(this.lastIds.keys().next().value!)
    return next
  }

  put(entry: EphemeralMessage): void {
    const id = entry.message.ephemeral_message_id as number
    this.messages.set(key(entry.chatId, entry.receiverUserId, id), entry)
    if (this.messages.size > MAX) this.messages.delete(this.messages.keys().next().value!)
  }

  /** The ephemeral message `id` a user received in a chat (deleted ones excluded). */
  get(chatId: number, receiverUserId: number, id: number): EphemeralMessage | undefined {
    const entry = this.messages.get(key(chatId, receiverUserId, id))
    return entry && !entry.deleted ? entry : undefined
  }

  /** The ephemeral message `id` of a chat, whoever received it. */
  inChat(chatId: number, id: number): EphemeralMessage | undefined {
    for (const entry of this.messages.values())
      if (entry.chatId === chatId && entry.message.ephemeral_message_id === id && !entry.deleted) return entry
    return undefined
  }

  /** Every ephemeral message still shown, oldest first. */
  all(): EphemeralMessage[] {
    return [...this.messages.values()].filter((e) => !e.deleted)
  }

  noteCallbackQuery(id: string, origin: CallbackOrigin): void {
    this.origins.set(id, origin)
    if (this.origins.size > MAX) this.origins.delete(this.origins.keys().next().value!)
  }

  callbackOrigin(id: string): CallbackOrigin | undefined {
    return this.origins.get(id)
  }

  clear(): void {
    this.messages.clear()
    this.lastIds.clear()
    this.origins.clear()
  }
}
