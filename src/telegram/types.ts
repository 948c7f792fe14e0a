/** The Bot API types this tool reads and the update types it knows. Field names follow the Bot API. */

/** The update types that carry a message (dated: Telegram drops one more than a day old). */
export const MESSAGE_UPDATE_TYPES = [
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_message',
  'edited_business_message',
] as const

/** The Bot API's own objects, from a types-only package that follows the Bot API (no code is loaded). */
import type {WebhookInfo as BotApiWebhookInfo} from '@grammyjs/types'

export type {Chat, Message, MessageEntity, PhotoSize, Update, User, UserFromGetMe} from '@grammyjs/types'

/** getWebhookInfo's result: the official server always sends `url` ("" when no webhook is set; Client.cpp JsonWebhookInfo). */
export type WebhookInfo = Omit<BotApiWebhookInfo, 'url'> & {url: string}

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
export function updateType(update: object): string {
  for (const key of Object.keys(update)) if (key !== 'update_id') return key
  return 'unknown'
}
