/**
 * Proxies, the way Node tools honour them: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their
 * lower-case forms, which win, as in undici) decide how every fetch of this process leaves the
 * machine. `installProxy()` (called once from bin/run.js, before any command runs) sets undici's
 * EnvHttpProxyAgent as the global dispatcher, which Node's own fetch uses too. Loopback
 * (localhost, 127.0.0.0/8, ::1) is never proxied, whatever NO_PROXY says.
 *
 * `proxyFor(url)` answers, with the same rules, whether a URL goes through a proxy and which
 * one (host:port only, never credentials), for messages and `bot doctor`.
 */

export interface ProxyChoice {
  /** The variable the proxy came from, e.g. "HTTPS_PROXY" or "http_proxy". */
  variable: string
  /** "host:port" of the proxy, without credentials. */
  hostPort: string
  /** The proxy URL without credentials, e.g. "http://proxy.corp:3128". */
  shown: string
  /** Whether the proxy URL carries user:password (they are never shown). */
  hasCredentials: boolean
}

type Env = NodeJS.ProcessEnv

/** undici reads the lower-case name first; so does this. */
function pick(env: Env, name: string): {variable: string; value: string} | undefined {
  for (const variable of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[variable]
    if (value) return {variable, value}
  }
  return undefined
}

/** The proxy URL as undici parses it ("proxy:3128" gets http:// as curl does). */
function parseProxy(value: string): URL | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`)
  } catch {
    return undefined
  }
}

function describe(variable: string, value: string): ProxyChoice {
  const url = parseProxy(value)
  if (!url) return {variable, hostPort: '(unparsable)', shown: '(unparsable)', hasCredentials: /@/.test(value)}
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return {
    variable,
    hostPort: `${url.hostname}:${port}`,
    shown: `${url.protocol}//${url.host}`,
    hasCredentials: Boolean(url.username || url.password),
  }
}

/** localhost, *.localhost, 127.0.0.0/8, ::1 (and its IPv4-mapped forms). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true
  const mapped = /^::ffff:(.+)$/.exec(h)
  if (mapped) return /^127\./.test(mapped[1]) || /^7f[0-9a-f]{2}:/.test(mapped[1])
  return false
}

/** What we add to NO_PROXY, so even undici's own matching never proxies loopback. */
const LOOPBACK_NO_PROXY = ['localhost', '.localhost', '127.0.0.1', '[::1]', '::1']

/** NO_PROXY as given (lower case wins) plus the loopback names. */
export function effectiveNoProxy(env: Env = process.env): string {
  const given = (env.no_proxy ?? env.NO_PROXY ?? '').trim()
  return [given, ...LOOPBACK_NO_PROXY].filter(Boolean).join(',')
}

/** undici's NO_PROXY rule: "*" matches all; "host" exact; ".host" / "*.host" a suffix; ":port" narrows. */
function matchesNoProxy(noProxy: string, hostname: string, port: number): boolean {
  if (noProxy.trim() === '*') return true
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue
    const parsed = /^(.+):(\d+)$/.exec(entry)
    const name = (parsed ? parsed[1] : entry).toLowerCase()
    const entryPort = parsed ? Number(parsed[2]) : 0
    if (entryPort && entryPort !== port) continue
    if (/^[.*]/.test(name) ? hostname.endsWith(name.replace(/^\*/, '')) : hostname === name) return true
  }
  return false
}

/** Any proxy variable set at all (HTTPS_PROXY, HTTP_PROXY, either case). */
export function proxyConfigured(env: Env = process.env): boolean {
  return Boolean(pick(env, 'https_proxy') ?? pick(env, 'http_proxy'))
}

/** The proxy a request to `target` goes through, or undefined when it goes direct. */
export function proxyFor(target: string | URL, env: Env = process.env): ProxyChoice | undefined {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return undefined
  }
  // Loopback goes direct; so does everything when a proxy variable is unusable (nothing is installed).
  if (isLoopbackHost(url.hostname) || proxyProblem(env)) return undefined
  const http = pick(env, 'http_proxy')
  const chosen = url.protocol === 'https:' ? (pick(env, 'https_proxy') ?? http) : http
  if (!chosen) return undefined
  // undici keeps the brackets of an IPv6 host when it compares with NO_PROXY.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase()
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  if (matchesNoProxy(effectiveNoProxy(env), hostname, port)) return undefined
  return describe(chosen.variable, chosen.value)
}

/** Every proxy variable that is set, for `bot doctor`: "HTTPS_PROXY=http://proxy:3128, NO_PROXY=…" (no credentials). */
export function proxySummary(env: Env = process.env): string | undefined {
  const parts: string[] = []
  for (const name of ['https_proxy', 'http_proxy']) {
    const chosen = pick(env, name)
    if (chosen) parts.push(`${chosen.variable}=${describe(chosen.variable, chosen.value).shown}`)
  }
  if (parts.length === 0) return undefined
  const noProxy = pick(env, 'no_proxy')
  if (noProxy) parts.push(`${noProxy.variable}=${noProxy.value}`)
  return parts.join(', ')
}

/** A proxy variable that is not a URL: the one line to print (exit 2), or undefined. */
export function proxyProblem(env: Env = process.env): {message: string; fix: string} | undefined {
  for (const name of ['https_proxy', 'http_proxy']) {
    const chosen = pick(env, name)
    if (!chosen) continue
    const url = parseProxy(chosen.value)
    if (!url || !url.hostname)
      return {
        message: `${chosen.variable} is not a proxy URL.`,
        fix: `Set ${chosen.variable} to e.g. http://proxy.example:3128 (or unset it).`,
      }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return {
        message: `${chosen.variable} uses ${url.protocol.replace(/:$/, '')}://, which bot does not support.`,
        fix: `Use an http:// or https:// proxy in ${chosen.variable} (e.g. http://${url.host}).`,
      }
  }
  return undefined
}

let installed = false

/**
 * Route this process's fetch through the proxy the environment names (once; a no-op without
 * proxy variables, so undici is loaded only when needed). Returns whether a proxy is in use.
 */
export async function installProxy(env: Env = process.env): Promise<boolean> {
  if (installed) return true
  const dispatcher = await createProxyDispatcher(env)
  if (!dispatcher) return false
  const {setGlobalDispatcher} = await import('undici')
  setGlobalDispatcher(dispatcher)
  installed = true
  return true
}

/**
 * The dispatcher installProxy sets: loopback direct, everything else through undici's
 * EnvHttpProxyAgent (HTTPS_PROXY / HTTP_PROXY / NO_PROXY plus loopback). Undefined without a
 * usable proxy variable.
 */
export async function createProxyDispatcher(env: Env = process.env): Promise<import('undici').Dispatcher | undefined> {
  if (!proxyConfigured(env) || proxyProblem(env)) return undefined
  const undici = await import('undici')
  // EnvHttpProxyAgent warns that it is experimental on construction; that line is not for users.
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message
    if (/EnvHttpProxyAgent is experimental/.test(text ?? '')) return
    return (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  let proxied: InstanceType<typeof undici.EnvHttpProxyAgent>
  try {
    proxied = new undici.EnvHttpProxyAgent({
      httpProxy: pick(env, 'http_proxy')?.value,
      httpsProxy: pick(env, 'https_proxy')?.value,
      noProxy: effectiveNoProxy(env),
    })
  } finally {
    process.emitWarning = emitWarning
  }
  const direct = new undici.Agent()
  // NO_PROXY cannot say "127.0.0.0/8": loopback is routed here, before undici's matching.
  class LoopbackDirect extends undici.Dispatcher {
    dispatch(
      options: Parameters<InstanceType<typeof undici.Dispatcher>['dispatch']>[0],
      handler: Parameters<InstanceType<typeof undici.Dispatcher>['dispatch']>[1],
    ): boolean {
      let host = ''
      try {
        host = new URL(String(options.origin)).hostname
      } catch {}
      return (isLoopbackHost(host) ? direct : proxied).dispatch(options, handler)
    }

    async close(): Promise<void> {
      await Promise.all([direct.close(), proxied.close()])
    }

    async destroy(): Promise<void> {
      await Promise.all([direct.destroy(), proxied.destroy()])
    }
  }
  return new LoopbackDirect()
}

/** The first string error code along the cause chain, and every message on it (undici nests them). */
function causeOf(error: unknown): {code?: string; message: string} {
  let code: string | undefined
  const messages: string[] = []
  let e = error as {code?: unknown; message?: unknown; cause?: unknown} | undefined
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (!code && typeof e.code === 'string') code = e.code
    if (typeof e.message === 'string') messages.push(e.message)
    e = e.cause as typeof e
  }
  return {code, message: messages.join(' | ')}
}

/**
 * When a fetch to `target` failed because of the proxy it went through: one line naming the
 * proxy (host:port and variable, never credentials). Undefined when the request was not
 * proxied (then the failure is the target's).
 */
export function describeProxyFailure(target: string, error: unknown, env: Env = process.env): string | undefined {
  const proxy = proxyFor(target, env)
  if (!proxy) return undefined
  const {code, message} = causeOf(error)
  const name = `the proxy ${proxy.hostPort} (${proxy.variable})`
  let host = target
  try {
    host = new URL(target).host
  } catch {}
  const status =
    /Proxy response \((\d+)\)/.exec(message)?.[1] ??
    (/Proxy Authentication Required \(407\)/.test(message) ? '407' : undefined)
  if (status === '407')
    return proxy.hasCredentials
      ? `${name} rejected its credentials (407 Proxy Authentication Required)`
      : `${name} asks for credentials (407 Proxy Authentication Required)`
  if (status) return `${name} would not connect to ${host} (it answered ${status})`
  switch (code) {
    case 'ECONNREFUSED':
      return `${name} refused the connection (nothing listens there)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host name of ${name}: ${code}`
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `${name} closed the connection before an answer arrived (${code})`
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `${name} did not accept the connection in time (${code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${name} (${code})`
    default:
      return undefined
  }
}

/** The fix for a failure through a proxy. */
export function proxyFix(proxy: ProxyChoice, target: string): string {
  let host = target
  try {
    host = new URL(target).hostname
  } catch {}
  return `Check ${proxy.variable} (a running proxy, credentials as http://user:password@host:port), or add ${host} to NO_PROXY if it is reachable directly.`
}

/** Tunnel failures a proxy explains: the tunnel could not be reached, or stopped working. */
const PROXY_BLOCKED_TUNNEL = new Set([
  'tunnel_unreachable',
  'tunnel_refused',
  'tunnel_protocol',
  'tunnel_connect',
  'tunnel_exited',
])

/**
 * A tunnel's fix, with a note when a proxy is set: tunnels (localtunnel's raw TCP, cloudflared's
 * QUIC/HTTP2 to its edge) usually do not pass a corporate proxy; the bridge needs only outgoing
 * HTTPS to the Bot API, which the proxy does carry.
 */
export function tunnelProxyHint(reason: string, fix: string | undefined, env: Env = process.env): string | undefined {
  if (!PROXY_BLOCKED_TUNNEL.has(reason) || !proxyConfigured(env)) return fix
  const variable = (pick(env, 'https_proxy') ?? pick(env, 'http_proxy'))!.variable
  const hint = `A proxy is set (${variable}) and tunnels usually do not pass corporate proxies: run \`bot dev --tunnel none\` (it needs only the Bot API, through the proxy).`
  return fix ? `${hint} Otherwise: ${fix}` : hint
}
