/**
 * The outcome of a chat script as data: what runChatScript resolves with (run.ts adds the segments and ids) and what
 * a session's control API answers to POST /script (src/control/protocol.ts adds the bot's output). Types only, with
 * no imports, so clients that load no emulator code (`bot trigger`, `bot replay`) may use them
 * (.dependency-cruiser.cjs, trigger-loads-no-server).
 */

/** Why a script failed, at which step. */
export interface ChatScriptFailure {
  file?: string
  line: number
  column: number
  /** The step's index in `steps` (-1: the end of the script). */
  step: number
  /** The step's key (`bot`, `press`…). */
  key: string
  message: string
  /** What the step expects and what the bot did, as `key: value` lines, and their diff. */
  expected?: string[]
  actual?: string[]
  diff?: string
}

/** A run in figures, and its failures. */
export interface ChatScriptSummary {
  file?: string
  ok: boolean
  /** The number of steps in the script, and how many ran. */
  steps: number
  ran: number
  durationMs: number
  /** Epoch ms when it started and ended (a bot's output lines in between belong to it). */
  startedAt: number
  endedAt: number
  failures: ChatScriptFailure[]
}
