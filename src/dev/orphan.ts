/**
 * Stop what a `bot dev` killed with SIGKILL left running: its bot, and its tunnel program
 * (cloudflared). Only a process whose environment carries that session's marker (the bot's
 * BOT_DEV_SESSION, the tunnel's BOT_DEV_TUNNEL): a pid reused by another process is left alone.
 * SIGTERM to its group, SIGKILL after the grace period, and a report of what is actually true
 * afterwards. Also records the tunnel program in the session state while it runs.
 */
import {readFileSync} from 'node:fs'

import type {TunnelProcess, TunnelProvider} from '../tunnel/types.js'
import type {DevSessionOptions} from './session-options.js'
import {isPidAlive, type SessionState} from '../session-store/state.js'

export type OrphanOutcome = 'none' | 'stopped' | 'killed' | 'survived'

/** A process a session started: its pid (its process group) and the marker in its environment. */
export interface MarkedProcess {
  pid: number
  marker: string
}

export const BOT_MARKER_ENV = 'BOT_DEV_SESSION'

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

/** `what`: 'the bot process' or TUNNEL_WHAT. */
export function orphanText(
  pid: number,
  outcome: OrphanOutcome,
  graceMs: number,
  what = 'the bot process',
): string | undefined {
  const it = `${what} (pid ${pid}) left running by that session`
  if (outcome === 'stopped') return `Stopped ${it}.`
  if (outcome === 'killed')
    return `Killed ${it}: it ignored SIGTERM for ${(graceMs / 1000).toFixed(1)}s, so it got SIGKILL.`
  if (outcome === 'survived') return `${it[0].toUpperCase()}${it.slice(1)} is still alive after SIGTERM and SIGKILL.`
  return undefined
}

export const TUNNEL_WHAT = 'the tunnel program cloudflared'

/**
 * The provider, with the program it runs recorded in the session state (`tunnel`) while it runs.
 * Once the session is stopping (`signal` of open() aborted) an exit is not written: the state file
 * is removed at the end of the teardown, and a late write would bring it back.
 */
export function recordTunnelProcess(
  provider: TunnelProvider,
  save: (patch: Partial<SessionState>) => void,
): TunnelProvider {
  let recorded: number | undefined
  return {
    name: provider.name,
    open: (options) =>
      provider.open({
        ...options,
        onProcess: (p: TunnelProcess) => {
          options.onProcess?.(p)
          if (p.running) {
            recorded = p.pid
            save({tunnel: {pid: p.pid, marker: p.marker}})
          } else if (recorded === p.pid && !options.signal?.aborted) {
            recorded = undefined
            save({tunnel: undefined})
          }
        },
      }),
  }
}

/** The session's options with its tunnel provider recorded (see recordTunnelProcess). */
export function withTunnelRecord(
  o: DevSessionOptions,
  save: (patch: Partial<SessionState>) => void,
): DevSessionOptions {
  return o.tunnel ? {...o, tunnel: recordTunnelProcess(o.tunnel, save)} : o
}
