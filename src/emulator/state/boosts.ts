/** The boosts of a bot's channels and supergroups (DOC ChatBoost), and the queries a bot answers once by id. */
import type {TgObject} from '../types.js'

export interface Boost {
  chatId: number
  userId: number
  /** The ChatBoost object (BA `JsonChatBoost` 5357): boost_id, add_date, expiration_date, source. */
  boost: TgObject
}

const MAX_BOOSTS = 100_000

export class Boosts {
  private readonly byId = new Map<string, Boost>()

  add(boost: Boost): void {
    this.byId.set(`${boost.chatId}:${boost.boost.boost_id}`, boost)
    if (this.byId.size > MAX_BOOSTS) this.byId.delete(this.byId.keys().next().value!)
  }

  get(chatId: number, boostId: string): Boost | undefined {
    return this.byId.get(`${chatId}:${boostId}`)
  }

  remove(chatId: number, boostId: string): Boost | undefined {
    const boost = this.get(chatId, boostId)
    this.byId.delete(`${chatId}:${boostId}`)
    return boost
  }

  /** A user's active boosts of a chat, oldest first. */
  ofUser(chatId: number, userId: number): TgObject[] {
    const now = Math.floor(Date.now() / 1000)
    return [...this.byId.values()]
      .filter(
        (b) =>
          b.chatId === chatId &&
          b.userId === userId &&
          typeof b.boost.expiration_date === 'number' &&
          b.boost.expiration_date > now,
      )
      .map((b) => b.boost)
  }

  clear(): void {
    this.byId.clear()
  }
}

/**
 * Queries answered once, by id: Mini Apps opened with a query (answerWebAppQuery) and guest messages (Bot API 10.0,
 * answerGuestQuery), each with the user and chat it came from.
 */
export class AnswerOnce {
  private readonly open = new Map<string, {userId: number; chatId: number}>()
  private readonly lastIds = new Map<number, number>()

  /** Message ids of chats that are not the bot's (a guest bot's chats), counted here. */
  nextMessageId(chatId: number): number {
    const next = (this.lastIds.get(chatId) ?? 0) + 1
    this.lastIds.set(chatId, next)
    if (this.lastIds.size > MAX_BOOSTS) this.lastIds.delete(this.lastIds.keys().next().value!)
    return next
  }

  add(id: string, query: {userId: number; chatId: number}): void {
    this.open.set(id, query)
    if (this.open.size > MAX_BOOSTS) this.open.delete(this.open.keys().next().value!)
  }

  /** The query, taken (it can be answered once), or undefined. */
  take(id: string): {userId: number; chatId: number} | undefined {
    const query = this.open.get(id)
    this.open.delete(id)
    return query
  }

  clear(): void {
    this.open.clear()
    this.lastIds.clear()
  }
}
