/**
 * Before `bot dev` takes the updates (setWebhook, or its own getUpdates), is another program
 * long-polling this bot? The doctor's 409 probe answers for anywhere; a /proc scan names a local
 * one. Only a process connected to the Bot API is named as that poller (the doctor's
 * classification, holder-kind.ts): a shell, an editor or `bot emulator` that merely holds
 * BOT_TOKEN never is. Taking over cuts such a poller off; the session says so plainly.
 */
import {once} from 'node:events'
import {setTimeout as delay} from 'node:timers/promises'

import {linked} from '../lib/deadline.js'
import type {BotApi} from '../telegram/index.js'
import {isSessionBot} from '../session-store/processes.js'

export interface PollerFound {
  /** Local processes connected to the Bot API with the token (not our bot), e.g. "pid 42 (node bot.js)". */
  local: string[]
  /** Local processes holding the token of which it cannot be told whether they poll (their connections could not be read). */
  unsure?: string[]
}

export interface PollerCheckOptions {
  signal: AbortSignal
  /** The probe's window, at most (default 2 s). */
  seconds?: number
  /**
   * The window closes once `signal` aborts (the session wants the answer), but not before
   * `minSeconds`: the check uses the time the session's start takes anyway, so a poller that comes
   * back slowly after its 409 (a loaded machine, a far server) is still heard.
   */
  until?: {signal: AbortSignal; minSeconds: number}
  /** The marker of our own bot (BOT_DEV_SESSION), left out. */
  excludeMarker?: string
  /** Where a proxy to the Bot API is named (default process.env). */
  env?: NodeJS.ProcessEnv
}

/**
 * The probe's first poll, displaced by its second, comes back at once (a round trip) unless the Bot API
 * holds that 409 back (for 3 s, right after it sent one to someone else): not back by then, it is held.
 */
const HELD_AFTER_MS = 1000

/** A poller's description, or undefined when none was seen (or the check could not run in time). */
export async function findRunningPoller(
  api: BotApi,
  token: string,
  options: PollerCheckOptions,
): Promise<PollerFound | undefined> {
  const [{probePollers}, {findTokenHolders}] = await Promise.all([
    import('../doctor/probe.js'),
    import('../doctor/processes.js'),
  ])
  // Look at the local processes while the probe runs: a poller that stops on 409 closes its connection.
  const scanning = findTokenHolders(token, {apiRoot: api.apiRoot, env: options.env ?? process.env}).catch(
    () => undefined,
  )
  // The quick probe: bounded by its window (a poll still waiting then is not waited for), ended at
  // once by pending updates, a held 409 decided after HELD_AFTER_MS. Once it has its answer, whatever
  // it still has going (a poll, a pause) is cut, so no timer of it outlives the check (a short
  // session would wait for it at exit).
  const over = new AbortController()
  const signal = linked(options.signal, over.signal)
  let outcome
  try {
    outcome = await probePollers(api, {
      seconds: options.seconds ?? 2,
      signal: signal.signal,
      quick: {heldAfterMs: HELD_AFTER_MS, closes: options.until && windowCloses(options.until, signal.signal)},
    })
  } catch {
    return undefined
  } finally {
    over.abort()
    signal.clear()
  }
  if (outcome.kind !== 'conflict') return undefined
  const local: string[] = []
  const unsure: string[] = []
  // Naming it is a bonus: a scan that fails names nobody.
  for (const holder of (await scanning)?.holders ?? []) {
    if (holder.pid === process.pid) continue
    if (options.excludeMarker !== undefined && isSessionBot(holder.pid, options.excludeMarker)) continue // our own bot
    const name = `pid ${holder.pid} (${holder.command})`
    if (holder.kind === 'api-client') local.push(name)
    else if (holder.kind === 'unknown' || holder.kind === 'dev-bot') unsure.push(name)
  }
  return {local, ...(unsure.length ? {unsure} : {})}
}

/** Resolves once `until.signal` aborted and `until.minSeconds` passed (or `stop` aborts: no timer outlives the check). */
async function windowCloses(until: {signal: AbortSignal; minSeconds: number}, stop: AbortSignal): Promise<void> {
  await delay(until.minSeconds * 1000, undefined, {signal: stop}).catch(() => undefined)
  if (stop.aborted || until.signal.aborted) return
  await once(until.signal, 'abort', {signal: stop}).catch(() => undefined)
}

export function pollerCutOffText(found: PollerFound, how: 'webhook' | 'bridge'): {text: string; fix: string} {
  const where = found.local.length
    ? `on this machine: ${found.local.join(', ')}`
    : found.unsure?.length
      ? `perhaps on this machine: ${found.unsure.join(', ')} ${found.unsure.length === 1 ? 'holds' : 'hold'} the token, but whether ${found.unsure.length === 1 ? 'it polls' : 'they poll'} cannot be told`
      : 'not on this machine (a server somewhere else?)'
  const cut =
    how === 'webhook'
      ? 'the webhook set by `bot dev` has cut it off (its getUpdates now gets 409 Conflict)'
      : '`bot dev` polls instead of it now (the two fight with 409 Conflict until one stops)'
  return {
    text: `Another program was long-polling this bot, ${where}; ${cut}.`,
    fix: 'If that was your production bot, it gets no updates until this session ends: use a separate token for development.',
  }
}
