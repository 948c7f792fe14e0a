/**
 * The api proxy's side towards the real api root (or the emulator): which dispatcher carries the
 * requests (loopback direct over a keep-alive Pool; any other host through HTTPS_PROXY / HTTP_PROXY
 * like the rest of the CLI, else direct), which headers are passed on, and the one-line reason when
 * the upstream cannot be reached. No token ever appears in what this module produces.
 */
import {Pool, type Dispatcher} from 'undici'
import {createProxyDispatcher, describeProxyFailure, isLoopbackHost} from '../../lib/proxy.js'
import {messageOf} from '../../lib/errors.js'

export interface UpstreamRoot {
  /** e.g. "https://api.telegram.org" */
  origin: string
  /** The path of the api root without a trailing slash ("" for most). */
  prefix: string
  /** host[:port], for messages. */
  host: string
  href: string
  dispatcher: Dispatcher
}

/** The longest a Bot API answer may take to start (a long poll, or the server's 60 s flood waits). */
export const HEADERS_TIMEOUT_MS = 15 * 60_000
/** The longest an answer may stall between two chunks. */
export const BODY_TIMEOUT_MS = 5 * 60_000

export async function openUpstream(upstream: string): Promise<UpstreamRoot> {
  let url: URL
  try {
    url = new URL(upstream)
  } catch {
    throw new Error('The api proxy needs an http:// or https:// api root as its upstream.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`The api proxy needs an http:// or https:// api root as its upstream, not ${url.protocol}//.`)
  const proxied = isLoopbackHost(url.hostname) ? undefined : await createProxyDispatcher()
  const dispatcher =
    proxied ??
    new Pool(url.origin, {pipelining: 1, connectTimeout: 10_000, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000})
  return {
    origin: url.origin,
    prefix: url.pathname.replace(/\/+$/, ''),
    host: url.host,
    href: `${url.origin}${url.pathname}`,
    dispatcher,
  }
}

/** Request headers that belong to one connection (RFC 9110 §7.6.1), plus Host, which undici sets. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
  // Node's server answers `Expect: 100-continue` itself; undici refuses to send it.
  'expect',
])

/** The headers to pass on from a raw [name, value, name, value…] list: no hop-by-hop ones. */
export function passHeaders(raw: string[]): string[] {
  let extra: Set<string> | undefined
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 10 && raw[i].toLowerCase() === 'connection') {
      for (const name of raw[i + 1].split(',')) {
        const n = name.trim().toLowerCase()
        if (n && n !== 'close' && n !== 'keep-alive') (extra ??= new Set()).add(n)
      }
    }
  }
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase()
    if (HOP.has(lower) || extra?.has(lower)) continue
    out.push(raw[i], raw[i + 1])
  }
  return out
}

const TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/

/** Whether Node would send `value` as a header value or reason phrase (no controls but tab). */
export function validHeaderValue(value: string): boolean {
  return !INVALID_VALUE_CHAR.test(value)
}

/**
 * The answer's headers to pass back (as latin1 strings), and the content-encoding among them. A
 * header Node would refuse to send (a name that is no token, a value with controls) is left out
 * rather than failing the whole answer.
 */
export function answerHeaders(raw: Buffer[] | string[] | null): {headers: string[]; encoding?: string} {
  const headers: string[] = []
  let encoding: string | undefined
  if (!raw) return {headers}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString('latin1')
    const lower = name.toLowerCase()
    if (HOP.has(lower)) continue
    const value = raw[i + 1].toString('latin1')
    if (!TOKEN_CHARS.test(name) || !validHeaderValue(value)) continue
    if (lower === 'content-encoding') encoding = value
    headers.push(name, value)
  }
  return {headers, encoding}
}

function firstCode(error: unknown): string | undefined {
  let e = error as {code?: unknown; cause?: unknown} | undefined
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (typeof e.code === 'string') return e.code
    e = e.cause as typeof e
  }
  return undefined
}

/** Why the upstream could not be reached, in a few words (no URL, no token). */
export function unreachableReason(error: unknown, upstream: string): string {
  const viaProxy = describeProxyFailure(upstream, error)
  if (viaProxy) return viaProxy
  const code = firstCode(error)
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve its host name (${code})`
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `the connection timed out (${code})`
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no answer within ${HEADERS_TIMEOUT_MS / 60_000} minutes (${code})`
    case 'UND_ERR_BODY_TIMEOUT':
      return `the answer stalled for ${BODY_TIMEOUT_MS / 60_000} minutes (${code})`
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return `the connection closed before the answer (${code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to it (${code})`
    default:
      if (code && /CERT|SSL|TLS/.test(code)) return `its TLS certificate was refused (${code})`
      if (code) return code
      return messageOf(error).split('\n')[0].slice(0, 200)
  }
}
