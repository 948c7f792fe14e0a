/** Public types of the Bot API emulator. Telegram objects are loosely typed on purpose: tests build them freely. */
import type {MediaKind} from './media-kinds.js'

/** A Telegram object (Update, Message, User, Chat…). */
export type TgObject = Record<string, unknown>

/** An Update as the Bot API sends it: `update_id` then one field named after its type. */
export interface Update {
  update_id: number
  [type: string]: unknown
}

export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free port. */
  port?: number
  /** Interface to listen on (default 127.0.0.1). */
  host?: string
  /**
   * Like the official server's `--local` (default true): http webhooks, any port, any IP, max_connections up to
   * 100000 (default 100). `false` applies the cloud rules: https only, ports 443/80/88/8443, no reserved IPs,
   * max_connections 1..100 (default 40).
   */
  local?: boolean
  /**
   * Host names the emulator resolves for setWebhook in local mode, as /etc/hosts would (name → IP),
   * e.g. a test's tunnel host. Local mode asks no DNS: other names but localhost are unknown.
   */
  hosts?: Record<string, string>
  /** Multiplies every delay: webhook retry backoff, Retry-After, rate limits, 409 hold, read timeout. Default 1. */
  timeScale?: number
  /**
   * Apply Telegram's flood limits to messages sent (about 1 per second per chat with short bursts, 20 per minute per
   * group, 30 per second in all), answering `429 Too Many Requests: retry after N` on the emulator's clock
   * (`timeScale` applies). Default false.
   */
  floodControl?: boolean
  /** Any well-formed token is accepted and gets a bot on first use (default false: unknown tokens → 401). */
  acceptAnyToken?: boolean
  /** First update_id of every new bot (default: a random 9-digit number, as Telegram does). */
  firstUpdateId?: number
  /** Webhook read timeout in ms before `timeScale` (default 60000, as the server's idle timeout). */
  webhookReadTimeoutMs?: number
  /**
   * How long a bot has to answer a pre_checkout_query, in ms, NOT scaled by `timeScale` (default: Telegram's
   * 10 s times timeScale). A test that speeds the emulator up keeps a window a loaded machine can meet.
   */
  preCheckoutWindowMs?: number
  /**
   * Multiplies the fixed lifetimes of queued updates (callback_query and shipping/pre_checkout queries 150 s,
   * inline_query 30 s, chosen_inline_result 600 s, others 24 h). Default 1. Messages always live until 24 h after
   * their date.
   */
  lifetimeScale?: number
  /** getMe's supports_inline_queries for the bots created (default false: Telegram sends inline queries only then). */
  supportsInlineQueries?: boolean
  /**
   * Host names also served on loopback, with any port (a name a proxy or /etc/hosts maps to the emulator, e.g.
   * `api.telegram.test`). Otherwise a loopback emulator serves only 127.0.0.1, localhost and [::1] with its port: any
   * other Host is a DNS-rebound name (403). Listening beyond loopback, every name is served anyway.
   */
  allowedHosts?: string[]
  /**
   * Whether a URL the bot names may point at loopback or a private address: a file sent by URL
   * (fetched from loopback and served back by getFile) and a setWebhook target. Default: only when
   * listening on loopback; listening elsewhere (`--host`), anyone on the network could otherwise
   * read the host's loopback-only services through the emulator, so such URLs are refused with
   * Telegram's texts unless this is true (`--allow-private-urls`).
   */
  allowPrivateUrls?: boolean
}

export interface CreateBotOptions {
  /** Use this token (the bot id is the part before ':'); default: a random well-formed token. */
  token?: string
  username?: string
  firstName?: string
  lastName?: string
  canJoinGroups?: boolean
  canReadAllGroupMessages?: boolean
  supportsInlineQueries?: boolean
  /** Bot API 10.0 guest mode: users may summon the bot in chats it is not in (getMe's supports_guest_queries). */
  supportsGuestQueries?: boolean
  /** Bot API 10.1: the bot processes join requests (supports_join_request_queries; join requests carry query_id). */
  supportsJoinRequestQueries?: boolean
}

export interface BotInfo {
  token: string
  id: number
  username: string
}

/** One API call as the emulator recorded it. */
export interface RecordedCall {
  /** 1, 2, 3… per bot in the order the calls were recorded (the control API's `seq`). */
  seq: number
  /** The method as called (original case). */
  method: string
  /** The first value of each parameter; JSON objects/arrays decoded; files as `{filename, mimeType, size}`. */
  params: Record<string, unknown>
  /** Epoch milliseconds when the call arrived. */
  at: number
  /** 'http' for a request to the API, 'webhook-reply' for a method answered in a webhook response. */
  source: 'http' | 'webhook-reply'
  /** The result on success. */
  result?: unknown
  /** The error on failure. */
  error?: {code: number; description: string}
}

/** The webhook as the bot set it (what `getWebhookInfo` partly shows; the secret is included for tests). */
export interface WebhookState {
  url: string
  secretToken?: string
  maxConnections: number
  allowedUpdates?: string[]
  ipAddress?: string
  hasCustomCertificate: boolean
}

/** One webhook POST attempt. */
export interface DeliveryEvent {
  token: string
  updateId: number
  ok: boolean
  status?: number
  error?: string
  ms: number
}

export interface UserMessageOptions {
  text: string
  /** Private chat id (default: the user id). A negative id makes a group chat. */
  chatId?: number
  userId?: number
  firstName?: string
  lastName?: string
  username?: string
  languageCode?: string
  /** Title of the group when chatId is negative (default 'Test Group'). */
  chatTitle?: string
  /** message_id of the message this one replies to. */
  replyToMessageId?: number
  /** The forum topic it is sent in (a supergroup with topics the bot knows: message_thread_id, is_topic_message). */
  messageThreadId?: number
  /** Unix time of the message (default: now). */
  date?: number
}

export interface CallbackQueryOptions {
  data: string
  /** A callback_game button was pressed: the query carries game_short_name instead of data. */
  gameShortName?: string
  /** The bot message whose inline button was pressed (its chat is used). */
  messageId?: number
  /**
   * Or the bot's ephemeral message (Bot API 10.2) whose button its receiver (userId) pressed: the query carries
   * that message as the user sees it (message_id 0, receiver_user, ephemeral_message_id).
   */
  ephemeralMessageId?: number
  chatId?: number
  userId?: number
  firstName?: string
  username?: string
}

export interface WaitOptions {
  chatId?: number | string
  timeoutMs?: number
  predicate?: (call: RecordedCall) => boolean
}

/** What is known about a user (emu.setUser, the control API's POST …/users/{user_id}). */
export interface UserProfileOptions {
  firstName?: string
  lastName?: string
  username?: string
  languageCode?: string
  isPremium?: boolean
}

/** The kinds of media a user can send (media-kinds.ts). */
/** The kinds of media a user can send (a file field of the control API's POST …/messages is named after its kind). */
export type UserMediaKind = MediaKind

/** A media message from a user: the real bytes (sizes and durations are read from them), a caption. */
export interface UserMediaOptions extends Omit<UserMessageOptions, 'text'> {
  kind: UserMediaKind
  data: Buffer
  /** The file's name (kept for documents, audio, video, animations). */
  filename?: string
  mimeType?: string
  caption?: string
  /** A sticker's emoji. */
  emoji?: string
  /** Seconds, width and height the user's app would send for video and audio (default: read from the bytes). */
  duration?: number
  width?: number
  height?: number
  /** An audio's title and performer. */
  title?: string
  performer?: string
}
