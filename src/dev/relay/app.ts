/**
 * The relay's `/app/` (`bot dev --web-app URL`): the web app's own dev server through the session's public URL.
 *
 * The relay's server (server.ts) reads heads itself and nothing else; a connection whose request is under `/app`
 * is handed over whole (Conn.detach): the bytes read of it so far, then its socket piped both ways, to a node:http
 * server of this module on loopback. That server forwards each request under `/app/` to the dev server
 * (lib/dev-server-forward.ts: the dev server's own Host and Origin; a WebSocket upgrade piped both ways, so Vite's
 * hot reload works), and sends anything else that comes later on the same connection (a tunnel reuses its
 * connections: a webhook POST may follow) back to the relay's own port, as it came. So the dev server sees only
 * `/app/` requests, never the webhook path, and never the secret header (dropped if a request carries one).
 *
 * Plain `bot dev` (webhook mode with a public URL, no --web-app) forwards `/app/` the same way to the bot's own HTTP
 * server (relay.ts: the target its webhooks go to, read at each request and upgrade, so a restart on a fresh port is
 * followed), with the path kept: the bot serves its own `/app/` routes (the `bot init` templates' Mini App), as it
 * would behind its production URL. While the bot is not listening, `/app/` answers 502 saying so.
 *
 * Path mapping: `/app/<rest>` → the URL's path + `<rest>`: `--web-app http://localhost:5173` serves `/<rest>`,
 * `--web-app http://localhost:5173/app/` serves `/app/<rest>` (a Vite app with `base: '/app/'`, whose absolute
 * paths and hot-reload socket then stay under `/app/`). `/app` is redirected to `/app/`. A redirect of the dev
 * server to itself (its origin, or a path under its path) is mapped back under `/app/`.
 *
 * Bounds: at most maxConnections handed-over connections at once (the relay answers 503 beyond); bodies are
 * streamed, never held whole; a head within 10 s, a request within 2 min, the dev server's answer (or a silence in
 * it) within timeoutMs; an idle connection closes after 65 s as the relay's do. Nothing a request does can throw
 * out of a handler: a failure answers 502 (or cuts that connection).
 */
import {createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse} from 'node:http'
import net from 'node:net'

import {requestUpstream, upgradeUpstream} from '../../lib/dev-server-forward.js'
import {messageOf} from '../../lib/errors.js'
import {listeningPort} from '../../lib/server-port.js'

/** Where the app is served on the public URL. */
export const APP_PATH = '/app/'

/** The request's path (up to `?`) is the app's: `/app` or under `/app/`. */
export function isAppPath(path: string): boolean {
  return path === '/app' || path.startsWith(APP_PATH)
}

/** The secret header Telegram sends with each update: never passed to the dev server. */
const SECRET = 'x-telegram-bot-api-secret-token'
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']

export interface AppForwardOptions {
  /**
   * The dev server (http or https, its path the mount of `/app/`), or a function giving the current one at each
   * request (the bot's own server, whose port changes when it restarts; undefined while it is not listening).
   */
  url: string | (() => string | undefined)
  /** The 502's text when the server does not answer (`url` undefined: there is none now). Default: the dev server's. */
  unreachable?: (url: string | undefined, reason: string) => string
  /** The relay's own port, for what follows on a handed-over connection that is not the app's. */
  relayPort: () => number
  /** The dev server's answer (its head, or a silence within its body) within this long. Default 30 s. */
  timeoutMs?: number
  /** A held update's answer through the relay within this long. Default 2 min (the relay holds up to 30 s). */
  relayTimeoutMs?: number
  /** Handed-over connections at once. Default 128. */
  maxConnections?: number
}

/** Where `/app/` goes now: the server's origin and its path for `/app/` (ending in `/`). */
interface Mount {
  url: string
  origin: URL
  base: string
}

function mountOf(url: string): Mount {
  const parsed = new URL(url)
  return {
    url,
    origin: new URL(parsed.origin),
    base: parsed.pathname.endsWith('/') ? parsed.pathname : `${parsed.pathname}/`,
  }
}

/** The dev server's path for a public `/app/…` target (query kept). */
function mapTarget(mount: Mount, target: string): string {
  return mount.base + target.slice(APP_PATH.length)
}

/** The public `/app/…` for a redirect of the dev server to itself, else the location as it is. */
function mapLocation(mount: Mount, location: string): string {
  let path = location
  if (location.startsWith(mount.origin.origin + '/')) path = location.slice(mount.origin.origin.length)
  else if (!location.startsWith('/') || location.startsWith('//')) return location
  return path.startsWith(mount.base) ? APP_PATH + path.slice(mount.base.length) : location
}

export class AppForward {
  /** The last mount parsed (a function's URL changes only when the bot moves). */
  #mount: Mount | undefined
  readonly #options: AppForwardOptions
  readonly #server: Server
  readonly #sockets = new Set<net.Socket>()
  #port = 0
  #closed = false

  constructor(options: AppForwardOptions) {
    this.#options = options
    if (typeof options.url === 'string') this.#mount = mountOf(options.url)
    this.#server = createServer((req, res) => this.#guard(res, () => this.#request(req, res)))
    this.#server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
      try {
        this.#upgrade(req, socket, head)
      } catch {
        socket.destroy()
      }
    })
    this.#server.on('clientError', (_error, socket) => socket.destroy())
    this.#server.headersTimeout = 10_000
    this.#server.requestTimeout = 120_000
    this.#server.keepAliveTimeout = 65_000
  }

  /** The server `/app/` goes to now (undefined: none, the bot is not listening). */
  get url(): string | undefined {
    return this.#current()?.url
  }

  #current(): Mount | undefined {
    const url = typeof this.#options.url === 'string' ? this.#options.url : this.#options.url()
    if (url === undefined) return undefined
    if (this.#mount?.url !== url) this.#mount = mountOf(url)
    return this.#mount
  }

  /** Handed-over connections open now. */
  get connections(): number {
    return this.#sockets.size / 2
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    this.#server.on('error', () => {})
    this.#port = listeningPort(this.#server)
  }

  /**
   * Take over a connection of the relay: `bytes` is what was read of it (from the head of its `/app` request on),
   * the socket is paused and read by no one else. False at the bound (or closed): the caller answers it.
   */
  splice(socket: net.Socket, bytes: Buffer): boolean {
    if (this.#closed || this.#port === 0 || this.#sockets.size / 2 >= (this.#options.maxConnections ?? 128))
      return false
    const inner = net.connect({port: this.#port, host: '127.0.0.1', noDelay: true})
    const both = [socket, inner]
    for (const s of both) {
      this.#sockets.add(s)
      s.on('error', () => s.destroy())
      s.on('close', () => {
        this.#sockets.delete(s)
        for (const other of both) other.destroy()
      })
    }
    if (bytes.length > 0) inner.write(bytes)
    socket.pipe(inner)
    inner.pipe(socket)
    socket.resume()
    return true
  }

  /** 502: the server is not there (or did not answer). */
  #unreachable(res: ServerResponse, url: string | undefined, reason: string): void {
    res.writeHead(502, {'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store'})
    res.end(
      this.#options.unreachable?.(url, reason) ??
        `bot dev: the web app's dev server at ${url} did not answer (${reason}). Start it (e.g. npm run dev), then reload.\n`,
    )
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const socket of this.#sockets) socket.destroy()
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  #guard(res: ServerResponse, fn: () => Promise<void>): void {
    const fail = () => {
      if (res.headersSent) res.destroy()
      else {
        res.writeHead(500, {'content-type': 'text/plain'})
        res.end('bot dev: relay error\n')
      }
    }
    try {
      fn().catch(fail)
    } catch {
      fail()
    }
  }

  async #request(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/'
    const q = target.indexOf('?')
    const path = q < 0 ? target : target.slice(0, q)
    if (!isAppPath(path)) return this.#toRelay(req, res, target)
    if (path === '/app') {
      res.writeHead(301, {location: APP_PATH + (q < 0 ? '' : target.slice(q)), 'content-length': 0})
      return void res.end()
    }
    const mount = this.#current()
    if (!mount) {
      req.resume()
      return this.#unreachable(res, undefined, 'not listening')
    }
    let upstream: IncomingMessage
    try {
      upstream = await requestUpstream(mount.origin, req, {
        path: mapTarget(mount, target),
        timeoutMs: this.#options.timeoutMs ?? 30_000,
        drop: [SECRET],
        referer: (sent) =>
          isAppPath(sent.pathname) ? mount.origin.origin + mapTarget(mount, sent.pathname + sent.search) : undefined,
      })
    } catch (error) {
      return this.#unreachable(res, mount.url, messageOf(error))
    }
    const headers: OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && !HOP_BY_HOP.includes(name)) headers[name] = value
    if (typeof upstream.headers.location === 'string') headers.location = mapLocation(mount, upstream.headers.location)
    this.#answer(upstream, res, headers)
  }

  /** Not the app's (a webhook POST on a connection that carried an `/app/` request before): to the relay, as it came. */
  async #toRelay(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
    let upstream: IncomingMessage
    try {
      upstream = await requestUpstream(new URL(`http://127.0.0.1:${this.#options.relayPort()}`), req, {
        path: target,
        timeoutMs: this.#options.relayTimeoutMs ?? 120_000,
        referer: (sent) => sent.href,
      })
    } catch {
      res.writeHead(503, {'content-type': 'text/plain', 'retry-after': '1'})
      return void res.end('Busy: retry later\n')
    }
    const headers: OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(upstream.headers))
      if (value !== undefined && !HOP_BY_HOP.includes(name)) headers[name] = value
    this.#answer(upstream, res, headers)
  }

  /** The answer back to the client, streamed (backpressure both ways); a break on either side cuts the other. */
  #answer(upstream: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders): void {
    res.writeHead(upstream.statusCode ?? 502, headers)
    upstream.on('error', () => res.destroy())
    res.on('close', () => {
      if (!upstream.complete) upstream.destroy()
    })
    upstream.pipe(res)
  }

  #upgrade(req: IncomingMessage, socket: net.Socket, head: Buffer): void {
    const target = req.url ?? '/'
    const q = target.indexOf('?')
    const path = q < 0 ? target : target.slice(0, q)
    if (!path.startsWith(APP_PATH)) {
      socket.on('error', () => {})
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const mount = this.#current()
    if (!mount) {
      socket.on('error', () => {})
      socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    upgradeUpstream(mount.origin, req, socket, head, {
      path: mapTarget(mount, target),
      timeoutMs: this.#options.timeoutMs ?? 30_000,
      drop: [SECRET],
    })
  }
}
