/**
 * A free loopback port for a child process to listen on (the bot's webhook port).
 *
 * The port is probed and released, so it must not be one the kernel may hand out meanwhile: every
 * connection we open takes a source port from the ephemeral range (Linux:
 * /proc/sys/net/ipv4/ip_local_port_range), and so does every listener on port 0. A probed port in
 * that range can be taken between the probe and the bot's listen(), and the bot dies with
 * EADDRINUSE. So the candidates come from just below the ephemeral range, in random order (two
 * sessions starting together do not try the same ports in the same order).
 */
import {readFileSync} from 'node:fs'
import {createServer} from 'node:net'

/** The kernel's ephemeral port range, or undefined where it cannot be read (not Linux). */
export function ephemeralRange(
  file = '/proc/sys/net/ipv4/ip_local_port_range',
): {low: number; high: number} | undefined {
  try {
    const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)
    if (Number.isInteger(low) && Number.isInteger(high) && low >= 1 && high <= 65_535 && low <= high) return {low, high}
  } catch {
    // not Linux, or no /proc
  }
  return undefined
}

/** Up to `count` candidate ports outside the ephemeral range, shuffled; empty when there is no room. */
export function candidatePorts(range = ephemeralRange(), count = 200): number[] {
  // Where the range is unknown: the IANA dynamic range's neighbourhood is what macOS and Windows use
  // for ephemeral ports (49152–65535), so below it.
  const {low, high} = range ?? {low: 49_152, high: 65_535}
  const spans: Array<[number, number]> = []
  if (low > 10_000) spans.push([Math.max(10_000, low - 10_000), low - 1])
  if (high < 65_535 - 1000) spans.push([high + 1, 65_535])
  const all = spans.flatMap(([from, to]) => Array.from({length: to - from + 1}, (_, i) => from + i))
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  return all.slice(0, count)
}

/** A loopback port free right now and outside the ephemeral range where one exists; any free port else. */
export async function freePort(): Promise<number> {
  const {default: getPort} = await import('get-port')
  const candidates = candidatePorts()
  // get-port tries the candidates in order (free on every local address, as the bot may listen on
  // all of them) and falls back to a port of the kernel's choice.
  return getPort({port: candidates})
}

/** Bind `port` on `host` and release it: undefined when free, else the error code (EADDRINUSE, EACCES…). */
export function probePort(port: number, host = '127.0.0.1'): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'))
    server.listen({port, host, exclusive: true}, () => server.close(() => resolve(undefined)))
  })
}
