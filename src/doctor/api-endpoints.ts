/**
 * Where the Bot API is reached from this machine (the api root's addresses, or the proxy's), so the
 * doctor can tell a process that talks to the Bot API from one that merely holds the token.
 */
import {lookup} from 'node:dns/promises'
import {isIP} from 'node:net'

import {proxyFor} from '../lib/proxy.js'
import {normalizeIp, type Endpoint} from '../session-store/proc-net.js'

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
