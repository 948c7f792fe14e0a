/**
 * Processes a session starts and the next one may find left over (this machine's /proc and
 * signals): is a pid alive, does it carry a session's marker in its environment, and stopping what
 * a `bot dev` killed with SIGKILL left running (its bot, its tunnel program cloudflared). Only a
 * process whose environment carries that session's marker (the bot's BOT_DEV_SESSION, the
 * tunnel's BOT_DEV_TUNNEL) is touched: a pid reused by another process is left alone. SIGTERM to
 * its group, SIGKILL after the grace period, and a report of what is actually true afterwards.
 */
import {readFileSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {codeOf} from '../lib/errors.js'

/** True when a process with this pid exists (EPERM means it exists but is not ours). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return codeOf(error) === 'EPERM'
  }
}

export type OrphanOutcome = 'none' | 'stopped' | 'killed' | 'survived'

/** A process a session started: its pid (its process group) and the marker in its environment. */
export interface MarkedProcess {
  pid: number
  marker: string
}

export const BOT_MARKER_ENV = 'BOT_DEV_SESSION'

/** Is any process of the group `pgid` alive (EPERM: alive, another user's)? */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return codeOf(error) === 'EPERM'
  }
}

async function gone(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms
  while (groupAlive(pgid)) {
    if (performance.now() > deadline) return false
    await sleep(25)
  }
  return true
}

/** Does `pid` have `name=marker` in its environment? False when it cannot be read (not Linux, another user, gone). */
export function hasMarker(pid: number, name: string, marker: string): boolean {
  if (!marker) return false
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${name}=${marker}`)
  } catch {
    return false
  }
}

/** Is `pid` the bot of the session with this marker (BOT_DEV_SESSION in its environment)? */
export function isSessionBot(pid: number, marker: string): boolean {
  return hasMarker(pid, BOT_MARKER_ENV, marker)
}

/** Is the recorded process still running, and provably the one recorded? */
export function isOrphan(proc: MarkedProcess | undefined, envName: string): boolean {
  return (
    Boolean(proc) &&
    process.platform === 'linux' &&
    isPidAlive(proc!.pid) &&
    hasMarker(proc!.pid, envName, proc!.marker)
  )
}

export async function stopOrphan(
  proc: MarkedProcess | undefined,
  graceMs: number,
  envName = BOT_MARKER_ENV,
): Promise<OrphanOutcome> {
  if (!proc || !isOrphan(proc, envName)) return 'none'
  try {
    process.kill(-proc.pid, 'SIGTERM')
  } catch {
    return groupAlive(proc.pid) ? 'survived' : 'stopped'
  }
  if (await gone(proc.pid, graceMs)) return 'stopped'
  try {
    process.kill(-proc.pid, 'SIGKILL')
  } catch {
    // gone meanwhile
  }
  return (await gone(proc.pid, 2000)) ? 'killed' : 'survived'
}
