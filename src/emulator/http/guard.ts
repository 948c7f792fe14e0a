/**
 * Who may call the emulator: checked once per request, before anything else, on every path (`/bot<token>/…`,
 * `/_emulator/…`, `/file/bot…`). Bot clients and tests (grammY, Telegraf, python-telegram-bot, curl) name the server in
 * `Host` and send neither `Origin` nor `Sec-Fetch-Site`, so they pass; a web page the user happens to visit does not:
 *
 * - a request a page of another origin makes (`Origin` other than the emulator's own, `Origin: null`, or
 *   `Sec-Fetch-Site` other than `same-origin` / `none`) is refused, whatever interface the emulator listens on;
 * - listening on loopback, a `Host` other than 127.0.0.1, localhost or [::1] (or the loopback address listened on)
 *   with the emulator's port is refused: a page whose DNS name was rebound to 127.0.0.1 names its own host there.
 *   Listening beyond loopback (`--host 0.0.0.0` for docker-compose's `emulator:8081`) any host name is served.
 *
 * The Host rule is the one of src/lib/loopback-http.ts `hostAllowed` (the inspector's and the control port's); the
 * emulator imports nothing outside src/emulator, so it keeps this small copy.
 */
import type {IncomingHttpHeaders} from 'node:http'

/** What a request is checked against; filled in once the server listens. */
export interface Scope {
  /** The Host header values served (lower case), or undefined: any host name (the emulator listens beyond loopback). */
  hosts?: Set<string>
  /** Host names served with any port or none (EmulatorOptions.allowedHosts, lower case). */
  names?: Set<string>
  port: number
}

/** Whether a listening address is a loopback one (127.0.0.0/8, ::1, an IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase()
  return a.startsWith('127.') || a === '::1' || a.startsWith('::ffff:127.')
}

/** The scope of a server listening on `address`:`port`; `allowed` names are served too, with any port. */
export function scopeFor(address: string, port: number, allowed: readonly string[] = []): Scope {
  if (!isLoopbackAddress(address)) return {port}
  const own = address.includes(':') ? `[${address.toLowerCase()}]` : address
  const names = ['127.0.0.1', 'localhost', '[::1]', own]
  const hosts = new Set(names.map((name) => `${name}:${port}`))
  if (port === 80) for (const name of names) hosts.add(name) // clients leave the default port out of Host
  return {hosts, port, ...(allowed.length > 0 ? {names: new Set(allowed.map((n) => n.toLowerCase()))} : {})}
}

export const CROSS_SITE =
  'a request from a web page of another site is refused (its Origin or Sec-Fetch-Site header says so); bot clients and tests send neither'

export const wrongHost = (port: number): string =>
  `the Host header must name this server: 127.0.0.1:${port}, localhost:${port} or [::1]:${port} (a DNS name rebound to loopback is refused)`

/** Why the request is refused (403), or undefined when it may go on. A few header reads, no allocation on success. */
export function refusal(headers: IncomingHttpHeaders, scope: Scope): string | undefined {
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return CROSS_SITE
  const host = headers.host
  if (scope.hosts && (host === undefined || !(scope.hosts.has(host) || hostServed(host, scope))))
    return wrongHost(scope.port)
  const origin = headers.origin
  if (origin !== undefined && !sameOrigin(origin, host)) return CROSS_SITE
  return undefined
}

/** The slower path of the Host check: another spelling of a served Host, or an allowed name with any port. */
function hostServed(host: string, scope: Scope): boolean {
  const h = host.toLowerCase()
  if (scope.hosts?.has(h)) return true
  return scope.names !== undefined && scope.names.has(h.replace(/:\d*$/, ''))
}

/** An Origin naming the server the request was sent to (`http://` + its Host); `null` and anything else are not. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  const o = origin.toLowerCase()
  return o.length === host.length + 7 && o.startsWith('http://') && o.endsWith(host.toLowerCase())
}
