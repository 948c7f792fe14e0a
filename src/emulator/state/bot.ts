/** The state of one bot: identity, its single update queue, known chats and messages, webhook settings. */
import {OpenQueries} from './open-queries.js'
import {Faults} from './faults.js'
import {FloodControl} from './flood.js'
import {MessageStore} from './messages.js'
import {BotProfile} from './profile.js'
import {ChatInfoStore} from './chat-info.js'
import {StickerSets} from './sticker-sets.js'
import {FileStore} from './files.js'
import {PollStore} from './polls.js'
import {CommandLists} from './commands.js'
import {InlineStore} from './inline.js'
import {UserDirectory} from './users.js'
import type {RecordedCall, TgObject, Update, WebhookState} from '../types.js'
import {type BotSender, type BotUser, type Chat, type Message, isObject} from '../telegram.js'
import {toInteger} from '../integer.js'
import {DEFAULT_ALLOWED, chatsIn, updateTypeOf, webhookQueueOf} from './updates.js'
import {Payments} from './payments.js'
import {Business} from './business.js'
import {Members} from './members.js'
import {AnswerOnce, Boosts} from './boosts.js'
import {EphemeralStore} from './ephemeral.js'
import {WidgetStore} from './widgets.js'
import {CloudStorage} from './cloud-storage.js'

/** One queued update. */
export interface QueueEntry {
  update: Update
  /** Webhook queue (one in flight per queue). */
  queue: string
  /** Webhook delivery bookkeeping. */
  failures: number
  nextAttemptAt: number
  inFlight: boolean
  /** Epoch ms after which the server drops the update unsent (Client.cpp add_update_impl: now + its lifetime). */
  expiresAt: number
  /** The update as JSON, made once when first sent (getUpdates answers and webhook POSTs reuse it). */
  json?: string
}

/** The waiting long poll (one slot per bot). */
export interface WaitingPoll {
  /** New updates were queued: answer (after the batching delay) if any is for this poll. */
  wake(): void
  /** Answer now with whatever is available (possibly []). */
  end(): void
  /** Fail it with a 409 (already rate-limited by the caller). */
  fail(description: string): void
}

export interface WebhookSettings extends WebhookState {
  certificate?: Buffer
  /** Resolved address (or the fixed ip_address). */
  resolvedIp?: string
  /** Fixed-IP mode: ip_address was given. */
  fixedIp: boolean
}

const INT32_MAX = 2147483647

export class BotState {
  readonly id: number
  readonly user: BotUser
  revoked = false
  loggedOut = false
  /** After `close`: 'closing' (requests get 500 restart), then 'closed' (the next request launches it again). */
  closeState?: 'closing' | 'closed'
  /** Multiplies the fixed update lifetimes (callback queries 150 s, inline queries 30 s…); not message dates. */
  lifetimeScale = 1
  /** URLs to loopback and private addresses allowed (files by URL, setWebhook): EmulatorOptions.allowPrivateUrls. */
  privateUrls = true
  readonly createdAt = Date.now()
  /** Every call, in order. */
  readonly calls: RecordedCall[] = []
  /** Calls already handed out by waitForBotMessage. */
  readonly consumed = new WeakSet<RecordedCall>()
  /** The `seq` of the last recorded call (it keeps counting across reset()). */
  callSeq = 0
  /** Calls being answered now, getUpdates excepted. */
  inFlight = 0
  /** Those calls themselves (their params are known from the start): a chat script waits for its own to end. */
  readonly running = new Set<RecordedCall>()
  /** Injected failures and blocked / migrated / deactivated chats. */
  readonly faults = new Faults()
  /** Flood control's counts (used when the emulator applies it: EmulatorOptions.floodControl). */
  readonly flood = new FloodControl()

  /** Queue in update_id order (a Map keeps insertion order and deletes in O(1)). */
  readonly queue = new Map<number, QueueEntry>()
  /** The next update_id to assign (the queue's tail). */
  nextUpdateId: number
  allowed: Set<string> = new Set(DEFAULT_ALLOWED)

  webhook?: WebhookSettings
  /** A setWebhook still checking its address (getUpdates gets 409 meanwhile). */
  pendingSetWebhook?: object
  lastErrorDate?: number
  lastErrorMessage?: string
  lastSetWebhookAt = -Infinity

  poll?: WaitingPoll
  lastConflictAt = -Infinity
  lastPoll?: {offset: number; at: number}

  /** Chats the bot may write to, by id (and by '@username'). */
  readonly chats = new Map<string, Chat>()
  /** Last message_id used per chat (user and bot messages share the counter, as in private chats). */
  readonly lastMessageId = new Map<string, number>()
  /** Every message of the bot's chats: sender, current content, deleted or not (see messages.ts). */
  readonly messages = new MessageStore()
  /** callback_query ids not yet answered, with the time each was made (they expire after 150 s). */
  readonly openCallbackQueries = new OpenQueries()
  /** The command lists, one per (scope, language) (commands.ts). */
  readonly commandLists = new CommandLists()

  /** Listeners woken when an update is queued (webhook worker). */
  onQueued?: () => void
  /** The name the bot was created with (getMe's first_name until setMyName changes it). */
  readonly defaultName: string
  /** What the bot says about itself: name, descriptions, menu button, default rights (profile.ts). */
  readonly profile = new BotProfile()
  /** The users who talk to the bot, one profile per id, and each chat's chat_instance (users.ts). */
  readonly users = new UserDirectory()
  /** What getChat adds to a chat and the chat's set… methods change (chat-info.ts). */
  readonly chatInfo = new ChatInfoStore()
  /** The sticker sets the bot created (sticker-sets.ts), and a counter for custom emoji ids. */
  readonly stickerSets = new StickerSets()
  stickerSerial = 1
  /** The bot's files: uploads, users' media, files sent by URL (files.ts). */
  readonly files: FileStore
  /** The polls the bot sent, their votes (polls.ts). */
  readonly polls = new PollStore()
  /** Inline queries, their answers and inline messages (inline.ts). */
  readonly inline = new InlineStore()
  /** Invoices, the payment queries waiting for answers, charges, Star transactions (payments.ts). */
  readonly payments = new Payments()
  /** Business connections and their chats' messages (business.ts). */
  readonly business = new Business()
  /** Members, invite links, join requests and reactions of the bot's chats (members.ts). */
  readonly members = new Members()
  /** Boosts of the bot's channels and supergroups; Mini App and guest queries waiting for their answer (boosts.ts). */
  readonly boosts = new Boosts()
  readonly webAppQueries = new AnswerOnce()
  readonly guestQueries = new AnswerOnce()
  /** Mini Apps' CloudStorage, per user (user/cloud-storage.ts). */
  readonly cloudStorage = new CloudStorage()
  /** Ephemeral messages and the callback queries they may answer (Bot API 10.2-10.4, ephemeral.ts). */
  readonly ephemeral = new EphemeralStore()
  /** Shared widgets and widget queries (Bot API 10.4, widgets.ts). */
  readonly widgets = new WidgetStore()
  /** setMySettings' callback_query_mode (Bot API 10.5): `default`, `auto` or `inline`. */
  callbackQueryMode = 'default'

  constructor(
    readonly token: string,
    info: {
      id: number
      firstName: string
      lastName?: string
      username: string
      canJoinGroups: boolean
      canReadAllGroupMessages: boolean
      supportsInlineQueries: boolean
      supportsGuestQueries?: boolean
      supportsJoinRequestQueries?: boolean
    },
    firstUpdateId: number,
  ) {
    this.id = info.id
    this.defaultName = info.firstName
    this.files = new FileStore(info.id)
    this.nextUpdateId = firstUpdateId
    this.user = {
      id: info.id,
      is_bot: true,
      first_name: info.firstName,
      ...(info.lastName ? {last_name: info.lastName} : {}),
      username: info.username,
      active_usernames: [info.username],
      can_join_groups: info.canJoinGroups,
      can_read_all_group_messages: info.canReadAllGroupMessages,
      supports_inline_queries: info.supportsInlineQueries,
      supports_guest_queries: info.supportsGuestQueries ?? false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: info.supportsJoinRequestQueries ?? false,
      needs_inline_query_location: false,
      has_topic_sidebar: false,
    }
  }

  /** The bot as `from` of its own messages. */
  get from(): BotSender {
    return {id: this.id, is_bot: true, first_name: this.user.first_name, username: this.user.username}
  }

  /**
   * Queue an update: filtered by allowed_updates at creation (Client.cpp add_update_impl), then given the next
   * update_id. Returns undefined when the filter drops it.
   */
  push(body: TgObject): Update | undefined {
    const type = updateTypeOf(body)
    if (!type || !this.allowed.has(type)) return undefined
    for (const chat of chatsIn(body)) this.rememberChat(chat)
    const content = body[type]
    const expiresAt = expiryOf(type, isObject(content) ? content : undefined, this.lifetimeScale)
    if (expiresAt <= Date.now()) return undefined // e.g. a message dated more than a day ago: never queued
    const {update_id: _ignored, ...rest} = body
    const ordered: Update = {update_id: this.nextUpdateId, ...rest}
    this.nextUpdateId = this.nextUpdateId >= INT32_MAX ? 1 : this.nextUpdateId + 1
    this.queue.set(ordered.update_id, {
      update: ordered,
      queue: webhookQueueOf(ordered),
      failures: 0,
      nextAttemptAt: 0,
      inFlight: false,
      expiresAt,
    })
    this.poll?.wake()
    this.onQueued?.()
    return ordered
  }

  /** Back to a fresh bot (same token and identity): no updates, webhook, calls, chats or settings. */
  reset(): void {
    this.poll?.end()
    this.webhook = undefined
    this.lastErrorDate = this.lastErrorMessage = undefined
    this.clearQueue()
    this.calls.length = 0
    this.faults.clear()
    this.chats.clear()
    this.messages.clear()
    this.lastMessageId.clear()
    this.openCallbackQueries.clear()
    this.loggedOut = false
    this.closeState = undefined
    this.lastSetWebhookAt = -Infinity
    this.lastConflictAt = -Infinity
    this.lastPoll = undefined
    this.allowed = new Set(DEFAULT_ALLOWED)
    this.commandLists.clear()
    this.profile.clear()
    this.users.clear()
    this.chatInfo.clear()
    this.stickerSets.clear()
    this.files.clear()
    this.polls.clear()
    this.inline.clear()
    this.user.first_name = this.defaultName
    this.payments.clear()
    this.business.clear()
    this.members.clear()
    this.boosts.clear()
    this.webAppQueries.clear()
    this.guestQueries.clear()
    this.cloudStorage.clear()
    this.ephemeral.clear()
    this.widgets.clear()
    this.callbackQueryMode = 'default'
  }

  /** Drop every pending update. */
  clearQueue(): void {
    this.queue.clear()
  }

  /** Drop the updates whose lifetime is over (the server never sends them). */
  dropExpired(now = Date.now()): void {
    for (const [id, entry] of this.queue) if (entry.expiresAt <= now && !entry.inFlight) this.queue.delete(id)
  }

  rememberChat(chat: Chat): void {
    const key = String(chat.id)
    const known = this.chats.get(key)
    this.chats.set(key, known ? {...known, ...chat} : chat)
    if (typeof chat.username === 'string') this.chats.set(`@${chat.username.toLowerCase()}`, this.chats.get(key)!)
  }

  /** The chat a `chat_id` parameter names, if the bot has seen it. */
  findChat(chatId: string): Chat | undefined {
    // a numeric id is read as Client::check_chat reads it: td::to_integer<int64>
    const key = chatId.startsWith('@') ? chatId.toLowerCase() : String(toInteger(chatId))
    return this.chats.get(key)
  }

  nextMessageId(chatId: number): number {
    const key = String(chatId)
    const next = (this.lastMessageId.get(key) ?? 0) + 1
    this.lastMessageId.set(key, next)
    return next
  }

  noteMessageId(chatId: number, messageId: number): void {
    const key = String(chatId)
    if ((this.lastMessageId.get(key) ?? 0) < messageId) this.lastMessageId.set(key, messageId)
  }

  storeMessage(message: Message): void {
    this.messages.put(message, message.from?.id === this.id)
  }

  /** A message of the chat that exists now (not deleted). */
  message(chatId: number, messageId: number): Message | undefined {
    return this.messages.live(chatId, messageId)
  }
}

/** Fixed lifetimes in seconds by update type (BA Client.cpp add_update); messages live until 24 h after their date. */
const LIFETIME_SECONDS: Record<string, number> = {
  callback_query: 150,
  inline_query: 30,
  chosen_inline_result: 600,
  shipping_query: 150,
  pre_checkout_query: 150,
}
const DATED = new Set([
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_message',
  'edited_business_message',
])
const DAY = 86_400

/** When an update of `type` expires: 24 h after the (edit) date of a message, else its fixed lifetime from now. */
function expiryOf(type: string, content: TgObject | undefined, scale: number): number {
  if (DATED.has(type)) {
    const date = typeof content?.edit_date === 'number' ? content.edit_date : content?.date
    if (typeof date === 'number') return (date + DAY) * 1000
  }
  return Date.now() + (LIFETIME_SECONDS[type] ?? DAY) * 1000 * scale
}
