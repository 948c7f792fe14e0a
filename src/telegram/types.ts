/** The subset of Bot API types this tool reads. Field names follow the Bot API. */

/** The update types that carry a message (dated: Telegram drops one more than a day old). */
export const MESSAGE_UPDATE_TYPES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_message',
  'edited_business_message',
] as const

export interface User {
  id: number
  is_bot: boolean
  first_name: string
  last_name?: string
  username?: string
  language_code?: string
  can_join_groups?: boolean
  can_read_all_group_messages?: boolean
  supports_inline_queries?: boolean
}

export interface Chat {
  id: number
  type: 'private' | 'group' | 'supergroup' | 'channel'
  title?: string
  username?: string
  first_name?: string
  last_name?: string
}

export interface MessageEntity {
  type: string
  offset: number
  length: number
}

export interface Message {
  message_id: number
  from?: User
  chat: Chat
  date: number
  text?: string
  caption?: string
  entities?: MessageEntity[]
  [key: string]: unknown
}

export interface Update {
  update_id: number
  message?: Message
  edited_message?: Message
  channel_post?: Message
  callback_query?: {id: string; from: User; message?: Message; data?: string}
  [key: string]: unknown
}

export interface WebhookInfo {
  url: string
  has_custom_certificate: boolean
  pending_update_count: number
  ip_address?: string
  last_error_date?: number
  last_error_message?: string
  last_synchronization_error_date?: number
  max_connections?: number
  allowed_updates?: string[]
}

export interface GetUpdatesParams {
  offset?: number
  limit?: number
  timeout?: number
  allowed_updates?: string[]
}

export interface SetWebhookParams {
  url: string
  /** A certificate file: its path on disk, read when the request is sent. */
  certificate?: {path: string} | Blob
  ip_address?: string
  max_connections?: number
  allowed_updates?: string[]
  drop_pending_updates?: boolean
  secret_token?: string
}

export interface DeleteWebhookParams {
  drop_pending_updates?: boolean
}

/** Update types a bot can subscribe to with allowed_updates (Bot API 10.x). */
export const UPDATE_TYPES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'message_reaction',
  'message_reaction_count',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'purchased_paid_media',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
  'managed_bot',
  'guest_message',
  // Bot API 10.2-10.4
  'subscription',
  'stopped_message_generation',
  'widget_query',
  'shared_widget_query',
] as const

export type UpdateType = (typeof UPDATE_TYPES)[number]

/** The type of an update: the name of its one payload field. */
export function updateType(update: Update): string {
  for (const key of Object.keys(update)) if (key !== 'update_id') return key
  return 'unknown'
}
