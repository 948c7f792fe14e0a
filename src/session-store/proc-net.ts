/**
 * This machine's TCP sockets as Linux shows them in /proc: the listening socket on a port and the
 * process group that holds it ("ours" when it is the bot's, "foreign" when someone else's,
 * "unknown" where /proc cannot tell), and the connections one process has open (its
 * /proc/<pid>/fd socket inodes matched against /proc/<pid>/net/tcp and tcp6). Read by the dev
 * session (is the bot listening?) and by the doctor (does a process talk to the Bot API?).
 */
import {readdirSync, readFileSync, readlinkSync} from 'node:fs'
import {readdir, readFile, readlink} from 'node:fs/promises'
import {isIP} from 'node:net'

export type ListenerOwner = 'ours' | 'foreign' | 'unknown'

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

/** One row of /proc/net/tcp{,6}: the two ends, the state (01 established, 02 SYN sent, 0A listening) and the socket's inode. */
interface TcpRow {
  local: Endpoint
  remote: Endpoint
  state: string
  inode: string
}

const ESTABLISHED = '01'
const SYN_SENT = '02'
const LISTEN = '0A'

/** The rows of a /proc/…/net/tcp or tcp6 table (the header line skipped, short lines ignored). */
function tcpRows(text: string): TcpRow[] {
  const rows: TcpRow[] = []
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length < 10) continue
    rows.push({local: parseProcAddress(f[1]), remote: parseProcAddress(f[2]), state: f[3], inode: f[9]})
  }
  return rows
}

/** The inode of a socket descriptor's link target (`socket:[12345]`), or undefined. */
function socketInode(link: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(link)?.[1]
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

/**
 * Inodes of the sockets listening on `port`. Only the rows of that port are parsed (a busy machine's tables have
 * hundreds of rows, and this is on the way of every restart); tcp6 first, since Node listens on `::` (both families)
 * unless told a host and that table is the short one.
 */
export function listeningInodes(port: number, files = ['/proc/net/tcp6', '/proc/net/tcp']): Set<string> {
  // The local address is `<hex address>:<4 hex digits of the port>`, then a space.
  const needle = `:${port.toString(16).toUpperCase().padStart(4, '0')} `
  const inodes = new Set<string>()
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      const start = text.lastIndexOf('\n', at) + 1
      const end = text.indexOf('\n', at)
      const f = text
        .slice(start, end === -1 ? undefined : end)
        .trim()
        .split(/\s+/)
      // The needle may be the remote address's (field 2): only the local one (field 1) counts.
      if (f.length >= 10 && f[1].endsWith(needle.trimEnd()) && f[3] === LISTEN && f[9] !== '0') inodes.add(f[9])
    }
  }
  return inodes
}

/** Process group of a pid (field 5 of /proc/<pid>/stat), or undefined. */
export function processGroup(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(rest[2])
  } catch {
    return undefined
  }
}

function socketOwners(inodes: Set<string>, pids: string[]): number[] {
  const owners: number[] = []
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const inode = socketInode(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (inode && inodes.has(inode)) {
          owners.push(Number(pid))
          break
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return owners
}

/** Does a process of process group `pgid` hold the listening socket on `port`? */
export function listenerOwner(
  port: number,
  pgid: number,
  likely: number[] = [],
): {owner: ListenerOwner; pids: number[]} {
  if (process.platform !== 'linux' || pgid <= 0) return {owner: 'unknown', pids: []}
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return {owner: 'unknown', pids: []}
  // The group's leader (the bot's own process, unless a wrapper started it) first, with the
  // processes of the group that said they listen (`likely`, the bot's preload: the bot under a
  // `sh -c` wrapper): no other process read.
  const first = [pgid, ...likely.filter((pid) => pid !== pgid && pid > 0 && processGroup(pid) === pgid)]
  const leader = socketOwners(inodes, first.map(String))
  if (leader.length > 0) return {owner: 'ours', pids: leader}
  const all = allPids()
  // The group's own processes first: found there, no need to read every process's descriptors (~50 ms).
  const group = all.filter((pid) => processGroup(Number(pid)) === pgid)
  const ours = socketOwners(inodes, group)
  if (ours.length > 0) return {owner: 'ours', pids: ours}
  const pids = socketOwners(
    inodes,
    all.filter((pid) => !group.includes(pid)),
  )
  if (pids.length === 0) return {owner: 'unknown', pids} // another user's process: we cannot see its fds
  return {owner: 'foreign', pids}
}

function allPids(): string[] {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
}

/** The command line of a pid, shortened, for messages. */
export function commandOf(pid: number): string | undefined {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
    return cmd.length > 80 ? `${cmd.slice(0, 79)}…` : cmd
  } catch {
    return undefined
  }
}

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
    const inode = socketInode(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))
    if (inode) inodes.add(inode)
  }
  const out: Connections = {remote: [], listening: []}
  if (inodes.size === 0) return out
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')
    for (const row of tcpRows(text)) {
      if (!inodes.has(row.inode)) continue
      if (row.state === LISTEN) out.listening.push(row.local.port)
      else if (row.state === ESTABLISHED || row.state === SYN_SENT) out.remote.push(row.remote)
    }
  }
  return out
}

/** The ports the processes of process group `pgid` listen on (Linux; empty elsewhere or where /proc cannot tell). */
export async function groupListeningPorts(pgid: number): Promise<number[]> {
  if (process.platform !== 'linux' || pgid <= 0) return []
  const ports = new Set<number>()
  for (const pid of allPids()) {
    if (processGroup(Number(pid)) !== pgid) continue
    const c = await connectionsOf(Number(pid))
    for (const port of c?.listening ?? []) ports.add(port)
  }
  return [...ports].sort((a, b) => a - b)
}
