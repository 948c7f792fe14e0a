/**
 * Records a conversation from the emulator's own events, for write.ts: each update queued for the bot (whoever
 * made it: the offline chat, `bot trigger`, the payment flow) opens a turn, and each call of the bot's that follows
 * joins the newest turn of its chat (or the newest turn, for a call that names none, such as answerCallbackQuery).
 * Calls before the first update (getMe, setMyCommands…) belong to no turn. Only updates of the chats asked for are
 * kept, and at most `limit` turns (the oldest go first): a long session holds a bounded record.
 */
import type {EventEmitter} from 'node:events'

import {chatOf, type RecordedTurn} from './write.js'

/** An update as the emulator's `update` event gives it. */
interface SourceUpdate {
  update_id: number
  [key: string]: unknown
}

/** A call as the emulator's `call` event gives it (a RecordedCall). */
interface SourceCall {
  method: string
  params: Record<string, unknown>
  result?: unknown
  error?: unknown
}

/** The emulator's events a recorder listens to (BotApiEmulator has them). */
export interface RecordingSource {
  on(event: 'update', listener: (update: SourceUpdate, token: string) => void): unknown
  on(event: 'call', listener: (call: SourceCall, token: string) => void): unknown
  off(event: 'update', listener: (update: SourceUpdate, token: string) => void): unknown
  off(event: 'call', listener: (call: SourceCall, token: string) => void): unknown
}

export interface RecorderOptions {
  /** Keep only the updates of these chats (default: every chat). */
  chats?: number[]
  /** Most turns kept (default 2000; the oldest go first). */
  limit?: number
}

export interface ConversationRecorder {
  /** The turns so far, oldest first (copies: later calls do not change them). */
  turns(): RecordedTurn[]
  /** Forget what was recorded (a new conversation starts). */
  clear(): void
  /** Stop listening. Idempotent. */
  stop(): void
}

const DEFAULT_LIMIT = 2000
/** Calls kept per turn (a broadcast loop makes thousands; a script of them is no test anyone reads). */
const MAX_CALLS_PER_TURN = 200

export function recordConversation(
  source: RecordingSource | EventEmitter,
  token: string,
  options: RecorderOptions = {},
): ConversationRecorder {
  const emitter: RecordingSource = source
  const limit = Math.max(1, options.limit ?? DEFAULT_LIMIT)
  const chats = options.chats ? new Set(options.chats) : undefined
  let turns: Array<RecordedTurn & {chatId?: number}> = []
  const onUpdate = (update: SourceUpdate, from: string) => {
    if (from !== token || update.update_id === 0) return
    const chat = chatOf(update)
    const chatId = typeof chat?.id === 'number' ? chat.id : undefined
    // An update with no chat (a pre-checkout query) belongs to its user's private chat.
    const userChat = (() => {
      for (const value of Object.values(update))
        if (value && typeof value === 'object' && 'from' in value) {
          const id = value.from && typeof value.from === 'object' && 'id' in value.from ? value.from.id : undefined
          if (typeof id === 'number') return id
        }
      return undefined
    })()
    const where = chatId ?? userChat
    if (chats && (where === undefined || !chats.has(where))) return
    turns.push({update: structuredClone(update), calls: [], ...(where !== undefined ? {chatId: where} : {})})
    if (turns.length > limit) turns = turns.slice(-limit)
  }
  const onCall = (call: SourceCall, from: string) => {
    if (from !== token || turns.length === 0) return
    const named = Number(call.params.chat_id)
    let turn = turns.at(-1)!
    if (Number.isFinite(named) && call.params.chat_id !== undefined) {
      const own = turns.findLast((t) => t.chatId === named)
      // A call to a chat this record does not follow (a notice to an admin) is not part of it.
      if (!own) return
      turn = own
    }
    if (turn.calls.length >= MAX_CALLS_PER_TURN) return
    turn.calls.push({
      method: call.method,
      params: structuredClone(call.params),
      ok: call.error === undefined,
      ...(call.result !== undefined ? {result: structuredClone(call.result)} : {}),
    })
  }
  emitter.on('update', onUpdate)
  emitter.on('call', onCall)
  let stopped = false
  return {
    turns: () => turns.map(({update, calls}) => ({update: structuredClone(update), calls: structuredClone(calls)})),
    clear: () => {
      turns = []
    },
    stop: () => {
      if (stopped) return
      stopped = true
      emitter.off('update', onUpdate)
      emitter.off('call', onCall)
    },
  }
}
