/**
 * What `bot trigger` / `bot replay` (control/client.ts) and the session's control port
 * (control/server.ts) agree on: the routes, the key header, the body cap, the requests, the
 * record a running session leaves for the clients to find it, and the error a refused request
 * carries. The clients load this module and never the server's.
 *
 *   POST /trigger  body TriggerRequest                              → 200 UpdateEntry
 *   POST /replay   body {updateId: number | 'last', update?: object} → 200 UpdateEntry
 *   otherwise      {error, fix} with 4xx/5xx (an ActionError's own status)
 */
import type {UpdateEntry} from '../inspector/types.js'

/** The header that carries the session's control key. */
export const KEY_HEADER = 'x-bot-dev-key'
/** The largest request body the control port reads. */
export const MAX_BODY_BYTES = 1024 * 1024

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
