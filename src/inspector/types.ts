/**
 * The inspector's shared shapes: what the api proxy records per Bot API call, what the session
 * keeps per update (the entries of `GET /api/updates`), what `bot trigger`/`bot replay` ask for,
 * and the control record a running session leaves (0600) so those commands can find it.
 *
 * Field names of ApiCall/UpdateEntry are a public contract (the JSON API of the inspector).
 */

/** One Bot API call the bot made, as recorded by the api proxy. Never holds the token. */
export interface ApiCall {
  method: string
  ok: boolean
  errorCode?: number
  description?: string
  retryAfter?: number
  /** Time from the first request byte to the last answer byte, in ms (one decimal). */
  ms: number
  /** A summary of the parameters: scalars as sent (long strings cut), files as {file: name, size}. */
  params: Record<string, unknown>
  /** ISO time the call started. */
  time: string
  /** What the call is about (chat_id / user_id of its parameters), used to attach it to an update. */
  chatId?: number | string
  userId?: number
  /** A known failure explained in one line (e.g. for "can't parse entities"). */
  explanation?: string
  /** Sent as the bot's answer to the webhook request (Telegram runs it but reports no result: `ok` only says it was handed over). */
  webhookReply?: boolean
  /** What the call returned, kept short (a Message as `{message_id, chat: {id, type}, date}`); only for a call that succeeded. */
  result?: unknown
  /** The api proxy answered it itself: it named a query, file or charge `bot trigger` made up (Telegram would not know it). */
  answeredLocally?: boolean
}

export type EntrySource = 'webhook' | 'polling' | 'trigger' | 'replay'

/** One update as the inspector shows it. */
export interface UpdateEntry {
  updateId: number
  /** ISO time the update reached the session. */
  time: string
  type: string
  chatId?: number
  /** Short text preview, token redacted. */
  preview?: string
  /** What a message holds: `photo`, `voice`, `successful_payment 1 XTR`, … (none for text and other updates). */
  content?: string
  update: unknown
  /** The bot's answer to the webhook request (null while in flight, and in polling mode). */
  answer: {status: number; body: string} | null
  calls: ApiCall[]
  /** Unique per session (update_ids repeat with replays). */
  seq: number
  source: EntrySource
  /** For a replay: the update_id it replays. */
  replayOf?: number
  /** Time the bot took to answer, in ms. */
  ms?: number
  /** The update was larger than the history keeps whole (64 KiB): `update` holds its start only; it cannot be replayed. */
  truncated?: boolean
  /** Calls made for it beyond the ones kept (100). */
  droppedCalls?: number
  /** What kind of update it is (history/tags.ts: payment, reaction, membership, business, command…). */
  tags?: string[]
  /** The flow it belongs to: a payment's invoice, pre-checkout query, payment and refund (history/threads.ts). */
  thread?: UpdateThread
}

/** An update's place in a flow of several (a purchase). */
export interface UpdateThread {
  /** The same for every update of the flow (`pay-<seq of its first>`); GET /api/threads/{id} lists them. */
  id: string
  kind: 'payment'
  /** invoice, shipping, pre_checkout, payment, refund, refunded. */
  step: string
}

export type EntryChange = 'new' | 'update'

/** What the inspector server and the control port read from the session's history. */
export interface HistoryView {
  /** Newest first. */
  list(): UpdateEntry[]
  /** The newest entry with that update_id (memory first, then the on-disk log). */
  find(updateId: number): UpdateEntry | undefined
  /** The newest entry. */
  last(): UpdateEntry | undefined
  /** The entries of a thread (a payment's updates), oldest first. */
  thread?(id: string): UpdateEntry[]
  /** Called for each new or changed entry; returns an unsubscribe function. */
  subscribe(listener: (entry: UpdateEntry, change: EntryChange) => void): () => void
}

/**
 * A request the session refused or could not carry out (a replay of an unknown update, a bot that
 * did not answer in time): the HTTP status to answer with, the reason and a fix. The control
 * layer's ActionError has this shape; the inspector's server reads it by shape.
 */
export interface ActionFailure {
  status: number
  message: string
  fix?: string
}
