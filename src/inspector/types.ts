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
  /** Called for each new or changed entry; returns an unsubscribe function. */
  subscribe(listener: (entry: UpdateEntry, change: EntryChange) => void): () => void
}

export type TriggerRequest =
  | {kind: 'message'; text: string; chatId?: number; userId?: number}
  | {kind: 'callback'; data: string; messageId: number; chatId?: number; userId?: number}
  | {kind: 'update'; update: Record<string, unknown>}

/** What `bot trigger`, `bot replay` and the page's Replay buttons ask a running session to do. */
export interface SessionActions {
  /** Deliver a synthetic update (a new update_id) like a real one; offline: the emulator user's action. Resolves once the bot answered (or the delivery failed). */
  trigger(request: TriggerRequest): Promise<UpdateEntry>
  /** Deliver a recorded update again (optionally edited) as a new delivery the bot sees. */
  replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry>
}

/**
 * Left by a running session in the default state folder as `control-<pid>.json` (0600), removed at
 * exit: how `bot trigger`/`bot replay` reach it. No token in it.
 */
export interface ControlRecord {
  version: 1
  pid: number
  botId: number
  cwd: string
  offline: boolean
  mode: 'webhook' | 'polling'
  /** Loopback control port and its key (sent as the x-bot-dev-key header). */
  port: number
  key: string
  startedAt: string
  /** The on-disk JSONL history of this session (for `bot replay` of an older update). */
  historyFile?: string
}

/** Thrown by SessionActions when a request cannot be done (the control port answers 4xx with it). */
export class ActionError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fix?: string,
  ) {
    super(message)
    this.name = 'ActionError'
  }
}
