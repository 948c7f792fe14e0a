/**
 * `bot trigger message|callback|update` and a replay in an `--offline` session as the emulator's user's action
 * (sendUserMessage, sendCallbackQuery, injectUpdate), so the emulator's state stays right; and what the emulator's
 * answer says: the update_ids it queued, or why it sent the bot nothing (dated more than a day ago, or left out by
 * the bot's allowed_updates), in our words with the fix.
 */
import type {Update} from '../emulator/index.js'
import {noButton} from './fill.js'
import type {OfflineTarget} from './offline-trigger.js'
import {ActionError, type TriggerRequest} from './protocol.js'
import {factsFromCalls} from './session-facts.js'
import {expiredDate, updateContent, withCurrentDate} from './synthetic.js'
import type {JsonObject as Json} from './requests.js'

/** The emulator user's action for a trigger request (a fixture is not one: fixture-trigger.ts). */
export function emulatorTrigger(offline: OfflineTarget, request: TriggerRequest): Update {
  const {emulator, token, user} = offline
  // A user id without a chat: that user's private chat; neither: the terminal user's chat.
  const chatId =
    'chatId' in request && request.chatId !== undefined
      ? request.chatId
      : 'userId' in request && request.userId !== undefined
        ? undefined
        : user.chatId
  const userId = 'userId' in request && request.userId !== undefined ? request.userId : user.userId
  const who = {
    userId,
    ...(chatId !== undefined ? {chatId} : {}),
    ...(userId === user.userId && user.firstName ? {firstName: user.firstName} : {}),
    ...(userId === user.userId && user.username ? {username: user.username} : {}),
  }
  if (request.kind === 'message') return emulator.sendUserMessage(token, {text: request.text, ...who})
  if (request.kind === 'callback') {
    let messageId = request.messageId
    if (messageId === undefined) {
      // The newest message of the bot in that chat with this button, as the emulator recorded the bot's calls.
      const chat = chatId ?? userId
      messageId = factsFromCalls(emulator.sentMessages(token, {chatId: chat})).button(chat, request.data)?.messageId
      if (messageId === undefined) throw noButton(chat, request.data)
    }
    return emulator.sendCallbackQuery(token, {data: request.data, messageId, ...who})
  }
  if (request.kind === 'fixture') throw new TypeError('a fixture is not a single emulator action')
  return emulator.injectUpdate(token, withoutUpdateId(withCurrentDate(request.update)))
}

/** The update_ids an action's JSON names (`update_id`, `update_ids`), the dropped ones (0) left out. */
export function updateIdsOf(result: unknown): number[] {
  if (!result || typeof result !== 'object') return []
  const ids = [
    'update_id' in result ? result.update_id : undefined,
    ...('update_ids' in result && Array.isArray(result.update_ids) ? result.update_ids : []),
  ]
  return ids.filter((id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id > 0)
}

/** Why an action's JSON says its update was not sent (update_id 0): its `reason` when it gives one. */
export function droppedReason(result: unknown): {reason?: string} | undefined {
  if (!result || typeof result !== 'object' || !('update_id' in result) || result.update_id !== 0) return undefined
  return 'reason' in result && typeof result.reason === 'string' ? {reason: result.reason} : {}
}

/** How to get an update type past allowed_updates: the flag of `bot dev`, or the bot's own list. */
export function allowedUpdatesFix(type: string): string {
  return `Restart \`bot dev\` with --allowed-updates naming it (e.g. --allowed-updates message,callback_query,${type}), or add "${type}" to the allowed_updates the bot passes to getUpdates or setWebhook.`
}

/** Why the emulator dropped an update (its answer's update_id is 0), as Telegram would have. */
export function droppedError(update: Json, now = Date.now()): ActionError {
  const date = expiredDate(update, now)
  if (date !== undefined)
    return new ActionError(
      422,
      `The emulator dropped the update: it is dated ${new Date(date * 1000).toISOString()}, more than 24 hours ago, and Telegram never delivers an update that old.`,
      'Date it within the last 24 hours.',
    )
  const type = updateContent(update).type ?? 'unknown'
  return new ActionError(
    422,
    `The emulator dropped the update: the bot's allowed_updates exclude its type (${type}).`,
    allowedUpdatesFix(type),
  )
}

/** The update with `update_id` first (as Telegram writes it: the relay and tools read it from the start). */
export function withUpdateId(update: Json, updateId: number): Json {
  return {update_id: updateId, ...withoutUpdateId(update)}
}

export function withoutUpdateId(update: Json): Json {
  const {update_id: _ignored, ...rest} = update
  return rest
}
