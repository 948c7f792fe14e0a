/**
 * What `bot trigger` / `bot replay` (control/client.ts) and the session's control port
 * (control/server.ts) agree on: the routes, the key header, the body cap, the requests, the
 * record a running session leaves for the clients to find it, and the error a refused request
 * carries. The clients load this module and never the server's.
 *
 *   POST /trigger  body TriggerRequest                              → 200 TriggerResult
 *   POST /replay   body {updateId: number | 'last', update?: object} → 200 UpdateEntry
 *   otherwise      {error, fix} with 4xx/5xx (an ActionError's own status)
 */
import type {UpdateEntry} from '../inspector/types.js'

/** The header that carries the session's control key. */
export const KEY_HEADER = 'x-bot-dev-key'
/** The largest request body the control port reads. */
export const MAX_BODY_BYTES = 1024 * 1024

/** The largest /trigger body (a photo travels in it, base64); other requests keep MAX_BODY_BYTES. */
export const MAX_TRIGGER_BODY_BYTES = 8 * 1024 * 1024

/** One `--set path=value`, its value already read (fixtures.ts setValue). */
export interface FixtureSet {
  path: string[]
  value: unknown
}

export type TriggerRequest =
  | {kind: 'message'; text: string; chatId?: number; userId?: number}
  /** Without messageId: the newest bot message in the chat with a button of that callback_data. */
  | {kind: 'callback'; data: string; messageId?: number; chatId?: number; userId?: number}
  | {kind: 'update'; update: Record<string, unknown>}
  | {
      kind: 'fixture'
      /** A FIXTURE_TYPES name (photo, reaction, payment…). */
      type: string
      /** Written into the template before it is filled. */
      sets?: FixtureSet[]
      /** A template given as a file (`--file`) in place of the shipped one. */
      template?: {update: Record<string, unknown>; defaults?: Record<string, unknown>}
      /** photo: the image, base64. */
      file?: {base64: string; name?: string}
      chatId?: number
      userId?: number
    }

/** A trigger that is several updates (a payment: the pre-checkout query, then the successful payment). */
export interface TriggerFlow {
  kind: string
  /** payment: paid, refused, timeout; others: delivered. */
  status: string
  /** False when the flow did not go through (the command exits 1). */
  ok: boolean
  /** One line saying how it went. */
  text: string
  /** The updates delivered, in order. */
  entries: UpdateEntry[]
  /** payment: what the bot told the user when it refused. */
  errorMessage?: string
  /** payment: the telegram_payment_charge_id of the successful payment. */
  chargeId?: string
}

/** The entry of the (last) update a trigger delivered, and the flow when it was several. */
export type TriggerResult = UpdateEntry & {flow?: TriggerFlow}

/** What `bot trigger`, `bot replay` and the page's Replay buttons ask a running session to do. */
export interface SessionActions {
  /** Deliver a synthetic update (a new update_id) like a real one; offline: the emulator user's action. Resolves once the bot answered (or the delivery failed). */
  trigger(request: TriggerRequest): Promise<TriggerResult>
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

/** A refused request: what is wrong (naming the value) and how to fix it. */
export interface Refusal {
  error: string
  fix: string
}

/** Thrown by SessionActions when a request cannot be done (the control port and the inspector answer its status). */
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
