/**
 * Stop a bot process left running by a `bot dev` killed with SIGKILL: only a process whose
 * environment carries that session's marker; SIGTERM to its group, SIGKILL after the grace
 * period, and a report of what is actually true afterwards.
 */
import {readFileSync} from 'node:fs'

import {isPidAlive} from './state.js'

export type OrphanOutcome = 'none' | 'stopped' | 'killed' | 'survived'

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function gone(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms
  while (groupAlive(pgid)) {
    if (performance.now() > deadline) return false
    await new Promise((r) => setTimeout(r, 25))
  }
  return true
}

/** Is `pid` the bot of the session with this marker (BOT_DEV_SESSION in its environment)? */
export function isSessionBot(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BOT_DEV_SESSION=${marker}`)
  } catch {
    return false
  }
}

export async function stopOrphan(bot: {pid: number; marker: string} | undefined, graceMs: number): Promise<OrphanOutcome> {
  if (!bot || process.platform !== 'linux' || !isPidAlive(bot.pid) || !isSessionBot(bot.pid, bot.marker)) return 'none'
  try {
    process.kill(-bot.pid, 'SIGTERM')
  } catch {
    return groupAlive(bot.pid) ? 'survived' : 'stopped'
  }
  if (await gone(bot.pid, graceMs)) return 'stopped'
  try {
    process.kill(-bot.pid, 'SIGKILL')
  } catch {
    // gone meanwhile
  }
  return (await gone(bot.pid, 2000)) ? 'killed' : 'survived'
}

export function orphanText(pid: number, outcome: OrphanOutcome, graceMs: number): string | undefined {
  if (outcome === 'stopped') return `Stopped the bot process (pid ${pid}) left running by that session.`
  if (outcome === 'killed') return `Killed the bot process (pid ${pid}) left running by that session: it ignored SIGTERM for ${(graceMs / 1000).toFixed(1)}s, so it got SIGKILL.`
  if (outcome === 'survived') return `The bot process (pid ${pid}) left running by that session is still alive after SIGTERM and SIGKILL.`
  return undefined
}
