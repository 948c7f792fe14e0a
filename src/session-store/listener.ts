/**
 * Who listens on a TCP port: "ours" when a listening socket on it belongs to a process of the
 * bot's process group (Linux: /proc/net/tcp{,6} for the socket inodes, /proc/<pid>/fd for their
 * owners), "foreign" when someone else's, "unknown" where /proc cannot tell.
 */
import {readdirSync, readFileSync, readlinkSync} from 'node:fs'

export type ListenerOwner = 'ours' | 'foreign' | 'unknown'

const LISTEN = '0A'

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>()
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols.length < 10 || cols[3] !== LISTEN) continue
      if (cols[1].split(':')[1] === hexPort && cols[9] !== '0') inodes.add(cols[9])
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

function socketOwners(inodes: Set<string>): number[] {
  const owners: number[] = []
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return owners
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`)
        if (link.startsWith('socket:[') && inodes.has(link.slice(8, -1))) {
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
export function listenerOwner(port: number, pgid: number): {owner: ListenerOwner; pids: number[]} {
  if (process.platform !== 'linux' || pgid <= 0) return {owner: 'unknown', pids: []}
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return {owner: 'unknown', pids: []}
  const pids = socketOwners(inodes)
  if (pids.length === 0) return {owner: 'unknown', pids} // another user's process: we cannot see its fds
  if (pids.some((pid) => processGroup(pid) === pgid)) return {owner: 'ours', pids}
  return {owner: 'foreign', pids}
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
