/**
 * A bot that listens, but not on PORT (a port written in its code, its framework's default): while
 * the session waits for PORT, the bot's own process group is looked at; when it listens on other
 * ports and still not on PORT a moment later, one warning names the port it listens on, the one
 * the session expected, and the fix (Linux: read from /proc; elsewhere nothing is said).
 */
import {setTimeout as sleep} from 'node:timers/promises'

import {groupListeningPorts} from '../../session-store/proc-net.js'

export interface OtherPortOptions {
  /** The bot's process group (its pid: it is started in a group of its own). */
  pgid: number
  /** The PORT the session gave it. */
  port: number
  signal: AbortSignal
  /** How long a listener on another port may stand without PORT before it is said (a second server may start first). */
  graceMs?: number
  intervalMs?: number
  /** `ports`: the other ports it listens on. */
  onOtherPort: (ports: number[]) => void
}

export async function watchOtherPort(o: OtherPortOptions): Promise<void> {
  const grace = o.graceMs ?? 1000
  const interval = o.intervalMs ?? 200
  let since: number | undefined
  while (!o.signal.aborted) {
    let ports: number[]
    try {
      ports = await groupListeningPorts(o.pgid)
    } catch {
      ports = []
    }
    if (o.signal.aborted || ports.includes(o.port)) return
    if (ports.length === 0) since = undefined
    else {
      since ??= performance.now()
      if (performance.now() - since >= grace) {
        o.onOtherPort(ports)
        return
      }
    }
    await sleep(interval)
  }
}

/** The warning's words: the port(s) it listens on, the PORT expected, and how to fix it. */
export function otherPortText(ports: number[], port: number): {text: string; fix: string} {
  const where = ports.length === 1 ? `port ${ports[0]}` : `ports ${ports.join(', ')}`
  return {
    text: `The bot listens on ${where}, not on PORT=${port} that bot dev gave it; updates are held until it listens on ${port}.`,
    fix: `Listen on process.env.PORT (e.g. server.listen(Number(process.env.PORT)), Telegraf: launch({webhook: {port: Number(process.env.PORT)}}), Python: int(os.environ["PORT"])), or run \`bot dev --port ${ports[0]}\`.`,
  }
}
