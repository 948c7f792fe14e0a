/**
 * Forwarding to a web app's own server (a dev server such as Vite's): one HTTP request, or one WebSocket upgrade
 * piped both ways (Vite's hot reload), with the `Host` and `Origin` the server expects (its own; Vite refuses other
 * hosts). Shared by the chat page's Mini App proxy (mini-app-proxy.ts) and the relay's `/app/` of `bot dev --web-app`
 * (src/dev/relay/app.ts). A loopback https origin (a dev server with a self-signed certificate) is reached without
 * checking its certificate; any other origin is checked as usual.
 */
import {request as httpRequest, type IncomingHttpHeaders, type IncomingMessage} from 'node:http'
import {request as httpsRequest} from 'node:https'
import {connect as netConnect, type Socket} from 'node:net'
import {connect as tlsConnect} from 'node:tls'

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

export interface ForwardOptions {
  /** The request target on the app's server (path and query). */
  path: string
  /** No answer (or no connection) within this long: the call fails. */
  timeoutMs: number
  /** Header names (lower case) not passed on. */
  drop?: readonly string[]
  /** The Referer to pass on for the one the client sent (default: the app's origin and the same path); undefined drops it. */
  referer?: (sent: URL) => string | undefined
}

/** The client's headers as the app's server should see them: its own Host and Origin. */
function upstreamHeaders(origin: URL, req: IncomingMessage, o: ForwardOptions): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {...req.headers, host: origin.host}
  for (const name of o.drop ?? []) delete headers[name]
  if (headers.origin) headers.origin = origin.origin
  if (typeof headers.referer === 'string') {
    let referer: string | undefined
    try {
      const sent = new URL(headers.referer)
      referer = o.referer ? o.referer(sent) : origin.origin + sent.pathname
    } catch {
      referer = undefined
    }
    if (referer === undefined) delete headers.referer
    else headers.referer = referer
  }
  return headers
}

/** Send `req` (its body piped) to the app's server; resolves with its answer, rejects when it does not answer. */
export function requestUpstream(origin: URL, req: IncomingMessage, o: ForwardOptions): Promise<IncomingMessage> {
  const headers = upstreamHeaders(origin, req, o)
  return new Promise<IncomingMessage>((resolve, reject) => {
    const call = (origin.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        protocol: origin.protocol,
        hostname: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port || undefined,
        method: req.method,
        path: o.path,
        headers,
        timeout: o.timeoutMs,
        ...(origin.protocol === 'https:' && isLoopbackHost(origin.hostname) ? {rejectUnauthorized: false} : {}),
      },
      resolve,
    )
    call.on('timeout', () => call.destroy(new Error('timeout')))
    call.on('error', reject)
    req.on('error', () => call.destroy())
    req.pipe(call)
  })
}

/**
 * A WebSocket upgrade (or any other): connect to the app's server, send the request's head with its Host and
 * Origin, then pipe both ways until either side closes. The connection must open within `timeoutMs`; once piping
 * there is no deadline (a hot-reload socket lives as long as the page).
 */
export function upgradeUpstream(
  origin: URL,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  o: ForwardOptions,
): void {
  socket.on('error', () => socket.destroy())
  const secure = origin.protocol === 'https:'
  const port = Number(origin.port || (secure ? 443 : 80))
  const host = origin.hostname.replace(/^\[|\]$/g, '')
  const upstream = secure
    ? tlsConnect({host, port, servername: host, rejectUnauthorized: !isLoopbackHost(origin.hostname)})
    : netConnect({host, port})
  upstream.setTimeout(o.timeoutMs, () => upstream.destroy())
  upstream.on('error', () => socket.destroy())
  upstream.on('close', () => socket.destroy())
  socket.on('close', () => upstream.destroy())
  const drop = new Set(o.drop ?? [])
  upstream.once(secure ? 'secureConnect' : 'connect', () => {
    upstream.setTimeout(0)
    const lines = [`${req.method} ${o.path} HTTP/1.1`]
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]
      const lower = name.toLowerCase()
      if (drop.has(lower)) continue
      const value = lower === 'host' ? origin.host : lower === 'origin' ? origin.origin : req.rawHeaders[i + 1]
      lines.push(`${name}: ${value}`)
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
    if (head.length > 0) upstream.write(head)
    upstream.pipe(socket)
    socket.pipe(upstream)
  })
}
