/**
 * Before `bot dev` takes the updates (setWebhook, or its own getUpdates), is another program
 * long-polling this bot? The doctor's 409 probe answers for anywhere; a /proc scan names a local
 * one. Taking over cuts such a poller off; the session says so plainly.
 */
import type {BotApi} from '../telegram/index.js'
import {isSessionBot} from './orphan.js'

export interface PollerFound {
  /** Local processes holding the token (not our bot), e.g. "pid 42 (node bot.js)". */
  local: string[]
}

/** A poller's description, or undefined when none was seen (or the check could not run in time). */
export async function findRunningPoller(api: BotApi, token: string, options: {signal: AbortSignal; seconds?: number; excludeMarker?: string}): Promise<PollerFound | undefined> {
  const [{probePollers}, {findTokenHolders}] = await Promise.all([import('../doctor/probe.js'), import('../doctor/processes.js')])
  let outcome
  try {
    outcome = await probePollers(api, {seconds: options.seconds ?? 2, signal: options.signal})
  } catch {
    return undefined
  }
  if (outcome.kind !== 'conflict') return undefined
  const local: string[] = []
  try {
    const scan = await findTokenHolders(token)
    for (const holder of scan.holders) {
      if (holder.pid === process.pid) continue
      if (options.excludeMarker !== undefined && isSessionBot(holder.pid, options.excludeMarker)) continue // our own bot
      local.push(`pid ${holder.pid} (${holder.command})`)
    }
  } catch {
    // naming it is a bonus
  }
  return {local}
}

export function pollerCutOffText(found: PollerFound, how: 'webhook' | 'bridge'): {text: string; fix: string} {
  const where = found.local.length ? `on this machine: ${found.local.join(', ')}` : 'not on this machine (a server somewhere else?)'
  const cut = how === 'webhook' ? 'the webhook set by `bot dev` has cut it off (its getUpdates now gets 409 Conflict)' : '`bot dev` polls instead of it now (the two fight with 409 Conflict until one stops)'
  return {
    text: `Another program was long-polling this bot, ${where}; ${cut}.`,
    fix: 'If that was your production bot, it gets no updates until this session ends: use a separate token for development.',
  }
}
