/**
 * Linux: the TCP connections a process has open (/proc/<pid>/fd → socket inodes, matched against
 * /proc/<pid>/net/tcp and tcp6), and the endpoints the Bot API is reached at (the api root's
 * addresses, or the proxy's). Lets the doctor tell a process that talks to the Bot API from one that
 * merely holds the token in its environment.
 */
import {lookup} from 'node:dns/promises'
import {readdir, readFile, readlink} from 'node:fs/promises'
import {isIP} from 'node:net'

import {proxyFor} from '../lib/proxy.js'

export interface Endpoint {
  address: string
  port: number
}

export interface Connections {
  /** Connected (or connecting) TCP sockets: their remote ends. */
  remote: Endpoint[]
  /** Ports it listens on. */
  listening: number[]
}

/** IPv4 dotted, or IPv6 as 8 groups of 4 hex digits (IPv4-mapped addresses as IPv4). */
export function normalizeIp(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, '').toLowerCase()
  if (isIP(bare) === 4) return bare
  const mapped = /^[0:]*:ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  if (mapped) return mapped[1]
  if (isIP(bare) !== 6) return bare
  const [head, tail = ''] = bare.split('::')
  const left = head ? head.split(':') : []
  const right = bare.includes('::') && tail ? tail.split(':') : []
  const groups = bare.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left
  const full = groups.map((g) => g.padStart(4, '0')).join(':')
  return full.startsWith('0000:0000:0000:0000:0000:ffff:') ? hexToV4(full.slice(30).replace(':', '')) : full
}

function hexToV4(hex: string): string {
  return [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.')
}

/** "0100007F:1F90" (tcp) or 32 hex digits + port (tcp6), as the kernel writes them. */
function parseProcAddress(text: string): Endpoint {
  const [hex, portHex] = text.split(':')
  const port = Number.parseInt(portHex, 16)
  // Each 32-bit word is in host (little-endian) byte order.
  const words = hex.match(/.{8}/g) ?? []
  const bytes = words.flatMap((w) => [6, 4, 2, 0].map((i) => w.slice(i, i + 2)))
  if (bytes.length === 4) return {address: bytes.map((b) => Number.parseInt(b, 16)).join('.'), port}
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(bytes[i] + bytes[i + 1])
  return {address: normalizeIp(groups.join(':')), port}
}

const ESTABLISHED = '01'
const SYN_SENT = '02'
const LISTEN = '0A'

/** The process's TCP sockets; undefined when its descriptors cannot be read. */
export async function connectionsOf(pid: number): Promise<Connections | undefined> {
  let fds: string[]
  try {
    fds = await readdir(`/proc/${pid}/fd`)
  } catch {
    return undefined
  }
  const inodes = new Set<string>()
  for (const fd of fds.slice(0, 4096)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const m = /^socket:\[(\d+)\]$/.exec(target)
    if (m) inodes.add(m[1])
  }
  const out: Connections = {remote: [], listening: []}
  if (inodes.size === 0) return out
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10 || !inodes.has(f[9])) continue
      if (f[3] === LISTEN) out.listening.push(parseProcAddress(f[1]).port)
      else if (f[3] === ESTABLISHED || f[3] === SYN_SENT) out.remote.push(parseProcAddress(f[2]))
    }
  }
  return out
}

/** Where a request to the Bot API goes from this machine: the proxy when one applies, else the api root. */
export interface ApiEndpoints {
  /** "api.telegram.org:443", or "the proxy proxy.corp:3128". */
  shown: string
  matches(e: Endpoint): boolean
}

export async function apiEndpoints(apiRoot: string, env: NodeJS.ProcessEnv): Promise<ApiEndpoints | undefined> {
  let host: string
  let port: number
  let shown: string
  const proxy = proxyFor(apiRoot, env)
  try {
    if (proxy) {
      const u = new URL(`http://${proxy.hostPort}`)
      host = u.hostname
      port = Number(u.port) || 80
      shown = `the proxy ${proxy.hostPort}`
    } else {
      const u = new URL(apiRoot)
      host = u.hostname
      port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80)
      shown = u.host
    }
  } catch {
    return undefined
  }
  const bare = host.replace(/^\[|\]$/g, '')
  let addresses: string[]
  if (isIP(bare)) addresses = [bare]
  else {
    try {
      addresses = (await lookup(bare, {all: true})).map((a) => a.address)
    } catch {
      return undefined
    }
  }
  const set = new Set(addresses.map(normalizeIp))
  // Loopback: a server on 127.0.0.1 is also reached as ::1 / localhost.
  if ([...set].some((a) => a.startsWith('127.') || a === '0000:0000:0000:0000:0000:0000:0000:0001')) {
    set.add('127.0.0.1')
    set.add('0000:0000:0000:0000:0000:0000:0000:0001')
  }
  return {shown, matches: (e) => e.port === port && set.has(normalizeIp(e.address))}
}
