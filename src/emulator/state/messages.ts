/**
 * The messages of one bot's chats as the server knows them: who sent each (the bot or someone else), its current
 * content (edits applied) and whether it was deleted. Edits, replies, deletions and button presses look here.
 */
import type {Message} from '../telegram.js'

export interface StoredMessage {
  message: Message
  /** Sent by the bot itself (it may edit it), as opposed to a user's or another bot's message. */
  byBot: boolean
  deleted: boolean
}

/** Kept per bot; the oldest are forgotten beyond this (they then count as not found). */
const MAX_MESSAGES = 50_000

const keyOf = (chatId: number | string, messageId: number | string): string => `${String(chatId)}:${String(messageId)}`

export class MessageStore {
  private readonly byKey = new Map<string, StoredMessage>()
  /**
   * The keys, oldest first, from where the last forgotten one was: kept between calls because a new iterator would
   * walk over every deleted slot at the Map's front first (14 µs a message once the store is full).
   */
  private oldest?: IterableIterator<string>

  /** Store a new message, or its new content (an edit keeps who sent it and its place). */
  put(message: Message, byBot: boolean): void {
    const key = keyOf(message.chat.id, message.message_id)
    const known = this.byKey.get(key)
    if (known) {
      known.message = message
      known.deleted = false
      return
    }
    this.byKey.set(key, {message, byBot, deleted: false})
    if (this.byKey.size > MAX_MESSAGES) this.forgetOldest()
  }

  private forgetOldest(): void {
    let next = this.oldest?.next()
    if (!next || next.done) {
      // a Map iterator follows later changes (clear() included) but stays done once it ended: a new one then
      this.oldest = this.byKey.keys()
      next = this.oldest.next()
    }
    if (!next.done) this.byKey.delete(next.value)
  }

  /** The record of a message, deleted ones included. */
  get(chatId: number | string, messageId: number | string): StoredMessage | undefined {
    return this.byKey.get(keyOf(chatId, messageId))
  }

  /** A message that exists now (not deleted). */
  live(chatId: number | string, messageId: number | string): Message | undefined {
    const stored = this.byKey.get(keyOf(chatId, messageId))
    return stored && !stored.deleted ? stored.message : undefined
  }

  /** Mark a message deleted; false when there was no such message (or it was already deleted). */
  markDeleted(chatId: number | string, messageId: number | string): boolean {
    const stored = this.byKey.get(keyOf(chatId, messageId))
    if (!stored || stored.deleted) return false
    stored.deleted = true
    return true
  }

  /** The records of one chat, oldest first (deleted ones included). */
  inChat(chatId: number | string): StoredMessage[] {
    const prefix = `${String(chatId)}:`
    const out: StoredMessage[] = []
    for (const [key, stored] of this.byKey) if (key.startsWith(prefix)) out.push(stored)
    return out
  }

  clear(): void {
    this.byKey.clear()
  }

  /** Live messages as `[\`${chatId}:${messageId}\`, message]`, oldest first (like the Map this store replaced). */
  *[Symbol.iterator](): IterableIterator<[string, Message]> {
    for (const [key, stored] of this.byKey) if (!stored.deleted) yield [key, stored.message]
  }
}
