/**
 * Whether a `bot dev` session manages this bot's webhook, read from the dev session state
 * (src/session-store/state.ts; never the token). Used by the webhook commands to warn before they change
 * a webhook that a running `bot dev` owns, and by `info` to say who set the current one.
 */
import {isPidAlive} from '../session-store/processes.js'
import {readState, type SessionState} from '../session-store/state.js'
import {botIdOf} from '../telegram/token.js'

export interface DevSessionStatus {
  pid: number
  startedAt: string
  /** The process is still running. */
  alive: boolean
  /** The webhook URL that session set, when it runs in webhook mode. */
  webhookUrl?: string
  /** The session runs against the same Bot API server. */
  sameApiRoot: boolean
}

export function devSessionFor(token: string, apiRoot: string): DevSessionStatus | undefined {
  const botId = botIdOf(token)
  if (botId === undefined) return undefined
  let state: SessionState | undefined
  try {
    state = readState(botId)
  } catch {
    return undefined
  }
  if (!state) return undefined
  return {
    pid: state.pid,
    startedAt: state.startedAt,
    alive: isPidAlive(state.pid),
    webhookUrl: state.webhook?.url,
    sameApiRoot: state.apiRoot.replace(/\/+$/, '') === apiRoot.replace(/\/+$/, ''),
  }
}
