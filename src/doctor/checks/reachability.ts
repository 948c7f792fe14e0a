/**
 * reachability: the api root's host resolves and its server answers HTTP, with latencies. The
 * request goes to the root path, without the token. Proxy variables are noted: Node's built-in
 * fetch (which `bot` and most bot frameworks on Node 20 use) does not honour them.
 */
import {lookup} from 'node:dns/promises'
import {isIP} from 'node:net'

import {deadline} from '../../lib/deadline.js'
import {DEFAULT_API_ROOT} from '../../telegram/index.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy']
const SLOW_MS = 2000
/** How long the HTTP request may take; the check's own limit (below) leaves room for DNS. */
const HTTP_LIMIT_MS = 10_000

/** "HTTPS_PROXY=proxy.local:3128" without any user:password part. */
function proxyNote(env: NodeJS.ProcessEnv): string | undefined {
  const seen = new Set<string>()
  const parts: string[] = []
  for (const name of PROXY_VARS) {
    const value = env[name]
    if (!value || seen.has(name.toUpperCase())) continue
    seen.add(name.toUpperCase())
    let shown = value
    if (!/^no_proxy$/i.test(name)) {
      try {
        const u = new URL(value.includes('://') ? value : `http://${value}`)
        shown = `${u.protocol}//${u.host}`
      } catch {
        shown = '(unparsable)'
      }
    }
    parts.push(`${name}=${shown}`)
  }
  if (parts.length === 0) return undefined
  return `proxy variables set: ${parts.join(', ')}; Node ignores them unless a proxy agent is configured, so \`bot\` connects directly, and so does a bot library given no agent`
}

function causeOf(error: unknown): {code?: string; message: string} {
  const cause = (error as {cause?: {code?: string; message?: string}})?.cause
  return {code: cause?.code ?? (error as {code?: string})?.code, message: cause?.message ?? (error as Error)?.message ?? String(error)}
}

export const reachabilityCheck: Check = {
  id: 'reachability',
  title: 'Bot API reachable',
  timeoutMs: () => 15_000,
  async run(ctx: DoctorContext): Promise<CheckResult> {
    const url = new URL(ctx.apiRoot)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const isDefault = ctx.apiRoot === DEFAULT_API_ROOT
    const proxy = proxyNote(ctx.env)
    const lines: string[] = []
    const whereFix = isDefault
      ? 'Check the internet connection, DNS and firewall of this machine (and whether api.telegram.org is blocked on this network; a VPN or a local Bot API server may help).'
      : `Start the Bot API server (or \`bot emulator\`) at ${ctx.apiRoot}, or fix/unset --api-root / BOT_API_ROOT.`

    // 1. DNS
    let address = host
    if (!isIP(host)) {
      const began = performance.now()
      try {
        const found = await lookup(host)
        address = found.address
        lines.push(`DNS: ${host} → ${address} in ${Math.round(performance.now() - began)} ms`)
      } catch (error) {
        const {code} = causeOf(error)
        return {
          status: 'fail',
          detail: [`DNS: cannot resolve ${host} (${code ?? 'lookup failed'})`, ...(proxy ? [proxy] : [])].join('\n'),
          fix: whereFix,
        }
      }
    }

    // 2. An HTTP answer, any status, from the root path (no token in this request).
    const began = performance.now()
    const limit = deadline(HTTP_LIMIT_MS, ctx.signal)
    try {
      const response = await fetch(`${url.origin}/`, {method: 'GET', redirect: 'manual', signal: limit.signal})
      await response.arrayBuffer().catch(() => undefined)
      limit.clear()
      const ms = Math.round(performance.now() - began)
      lines.push(`HTTP: ${url.host} answered ${response.status} in ${ms} ms`)
      if (proxy) lines.push(proxy)
      if (ms > SLOW_MS)
        return {status: 'warn', detail: lines.join('\n'), fix: 'The Bot API answers slowly from here; long polling still works, but replies will lag. Check the network.'}
      return {status: 'ok', detail: lines.join('\n')}
    } catch (error) {
      const {code, message} = causeOf(error)
      limit.clear()
      const timedOut = limit.timedOut
      lines.push(
        timedOut
          ? `HTTP: no answer from ${url.host} (${address}) within ${HTTP_LIMIT_MS / 1000} s (it accepts connections but does not answer)`
          : `HTTP: cannot connect to ${url.host} (${address}): ${code ?? message}`,
      )
      if (proxy) lines.push(proxy)
      const fix = proxy && isDefault ? `${whereFix} If this network only allows traffic through the proxy, run the bot where it can reach the Bot API directly, or use a local Bot API server.` : whereFix
      return {status: 'fail', detail: lines.join('\n'), fix}
    }
  },
}
