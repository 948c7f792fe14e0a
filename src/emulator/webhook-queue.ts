/**
 * The webhook queue of an update (the queue id Client.cpp add_update gives, WebhookActor.cpp load_updates keeps one
 * update in flight per queue): messages and chat events by chat, queries by the user who sent them, polls by poll id.
 * Self-contained (no imports), so both the emulator's webhook and `bot dev`'s bridge keep the same order.
 */

/** Update types queued by their chat. */
const BY_CHAT = new Set([
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_message',
  'edited_business_message',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
  'message_reaction',
  'message_reaction_count',
  'stopped_message_generation',
])

/** Update types queued by the user who sent them (`from`, or `user` for a poll_answer and its like). */
const BY_USER = new Set([
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'poll_answer',
  'subscription',
  'widget_query',
  'shared_widget_query',
])

function field(o: unknown, key: string): unknown {
  const value: unknown = typeof o === 'object' && o !== null ? Reflect.get(o, key) : undefined
  return value
}

function numericId(o: unknown): number | undefined {
  const id = field(o, 'id')
  return typeof id === 'number' ? id : undefined
}

/**
 * `chat:<id>`, `user:<id>` or `poll:<id>` for an update that shares a queue; undefined for one that is a queue of its
 * own (another type, or the chat, user or poll is missing: the update is JSON from outside).
 */
export function sharedQueueOf(update: object): string | undefined {
  const type = Object.keys(update).find((key) => key !== 'update_id')
  if (type === undefined) return undefined
  const body = field(update, type)
  if (BY_CHAT.has(type)) {
    const chat = numericId(field(body, 'chat'))
    return chat === undefined ? undefined : `chat:${chat}`
  }
  if (BY_USER.has(type)) {
    const user = numericId(field(body, 'from')) ?? numericId(field(body, 'user'))
    return user === undefined ? undefined : `user:${user}`
  }
  if (type === 'poll') {
    const id = field(body, 'id')
    return id === undefined ? undefined : `poll:${String(id)}`
  }
  return undefined
}
