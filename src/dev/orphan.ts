/**
 * What a session says about processes a dead one left running (session-store/processes.ts stops
 * them), and the tunnel provider that records the program it runs in the session state.
 */
import type {TunnelProcess, TunnelProvider} from '../tunnel/types.js'
import type {OrphanOutcome} from '../session-store/processes.js'
import type {SessionState} from '../session-store/state.js'

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
