/**
 * How a `bot dev` session ends: why it stopped (a signal, the bot's exit, an error), the exit code
 * that follows, and the summary it closes with.
 */
import {constants as osConstants} from 'node:os'

import type {BotExit} from './bot/process.js'
import type {RelayStats} from './relay/types.js'
import type {DevSummary} from './render.js'

export type StopReason =
  | 'SIGINT'
  | 'SIGTERM'
  | 'SIGHUP'
  | 'SIGPIPE'
  | 'bot-exit'
  /** The bot exited before it was up (or right after a restart) with nobody at a terminal to fix it. */
  | 'bot-failed'
  | 'aborted'
  | 'error'
  | 'stop'

export const SIGNAL_EXIT: Record<string, number> = {SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGPIPE: 141}

export function signalExitCode(signal: string | null): number {
  if (!signal) return 1
  const n = Object.entries(osConstants.signals).find(([name]) => name === signal)?.[1]
  return n ? 128 + n : 1
}

/** The session's exit code: the bot's when it ended the session (or crashed), 1 for an error or a webhook left set, else the signal's. */
export function exitCodeFor(
  reason: StopReason | undefined,
  exit: BotExit | undefined,
  crashed: boolean,
  cleanFailed: boolean,
): number {
  if (reason === 'bot-failed') return exit?.code || (exit?.signal ? signalExitCode(exit.signal) : 1)
  if (reason === 'bot-exit' || crashed) {
    if (!exit) return 1
    return exit.code ?? signalExitCode(exit.signal)
  }
  if (reason === 'error' || cleanFailed) return 1
  if (!exit) return reason && SIGNAL_EXIT[reason] ? SIGNAL_EXIT[reason] : 0
  // Stopped by us: an exit code is the bot's answer; our own signal is not a failure, nor is a
  // wrapper's (tsx, npm, sh) report of it as 128 + its number (143 for SIGTERM).
  if (exit.code !== null && !(exit.expected && STOP_SIGNAL_CODES.has(exit.code))) return exit.code
  return 0
}

/** 128 + the signals `bot dev` stops a bot with (SIGTERM, then SIGKILL) or a terminal sends it (SIGINT). */
const STOP_SIGNAL_CODES = new Set(['SIGTERM', 'SIGKILL', 'SIGINT'].map((s) => signalExitCode(s)))

/** What the summary is made of. */
export interface SummaryParts {
  mode: 'webhook' | 'polling'
  apiProxy: boolean | undefined
  stopReason: StopReason | undefined
  bot: {lastExit: BotExit | undefined; crashed: boolean; restarts: number} | undefined
  /** No bot process by design (--forward-to): a stop asked for is a clean end. */
  noBot?: boolean
  /** The relay's counters (webhook mode). */
  stats: RelayStats | undefined
  cleanFailed: boolean
  /** Update lines emitted (polling mode: the updates the api proxy saw the bot fetch). */
  updates: number
  /** performance.now() when the session began. */
  started: number
  /** The bot's failed Bot API calls, when the api proxy saw them. */
  failedCalls?: number
}

/** The session's summary; its exit code is `forcedExitCode` (a second signal) or follows from how it ended. */
export function sessionSummary(p: SummaryParts, forcedExitCode?: number): DevSummary {
  const exitCode =
    forcedExitCode ??
    (p.noBot
      ? p.stopReason === 'error' || p.cleanFailed
        ? 1
        : 0
      : exitCodeFor(p.stopReason, p.bot?.lastExit, p.bot?.crashed ?? false, p.cleanFailed))
  const stats = p.stats ?? {relayed: 0, failures: 0, rejected: 0, repeats: 0}
  // Polling has no relay: the updates the api proxy saw, when it ran (else nothing is known).
  const seen = p.mode === 'polling' && p.apiProxy !== false ? {seen: p.updates} : {}
  return {
    ...stats,
    ...seen,
    ...(p.apiProxy !== false && p.failedCalls !== undefined ? {failedCalls: p.failedCalls} : {}),
    restarts: p.bot?.restarts ?? 0,
    durationMs: Math.round(performance.now() - p.started),
    exitCode,
    reason: p.stopReason ?? 'stop',
    mode: p.mode,
  }
}
