/**
 * reachability: the api root's host resolves and its server answers HTTP, with latencies. The
 * request goes to the root path, without the token. Through a proxy (HTTPS_PROXY…, see
 * src/lib/proxy.ts) the name is resolved by the proxy, and the proxy is named.
 */
import {lookup} from 'node:dns/promises'
import {isIP} from 'node:net'

import {deadline} from '../../lib/deadline.js'
import {describeProxyFailure, isLoopbackHost, proxyFix, proxyFor, proxyProblem, proxySummary} from '../../lib/proxy.js'
import {DEFAULT_API_ROOT} from '../../telegram/index.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'
import {messageOf} from '../../lib/errors.js'

const SLOW_MS = 2000
/** How long the HTTP request may take; the check's own limit (below) leaves room for DNS. */
const HTTP_LIMIT_MS = 10_000

/** What the proxy variables mean for a request to `apiRoot` (never credentials), or undefined when none is set. */
function proxyNote(env: NodeJS.ProcessEnv, apiRoot: string): string | undefined {
  const summary = proxySummary(env)
  if (!summary) return undefined
  const problem = proxyProblem(env)
  if (problem) return `proxy: ${problem.message.replace(/\.$/, '')}; bot connects directly (${problem.fix})`
  const via = proxyFor(apiRoot, env)
  let host = apiRoot
  try {
    host = new URL(apiRoot).host
  } catch {}
  return via
    ? `proxy: bot reaches ${host} through ${via.shown} (${via.variable}${/NO_PROXY=/i.test(summary) ? `; ${summary.slice(summary.search(/no_proxy=/i))}` : ''}); a bot library needs its own proxy agent to do the same`
    : `proxy variables set (${summary}), but ${host} is ${isLoopbackHost(new URL(apiRoot).hostname) ? 'loopback' : 'in NO_PROXY'}: bot connects to it directly`
}

function causeOf(error: unknown): {code?: string; message: string} {
  const cause = (error as {cause?: {code?: string; message?: string}})?.cause
  return {
    code: cause?.code ?? (error as {code?: string})?.code,
    message: cause?.message ?? messageOf(error),
  }
}

export const reachabilityCheck: Check = {
  id: 'reachability',
  title: 'Bot API reachable',
  timeoutMs: () => 15_000,
  async run(ctx: DoctorContext): Promise<CheckResult> {
    const url = new URL(ctx.apiRoot)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const isDefault = ctx.apiRoot === DEFAULT_API_ROOT
    const proxy = proxyNote(ctx.env, ctx.apiRoot)
    // Through a proxy, the proxy resolves the name (this machine often cannot).
    const via = proxyFor(ctx.apiRoot, ctx.env)
    const lines: string[] = []
    const whereFix = isDefault
      ? 'Check the internet connection, DNS and firewall of this machine (and whether api.telegram.org is blocked on this network; a VPN or a local Bot API server may help).'
      : `Start the Bot API server (or \`bot emulator\`) at ${ctx.apiRoot}, or fix/unset --api-root / BOT_API_ROOT.`

    // 1. DNS
    let address = host
    if (!isIP(host) && !via) {
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
        return {
          status: 'warn',
          detail: lines.join('\n'),
          fix: 'The Bot API answers slowly from here; long polling still works, but replies will lag. Check the network.',
        }
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
      const through = via && describeProxyFailure(ctx.apiRoot, error, ctx.env)
      // Through a proxy, the connection that failed is the proxy's: say that instead of "cannot connect to <api host>".
      if (through) {
        const at = lines.findIndex((l) => l.startsWith('HTTP: cannot connect to'))
        if (at >= 0) lines[at] = `HTTP: no answer through the proxy: ${through}`
        else lines.push(`proxy: ${through}`)
      }
      const fix = via
        ? proxyFix(via, ctx.apiRoot)
        : proxy && isDefault
          ? `${whereFix} If this network only allows traffic through the proxy, run the bot where it can reach the Bot API directly, or use a local Bot API server.`
          : whereFix
      return {status: 'fail', detail: lines.join('\n'), fix}
    }
  },
}
