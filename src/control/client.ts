/**
 * The client side of the control port, for `bot trigger` and `bot replay`: find the running session (its control
 * record, picked by the token's bot id or the folder), check the user's input, send the request
 * (session-request.ts) and describe the delivered update (result-lines.ts). The request's parts are read in
 * trigger-request.ts and request-files.ts. No oclif, no printing: errors are FixableError (exit 1) or UsageError
 * (exit 2, nothing sent).
 */
import type {UpdateEntry} from '../inspector/types.js'
import {FixableError, UsageError} from '../lib/errors.js'
import {botIdOf} from '../telegram/token.js'
import type {ControlRecord, TriggerRequest, TriggerResult} from './protocol.js'
import {findControlRecord} from './record.js'
import {describeEntry, describeResult} from './result-lines.js'
import {sendToSession} from './session-request.js'
import {checkRequest} from './trigger-request.js'

export const NO_SESSION_FIX = 'Start `bot dev` (or `bot dev --offline`) in this folder first.'

/** The running session for this token (by bot id) or, without one, for this folder. Exit 1 when none. */
export function findSession(o: {token?: string; cwd?: string; dir?: string} = {}): ControlRecord {
  const botId = o.token ? botIdOf(o.token) : undefined
  const record = findControlRecord({botId, cwd: o.cwd ?? process.cwd(), dir: o.dir})
  if (!record)
    throw new FixableError(
      botId === undefined
        ? 'No running `bot dev` session in this folder.'
        : `No running \`bot dev\` session for bot ${botId}.`,
      {
        fix: NO_SESSION_FIX,
        code: 'no_session',
      },
    )
  return record
}

/** An integer flag or argument: exit 2 naming the value when it is not one. */
export function parseId(
  value: string | undefined,
  what: string,
  o: {positive?: boolean; nonNegative?: boolean; example: string},
): number | undefined {
  if (value === undefined) return undefined
  const n = /^-?\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN
  const ok = Number.isSafeInteger(n) && (o.positive ? n > 0 : o.nonNegative ? n >= 0 : n !== 0)
  if (!ok)
    throw new UsageError(
      `${what} "${value}" is not ${o.positive ? 'a positive integer' : o.nonNegative ? 'a non-negative integer' : 'a non-zero integer'}.`,
      `Pass e.g. ${o.example}. Nothing was sent.`,
    )
  return n
}

/** What `bot trigger` or `bot replay` got back from the session, and the lines that say it. */
export interface TriggerOutcome {
  entry: TriggerResult
  /** False when the bot answered with an error status (the command exits 1). */
  ok: boolean
  lines: string[]
}

export interface SessionLookup {
  /** BOT_TOKEN / --token when set: its bot id picks the session (no network call). */
  token?: string
  cwd?: string
  /** State folder (default stateDir()). */
  dir?: string
}

/** `bot trigger …`: checks the request (exit 2), finds the session (exit 1), delivers, describes. */
export async function triggerSession(request: TriggerRequest, o: SessionLookup = {}): Promise<TriggerOutcome> {
  const checked = checkRequest(request)
  const record = findSession(o)
  const entry = await sendToSession(record, '/trigger', checked)
  return {entry, ...describeResult(entry)}
}

/** `bot replay`: re-delivers a recorded update (`'last'`: the newest) through the session. */
export async function replaySession(updateId: number | 'last', o: SessionLookup = {}): Promise<TriggerOutcome> {
  const record = findSession(o)
  const entry: UpdateEntry = await sendToSession(record, '/replay', {updateId})
  return {entry, ...describeEntry(entry)}
}

/**
 * The token only picks a session (by its bot id): a --token without a bot id is bad input (exit 2);
 * a malformed BOT_TOKEN from the environment or .env is ignored (the session of this folder is used).
 */
export function sessionToken(token: string | undefined, fromFlag: boolean): string | undefined {
  if (!token) return undefined
  if (botIdOf(token) !== undefined) return token
  if (fromFlag)
    throw new UsageError(
      '--token is not a bot token (it does not start with the bot id and ":").',
      'Pass the token from @BotFather, or leave --token out to use the session started in this folder. Nothing was sent.',
    )
  return undefined
}
