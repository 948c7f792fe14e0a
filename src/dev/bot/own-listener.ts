/**
 * The quick answer, once a bot's PORT accepts connections, to "is it the bot's own socket?" (Linux):
 * the listening socket on the port (from /proc/net/tcp and tcp6) held by the bot's own process or one
 * of its group that said it listens there (its preload's report). session-store/proc-net.ts
 * listenerOwner answers the whole question (every process of the group, then everyone's); it parses
 * every row of the tables, and a busy machine has hundreds (tens of ms, on the way of every restart).
 * Here only the rows of the port are parsed; the runner asks listenerOwner when this finds nothing.
 */
import {readdirSync, readFileSync, readlinkSync} from 'node:fs'

import {processGroup} from '../../session-store/proc-net.js'

/** The kernel's state number of a listening TCP socket in /proc/net/tcp. */
const LISTEN = '0A'

/** Inodes of the sockets listening on `port`, from the rows of that port only. */
export function listeningInodes(port: number, files = ['/proc/net/tcp', '/proc/net/tcp6']): Set<string> {
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

/**
 * The pids among the bot's own (`pgid`, its group's leader) and those of its group that reported
 * listening on `port` (`reporters`) that hold its listening socket; empty when none does (or where
 * /proc cannot tell: then listenerOwner is asked).
 */
export function ownListener(port: number, pgid: number, reporters: number[] = []): number[] {
  if (process.platform !== 'linux' || pgid <= 0) return []
  const pids = [pgid, ...reporters.filter((pid) => pid !== pgid && pid > 0 && processGroup(pid) === pgid)]
  // tcp6 first: Node listens on `::` (both families) unless told a host, and that table is the
  // short one; tcp (every IPv4 connection of the machine) only when the socket is not there.
  for (const file of ['/proc/net/tcp6', '/proc/net/tcp']) {
    const inodes = listeningInodes(port, [file])
    const owners = inodes.size > 0 ? holders(inodes, pids) : []
    if (owners.length > 0) return owners
  }
  return []
}

/** The pids among `pids` that hold one of the sockets `inodes`. */
function holders(inodes: Set<string>, pids: number[]): number[] {
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
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
        if (inode && inodes.has(inode)) {
          owners.push(pid)
          break
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return owners
}
