/**
 * The tunnel request of localtunnel's protocol: GET `<host>/?new` (or `<host>/<subdomain>`) answered
 * by JSON {id, port, max_conn_count, url, ip?}. Done here with fetch, a deadline and an AbortSignal,
 * instead of the client's own loop (which retries every second forever and cannot be stopped).
 */
import {TUNNEL_FIX, TunnelError} from './errors.js'

/** The answer to `GET <host>/?new`. */
export interface LocaltunnelInfo {
  id: string
  port: number
  url: string
  max_conn_count?: number
  ip?: string
  cached_url?: string
  message?: string
}

const SUBDOMAIN_RE = /^(?:[a-z0-9][a-z0-9-]{4,63}[a-z0-9]|[a-z0-9]{4,63})$/

export function validateTunnelHost(host: string): string {
  let parsed: URL
  try {
    parsed = new URL(host)
  } catch {
    throw new TunnelError(`tunnel host "${host}" is not a URL`, {
      code: 'tunnel_invalid',
      fix: 'give the localtunnel server as a URL, e.g. --tunnel-host https://tunnel.example.com',
    })
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TunnelError(`tunnel host "${host}" must be an http:// or https:// URL`, {
      code: 'tunnel_invalid',
      fix: 'e.g. --tunnel-host https://tunnel.example.com',
    })
  }
  if (parsed.search || parsed.hash || parsed.username || parsed.password) {
    throw new TunnelError(`tunnel host "${parsed.origin}…" must not carry a query, a fragment or credentials`, {
      code: 'tunnel_invalid',
      fix: 'give only the server address, e.g. --tunnel-host https://tunnel.example.com',
    })
  }
  return parsed.href.replace(/\/+$/, '')
}

export function validateSubdomain(subdomain: string): string {
  if (!SUBDOMAIN_RE.test(subdomain)) {
    throw new TunnelError(
      `subdomain "${subdomain}" is not valid: 4 to 63 lowercase letters, digits or hyphens, not starting or ending with a hyphen`,
      {code: 'tunnel_invalid', fix: 'choose another one, e.g. --subdomain mybot-dev'},
    )
  }
  return subdomain
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const cause = (err as {cause?: unknown}).cause
  if (cause instanceof Error) {
    const code = (cause as {code?: string}).code
    return code ? `${code}` : cause.message
  }
  return err.message
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, {once: true})
  })
}

/** The server's answer is used when its id, url, port and max_conn_count are what a tunnel needs. */
function isLocaltunnelInfo(body: unknown): body is LocaltunnelInfo {
  if (!body || typeof body !== 'object') return false
  const b: Partial<Record<keyof LocaltunnelInfo, unknown>> = body
  if (typeof b.id !== 'string' || typeof b.url !== 'string') return false
  if (typeof b.port !== 'number' || !Number.isInteger(b.port) || b.port < 1 || b.port > 65535) return false
  if (b.max_conn_count !== undefined && (typeof b.max_conn_count !== 'number' || b.max_conn_count < 1)) return false
  return URL.canParse(b.url)
}

function parseInfo(body: unknown): LocaltunnelInfo | undefined {
  return isLocaltunnelInfo(body) ? body : undefined
}

/** Network errors of the tunnel request that waiting does not change: it fails at once (and `--tunnel auto` falls back). */
const FINAL = new Set(['ENOTFOUND', 'ECONNREFUSED'])

export interface StartContext {
  host: string
  subdomain?: string
  /** Aborted at the deadline, on the caller's abort, or on close(). */
  signal: AbortSignal
  retryDelayMs: number
  deadlineMs: number
  /** Why `signal` was aborted. */
  reason: () => 'deadline' | 'aborted'
}

/**
 * GET <host>/?new (or /<subdomain>) until the server answers or the start-up ends.
 * A 4xx is final (the server said no); network errors and 5xx are retried.
 */
export async function requestTunnel(ctx: StartContext): Promise<LocaltunnelInfo> {
  const uri = `${ctx.host}/${ctx.subdomain ?? '?new'}`
  let last = 'no answer'
  while (!ctx.signal.aborted) {
    let status = 0
    let text = ''
    try {
      const res = await fetch(uri, {signal: ctx.signal, headers: {accept: 'application/json'}})
      status = res.status
      text = await res.text()
    } catch (err) {
      if (ctx.signal.aborted) break
      last = describe(err)
      // An answer that cannot change by waiting: no such host, or nothing listens there.
      if (FINAL.has(last))
        throw new TunnelError(
          `the localtunnel server ${ctx.host} cannot be reached (${last === 'ENOTFOUND' ? 'no such host' : 'connection refused'})`,
          {code: 'tunnel_unreachable', fix: TUNNEL_FIX},
        )
      await abortableDelay(ctx.retryDelayMs, ctx.signal)
      continue
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const message =
      body && typeof body === 'object' && typeof (body as {message?: unknown}).message === 'string'
        ? (body as {message: string}).message
        : undefined
    if (status >= 200 && status < 300) {
      const info = parseInfo(body)
      if (!info) {
        throw new TunnelError(
          `${ctx.host} answered, but not like a localtunnel server (expected JSON with id, port and url)`,
          {
            code: 'tunnel_protocol',
            fix: `check that --tunnel-host points at a localtunnel server; or ${TUNNEL_FIX}`,
          },
        )
      }
      return info
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      throw new TunnelError(
        `the localtunnel server ${ctx.host} refused the tunnel (HTTP ${status}${message ? `: ${message}` : ''})`,
        {
          code: 'tunnel_refused',
          fix: ctx.subdomain ? `try another --subdomain or none; or ${TUNNEL_FIX}` : TUNNEL_FIX,
        },
      )
    }
    last = `HTTP ${status}${message ? ` (${message})` : ''}`
    await abortableDelay(ctx.retryDelayMs, ctx.signal)
  }
  if (ctx.reason() === 'aborted') {
    throw new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'})
  }
  throw new TunnelError(
    `the localtunnel server ${ctx.host} did not answer within ${Math.round(ctx.deadlineMs / 100) / 10} s (last: ${last})`,
    {code: 'tunnel_unreachable', fix: TUNNEL_FIX},
  )
}
