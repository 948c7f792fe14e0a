/**
 * What `bot trigger` / `bot replay` (control/client.ts) and the session's control port
 * (control/server.ts) agree on: the routes, the key header, the body cap, the requests, the
 * record a running session leaves for the clients to find it, and the error a refused request
 * carries. The clients load this module and never the server's.
 *
 *   POST /trigger  body TriggerRequest                              → 200 TriggerResult
 *   POST /replay   body {updateId: number | 'last', update?: object} → 200 UpdateEntry
 *   and, for `bot mcp` (SessionQueries; server.ts has the full list):
 *   GET  /status, /actions, /updates, /updates/{id}, /calls, /output, /transcript
 *   POST /actions/{name} body the action's input  → 200 ActionOutcome
 *   POST /restart                                 → 200 RestartOutcome
 *   POST /faults   body FaultRequest (offline)     → 200 {ok: true, …}
 *   POST /script   body {text, file?, base_dir?} (offline) → 200 ChatScriptReport
 *   otherwise      {error, fix} with 4xx/5xx (an ActionError's own status)
 */
import type {ApiCall, UpdateEntry} from '../inspector/types.js'
import type {ChatScriptSummary} from '../emulator/scripts/result.js'
import type {FaultRequest, TriggerRequest} from './requests.js'

/** The header that carries the session's control key. */
export const KEY_HEADER = 'x-bot-dev-key'
/** The largest request body the control port reads. */
export const MAX_BODY_BYTES = 1024 * 1024

/** The largest /trigger body (a photo travels in it, base64); other requests keep MAX_BODY_BYTES. */
export const MAX_TRIGGER_BODY_BYTES = 8 * 1024 * 1024

/** The request bodies and their types, declared once as schemas (requests.ts). */
export type {FaultRequest, FixtureSet, ReplayRequest, ScriptRequest, TriggerRequest} from './requests.js'
export type {Refusal} from '../lib/refusal.js'

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

/** What the session is, for `bot mcp`'s status resource: no secret in it (no token, key, webhook path or secret). */
export interface SessionStatus {
  pid: number
  offline: boolean
  /** How updates reach the bot now (a webhook session switches to polling when the bot polls by itself). */
  mode: 'webhook' | 'polling'
  bot: {id: number; username?: string; first_name?: string}
  /** The bot process (absent with --forward-to, or before it started). */
  botPid?: number
  botRunning: boolean
  /** Why the bot cannot take an update now (it exited and waits for a fix). */
  botDown?: string
  restarts: number
  /** The inspector's page without its key; the emulator's api root offline. */
  inspector?: string
  emulator?: string
  cwd: string
  startedAt: string
  counts: {updates: number; failedUpdates: number; calls: number; failedCalls: number}
}

/** One Bot API call of the bot, as `GET /calls` lists it (newest first): the recorded call and the update it belongs to. */
export type CallRow = ApiCall & {updateId?: number}

/** One line the bot printed (`GET /output`), the webhook secret and path hidden, the token redacted. */
export interface OutputLine {
  time: string
  stream: 'stdout' | 'stderr'
  line: string
  /** The bot process that printed it (a restart starts a new one). */
  pid?: number
}

/** A user action as this session can run it (`GET /actions`): the table's entry, and how it is delivered here. */
export interface SessionAction {
  name: string
  description: string
  /** The input as one JSON Schema object (the table's; online: the fields a synthetic update takes). */
  params: Record<string, unknown>
  result: string
}

/** What `POST /actions/{name}` did: the action's own result (offline: the emulator's JSON) and the updates the bot handled. */
export interface ActionOutcome {
  action: string
  result?: unknown
  /** The updates delivered for it, oldest first, each with the bot's answer and its Bot API calls. */
  entries: UpdateEntry[]
  /** A trigger of several updates (a payment): how it went. */
  flow?: TriggerFlow
}

export interface RestartOutcome {
  pid?: number
  restarts: number
  /** From the request to the bot taking updates again. */
  ms: number
}

/** One item of a chat's transcript (`GET /transcript`), oldest first: what the user did or what the bot's call showed. */
export interface TranscriptItem {
  time: string
  from: 'user' | 'bot'
  updateId?: number
  /** user: the update's type and content (a message, a callback_query…). */
  update?: unknown
  /** bot: the call as recorded (params summarised, result short). */
  call?: ApiCall
}

export interface Transcript {
  chatId?: number
  /** The chats the session saw, newest first. */
  chats: number[]
  items: TranscriptItem[]
}

/** A chat script's outcome as the emulator's runChatScript gives it (src/emulator/scripts/result.ts), and its output. */
export interface ChatScriptReport extends ChatScriptSummary {
  /** The bot's output lines while it ran. */
  output: OutputLine[]
}

/** What `bot mcp` asks of a running session besides trigger and replay (the routes of server.ts). */
export interface SessionQueries {
  status(): SessionStatus
  actions(): SessionAction[]
  act(name: string, input: Record<string, unknown>): Promise<ActionOutcome>
  updates(o: {limit: number; chatId?: number; type?: string}): UpdateEntry[]
  update(updateId: number): UpdateEntry | undefined
  calls(o: {limit: number; method?: string; failedOnly?: boolean}): CallRow[]
  output(o: {limit: number}): OutputLine[]
  restart(): Promise<RestartOutcome>
  transcript(o: {chatId?: number; limit: number}): Transcript
  fault(request: FaultRequest): Record<string, unknown>
  /** Offline: play a chat script (its YAML text) against the session's bot in the emulator. */
  script(request: {text: string; file?: string; baseDir?: string}): Promise<ChatScriptReport>
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
