/**
 * What getChat adds to a chat (ChatFullInfo) and the chat's set… methods change: description, permissions, photo,
 * sticker set. The chat's title lives in the chat itself (BotState.chats), as messages carry it.
 */
import type {TgObject} from '../types.js'

export class ChatInfoStore {
  private readonly byChat = new Map<number, TgObject>()

  /** The extra fields of a chat (empty when nothing was set). */
  get(chatId: number): TgObject {
    return this.byChat.get(chatId) ?? {}
  }

  /** Set (a value) or remove (undefined) one field. */
  set(chatId: number, field: string, value: unknown): void {
    const current = {...this.get(chatId)}
    if (value === undefined) delete current[field]
    else current[field] = value
    this.byChat.set(chatId, current)
  }

  clear(): void {
    this.byChat.clear()
  }
}
