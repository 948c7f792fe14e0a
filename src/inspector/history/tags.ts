import {type JsonObject as Json, isJsonObject} from '../../lib/json-object.js'
/**
 * The kinds the inspector tags an update with (UpdateEntry.tags), from its type and content, and
 * from the calls made for it (an update whose handler sent an invoice is part of a payment). One
 * word each; an update may have several (a photo sent as a command has none of both: a message is
 * `command`, `text` or `media`). The page filters on them, `GET /api/updates?tag=` too.
 */

/** The tags the inspector uses, in the order it lists them. */
export const TAGS = [
  'command',
  'text',
  'media',
  'edit',
  'button',
  'inline',
  'payment',
  'reaction',
  'membership',
  'business',
  'web-app',
  'poll',
  'boost',
  'widget',
  'draft',
] as const

export type Tag = (typeof TAGS)[number]

const BY_TYPE: Record<string, Tag[]> = {
  edited_message: ['edit'],
  edited_channel_post: ['edit'],
  callback_query: ['button'],
  inline_query: ['inline'],
  chosen_inline_result: ['inline'],
  shipping_query: ['payment'],
  pre_checkout_query: ['payment'],
  purchased_paid_media: ['payment'],
  message_reaction: ['reaction'],
  message_reaction_count: ['reaction'],
  chat_member: ['membership'],
  my_chat_member: ['membership'],
  chat_join_request: ['membership'],
  business_connection: ['business'],
  business_message: ['business'],
  edited_business_message: ['business', 'edit'],
  deleted_business_messages: ['business'],
  poll: ['poll'],
  poll_answer: ['poll'],
  chat_boost: ['boost'],
  removed_chat_boost: ['boost'],
  // Bot API 10.2-10.4
  subscription: ['payment'],
  widget_query: ['widget'],
  shared_widget_query: ['widget'],
  stopped_message_generation: ['draft'],
}

const MEDIA = ['photo', 'video', 'animation', 'audio', 'document', 'voice', 'video_note', 'sticker']

/** The tags of a message's content (also for a business message). */
function messageTags(message: Json): Tag[] {
  const tags: Tag[] = []
  if (message.successful_payment || message.refunded_payment || message.invoice || message.paid_media)
    tags.push('payment')
  if (message.new_chat_members || message.left_chat_member) tags.push('membership')
  if (message.web_app_data) tags.push('web-app')
  if (message.poll) tags.push('poll')
  if (message.boost_added) tags.push('boost')
  if (message.widget) tags.push('widget')
  if (MEDIA.some((k) => message[k] !== undefined)) tags.push('media')
  if (typeof message.text === 'string') tags.push(/^\/[A-Za-z0-9_]/.test(message.text) ? 'command' : 'text')
  return tags
}

/** An update's tags (none for one that is not an object). */
export function updateTags(update: unknown): Tag[] {
  if (!isJsonObject(update)) return []
  const type = Object.keys(update).find((k) => k !== 'update_id')
  if (type === undefined) return []
  const body = update[type]
  const tags = new Set<Tag>(Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type] : [])
  if (isJsonObject(body) && /message|channel_post/.test(type)) for (const t of messageTags(body)) tags.add(t)
  return TAGS.filter((t) => tags.has(t))
}

/**
 * A tag a call adds to its update: sending an invoice or refunding a payment makes it part of a payment; a widget
 * method, of widgets; streaming a draft, of drafts.
 */
export function callTag(method: string): Tag | undefined {
  if (/^(sendinvoice|createinvoicelink|refundstarpayment|edituserstarsubscription|sendpaidmedia)$/i.test(method))
    return 'payment'
  if (/^(sendwidget|sendsharedwidget|answerwidgetquery|editmessagewidgetdata|editsharedwidgetdata)$/i.test(method))
    return 'widget'
  return /^(sendmessagedraft|sendrichmessagedraft)$/i.test(method) ? 'draft' : undefined
}
