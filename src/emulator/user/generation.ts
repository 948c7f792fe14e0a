/**
 * A user stops the generation of a message (Bot API 10.3, MessageGenerationStopped): a draft sent with `can_stop`
 * (sendMessageDraft / sendRichMessageDraft) shows a stop button; pressing it sends the bot a
 * `stopped_message_generation` update with the chat, the topic and the draft's id.
 */
import type {BotState} from '../state/bot.js'
import type {Chat} from '../telegram.js'

export interface StopGenerationOptions {
  /** The draft's id (draft_id of the draft method). */
  draftId: number
  /** The private chat of the draft (default 1111, the default user's). */
  chatId?: number
  messageThreadId?: number
}

/** The `stopped_message_generation` update body (without update_id). */
export function stoppedGeneration(
  bot: BotState,
  options: StopGenerationOptions,
): {stopped_message_generation: {chat: Chat; message_thread_id?: number; draft_id: number}} {
  if (!Number.isSafeInteger(options.draftId) || options.draftId === 0)
    throw new Error('draftId must be a non-zero integer (the draft_id the bot sent)')
  const chatId = options.chatId ?? 1111
  const chat = bot.findChat(String(chatId))
  if (!chat) throw new Error(`chat ${chatId} is unknown to the bot: a user must talk to it first`)
  return {
    stopped_message_generation: {
      chat,
      ...(options.messageThreadId !== undefined ? {message_thread_id: options.messageThreadId} : {}),
      draft_id: options.draftId,
    },
  }
}
