/** waitForBotMessage: the next successful outgoing call of a bot not yet handed out, recorded or to come. */
import type {BotState} from '../state/bot.js'
import {isOutgoing} from '../methods/index.js'
import type {RecordedCall, WaitOptions} from '../types.js'
import {isObject} from '../telegram.js'

/** Where recorded calls are announced (the emulator's 'call' event). */
export interface CallEvents {
  on(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
  off(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
}

export function waitForCall(
  events: CallEvents,
  bot: BotState,
  options: WaitOptions,
  onStop: (fail: (err: Error) => void) => () => void,
): Promise<RecordedCall> {
  const matches = (c: RecordedCall): boolean =>
    c.error === undefined &&
    isOutgoing(c.method) &&
    !bot.consumed.has(c) &&
    chatMatches(c, options.chatId) &&
    (options.predicate?.(c) ?? true)
  const found = bot.calls.find(matches)
  if (found) {
    bot.consumed.add(found)
    return Promise.resolve(found)
  }
  const timeoutMs = options.timeoutMs ?? 5000
  return new Promise((resolve, reject) => {
    const onCall = (call: RecordedCall, callToken: string): void => {
      if (callToken !== bot.token || !matches(call)) return
      bot.consumed.add(call)
      cleanup()
      resolve(call)
    }
    const timer = setTimeout(() => {
      cleanup()
      const where = options.chatId !== undefined ? ` in chat ${options.chatId}` : ''
      reject(new Error(`waitForBotMessage: no message from the bot${where} within ${timeoutMs} ms`))
    }, timeoutMs)
    const offStop = onStop((err) => {
      cleanup()
      reject(new Error(`waitForBotMessage: ${err.message}`))
    })
    const cleanup = (): void => {
      clearTimeout(timer)
      events.off('call', onCall)
      offStop()
    }
    events.on('call', onCall)
  })
}

/** The call targets `chatId` (its chat_id parameter, or the chat of the message it returned). */
export function chatMatches(call: RecordedCall, chatId: number | string | undefined): boolean {
  if (chatId === undefined) return true
  const param = call.params.chat_id
  if (param !== undefined && String(param) === String(chatId)) return true
  const chat = isObject(call.result) ? call.result.chat : undefined
  const id = isObject(chat) ? chat.id : undefined
  return id !== undefined && String(id) === String(chatId)
}
