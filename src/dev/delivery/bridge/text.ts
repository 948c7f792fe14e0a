/** The words of the bridge's events: what happened, and what the user can do about it. */
import {explainApiError} from '../../../telegram/explain.js'
import type {BotApi} from '../../../telegram/client.js'
import {BotApiError} from '../../../telegram/errors.js'
import type {ReplyOutcome} from './reply.js'

const where = (queue: string): string => (queue ? ` (${queue})` : '')

export function deliveredText(id: number, queue: string, status: number, ms: number, reply?: ReplyOutcome): string {
  const base = `update ${id}${where(queue)} → ${status} in ${ms.toFixed(1)} ms`
  if (!reply) return base
  return reply.error
    ? `${base}; its webhook reply ${reply.method} ${reply.error.startsWith('not run') ? 'was ' : 'failed: '}${reply.error}`
    : `${base}; webhook reply ${reply.method} done`
}

export function failingText(id: number, queue: string, what: string, attempts: number): string {
  return (
    `Update ${id}${where(queue)} keeps failing: ${what} (${attempts} attempts). Retrying with backoff; ` +
    'it stays pending at Telegram until the bot acknowledges it, and other chats keep flowing.'
  )
}

export function recoveredText(id: number, queue: string, attempts: number): string {
  return `Update ${id}${where(queue)} was acknowledged after ${attempts} attempts.`
}

export function conflictText(retryMs: number): {text: string; fix: string} {
  return {
    text:
      'Another program is polling this bot (409 Conflict: terminated by other getUpdates request). Telegram serves one ' +
      `getUpdates at a time, so each update goes to whichever asked last; the bridge backs off and tries again in ${Math.round(retryMs / 1000)} s.`,
    fix: 'Stop the other copy of this bot: `bot doctor` finds processes on this machine holding the token, and tells a deployment elsewhere.',
  }
}

export function pollErrorText(error: unknown, api: BotApi): string {
  if (error instanceof BotApiError) {
    if (error.kind === 'api' && error.code === 409) {
      return (
        `A webhook was set for this bot while the bridge was polling (409 ${error.description}): updates now go to that webhook.` +
        ' Run `bot webhook info` to see it.'
      )
    }
    const {message, fix} = explainApiError(error, api.apiRoot)
    return `getUpdates failed: ${message}${fix ? ` ${fix}` : ''}`
  }
  return `getUpdates failed: ${api.redact(error instanceof Error ? error.message : String(error))}.`
}
