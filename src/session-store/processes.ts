/**
 * Processes a session starts and the next one may find left over (this machine's /proc and
 * signals): is a pid alive, does it carry a session's marker in its environment, and stopping what
 * a `bot dev` killed with SIGKILL left running (its bot, its tunnel program cloudflared). Only a
 * process whose environment carries that session's marker (the bot's BOT_DEV_SESSION, the
 * tunnel's BOT_DEV_TUNNEL) is touched: a pid reused by another process is left alone. SIGTERM to
 * its group, SIGKILL after the grace period, and a report of what is actually true afterwards.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {codeOf} from '../lib/errors.js'

/**
 * True when a process with this pid runs (EPERM means it exists but is not ours). A zombie does
 * not run: it has exited and waits for its parent to collect it, and an orphan's new parent may
 * take seconds to (this machine's init collects every ~2 s; test/dev/orphan-zombie.e2e.test.ts).
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if (codeOf(error) !== 'EPERM') return false
  }
  return statOf(pid)?.state !== 'Z'
}

/** Linux: a process's state letter and process group, from /proc/<pid>/stat (world-readable); undefined elsewhere or when gone. */
export function statOf(pid: number): {state: string; pgrp: number} | undefined {
  if (process.platform !== 'linux') return undefined
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
  const [state, , pgrp] = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return {state: state ?? '', pgrp: Number(pgrp)}
}

export type OrphanOutcome = 'none' | 'stopped' | 'killed' | 'survived'

/** A process a session started: its pid (its process group) and the marker in its environment. */
export interface MarkedProcess {
  pid: number
  marker: string
}

export const BOT_MARKER_ENV = 'BOT_DEV_SESSION'

/** Is any process of the group `pgid` alive (EPERM: alive, another user's)? Zombies do not count (see isPidAlive). */
export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    // EPERM: a member is another user's, whose processes /proc may hide (hidepid): alive, as it cannot be told.
    return codeOf(error) === 'EPERM'
  }
  if (process.platform !== 'linux') return true
  // The leader usually answers; only when it is a zombie or gone are the others looked for.
  const leader = statOf(pgid)
  if (leader && leader.state !== 'Z') return true
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return true
  }
  return pids.some((name) => {
    const stat = statOf(Number(name))
    return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z'
  })
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
