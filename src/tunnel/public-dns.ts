/**
 * Asks public resolvers (not this machine's) whether a host name exists yet.
 *
 * A fresh trycloudflare host is published in DNS seconds after cloudflared prints it, and the
 * trycloudflare.com zone tells resolvers to cache a "no such host" for 30 minutes (SOA minimum 1800).
 * Asking this machine's resolver too early would make the URL unreachable from here (and from every
 * device behind the same router) for that long. So for those hosts only, the readiness proof first
 * waits until public resolvers know the name, and only then lets the system resolver (fetch) ask.
 */
import {Resolver} from 'node:dns/promises'
import {isIP} from 'node:net'
import {isLoopbackHost} from './public-url.js'
import {codeOf} from '../lib/errors.js'

export const PUBLIC_RESOLVERS = ['1.1.1.1', '8.8.8.8', '1.0.0.1']

/** 'yes': it has an address; 'no': it does not exist (yet); 'unknown': the resolvers cannot be asked. */
export type NameState = 'yes' | 'no' | 'unknown'
export type PublicLookup = (hostname: string, signal?: AbortSignal) => Promise<NameState>

/** A cloudflared quick tunnel's host (`*.trycloudflare.com`): the one zone whose "no such host" is cached for long. */
export function isQuickTunnelHost(hostname: string): boolean {
  return /(^|\.)trycloudflare\.com\.?$/i.test(hostname)
}

/**
 * Nothing to wait for in public DNS: anything but a quick tunnel's host. A self-hosted localtunnel
 * server or a --public-url on a name only this network's DNS knows is never in public DNS, and other
 * hosts need not be sent to public resolvers at all.
 */
export function needsNoDns(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '')
  return isIP(h) !== 0 || isLoopbackHost(hostname) || !isQuickTunnelHost(h)
}

const NOT_YET = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN'])

export const publicLookup: PublicLookup = async (hostname, signal) => {
  const resolver = new Resolver({timeout: 1500, tries: 1})
  resolver.setServers(PUBLIC_RESOLVERS)
  const cancel = () => resolver.cancel()
  signal?.addEventListener('abort', cancel, {once: true})
  try {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)])
    if (answers.some((a) => a.status === 'fulfilled' && a.value.length > 0)) return 'yes'
    const codes = answers.map((a) => (a.status === 'rejected' ? (codeOf(a.reason) ?? '') : 'ENODATA'))
    return codes.every((c) => NOT_YET.has(c)) ? 'no' : 'unknown'
  } catch {
    return 'unknown'
  } finally {
    signal?.removeEventListener('abort', cancel)
  }
}
