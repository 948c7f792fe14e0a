/**
 * Inline mode of one bot: the inline queries users made (each answerable once, while young), the answer the bot
 * gave, and the inline messages made when a user picked a result with a keyboard (what inline_message_id names).
 */
import {randomBytes} from 'node:crypto'
import type {TgObject} from '../types.js'
import type {User} from '../telegram.js'

/** An inline query a user made (core.telegram.org/bots/api#inlinequery). */
export type InlineQuery = {id: string; from: User; chat_type?: string; query: string; offset: string}

/** The bot's answerInlineQuery, as the emulator keeps it: the results as the bot sent them (methods/inline.ts checks). */
export type InlineAnswer = {
  results: TgObject[]
  cache_time: number
  is_personal: boolean
  next_offset: string
  button?: unknown
}

export interface InlineQueryState {
  query: InlineQuery
  madeAt: number
  answer?: InlineAnswer
}

export interface InlineMessageState {
  id: string
  /** The message content as the chosen result makes it (text/entities, or a location…), and its keyboard. */
  content: TgObject
  replyMarkup?: TgObject
}

const MAX = 10_000
const MAGIC = Buffer.from('EmI', 'latin1')

export class InlineStore {
  readonly queries = new Map<string, InlineQueryState>()
  readonly messages = new Map<string, InlineMessageState>()
  private serial = 0

  addQuery(query: InlineQuery): void {
    this.queries.set(query.id, {query, madeAt: Date.now()})
    if (this.queries.size > MAX) this.queries.delete(this.queries.keys().next().value!)
  }

  /** A new inline_message_id (20 bytes of base64url, as Telegram's), carrying this bot. */
  newMessageId(botId: number): string {
    this.serial += 1
    const bytes = Buffer.alloc(20)
    bytes[0] = 2 // the data centre
    MAGIC.copy(bytes, 4)
    bytes.writeBigInt64LE(BigInt(botId), 7)
    bytes.writeUInt32LE(this.serial, 15)
    bytes[19] = randomBytes(1)[0]
    return bytes.toString('base64url')
  }

  addMessage(message: InlineMessageState): void {
    this.messages.set(message.id, message)
    if (this.messages.size > MAX) this.messages.delete(this.messages.keys().next().value!)
  }

  clear(): void {
    this.queries.clear()
    this.messages.clear()
  }
}

/** How td reads an inline_message_id: base64url of 20 or 24 bytes; anything else is not one. */
export function readableInlineMessageId(id: string): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(id) || id.length % 4 === 1) return false
  const length = Buffer.from(id, 'base64url').length
  return length === 20 || length === 24
}
