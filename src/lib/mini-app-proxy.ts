/**
 * How the chat page opens a Mini App: through a loopback proxy of the app's origin, one port per origin (so the
 * app keeps an origin of its own, apart from the page's, and its absolute paths `/assets/…` resolve as on its own
 * server). The proxy forwards every request and WebSocket upgrade (Vite's hot reload) to the app's origin with the
 * `Host` it expects (dev-server-forward.ts, shared with `bot dev --web-app`), and in the app's HTML it points `https://telegram.org/js/telegram-web-app.js` at its own copy
 * (`/__bot/telegram-web-app.js`, the file the npm package @twa-dev/sdk ships), so an app that loads Telegram's
 * script works with no network. A loopback https origin (a dev server with a self-signed certificate, e.g. Vite's
 * basic-ssl plugin) is reached without checking its certificate; any other origin is checked as usual.
 *
 * Only requests that name the proxy's own loopback address in their Host are served (DNS rebinding).
 *
 * Bounds: at most `maxOrigins` proxies (the oldest closed first), an HTML page rewritten only up to `maxHtmlBytes`
 * (one that says it is larger passes unchanged; one that turns out larger gets 502), upstream requests time out
 * after `timeoutMs`. An app that does not answer gets, in the frame, a page that says so (the frame's own
 * navigation), and 502 for anything else.
 */
import {readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createRequire} from 'node:module'
import type {Socket} from 'node:net'
import {dirname, join} from 'node:path'

import {requestUpstream, upgradeUpstream} from './dev-server-forward.js'
import {listeningPort, portOf} from './server-port.js'

/** Where apps load Telegram's script from (core.telegram.org/bots/webapps, "Initializing Mini Apps"). */
export const TELEGRAM_SCRIPT = /https?:\/\/telegram\.org\/js\/telegram-web-app\.js(\?[^"'\s>]*)?/g
/** The proxy's own path for it. */
export const LOCAL_SCRIPT_PATH = '/__bot/telegram-web-app.js'

/**
 * Put first in each proxied page: apps built on @telegram-apps/sdk post their events to the parent with the target
 * origin `https://web.telegram.org` (its bridge's default), which a page on another origin never receives. The shim
 * gives the app a `window.parent` whose postMessage targets `*` (the page checks the message's source, the frame),
 * and keeps telegram-web-app.js's check `event.source === window.parent` true for messages from the real parent.
 */
export const BRIDGE_SHIM = `<script>(function(){try{var p=window.parent;if(!p||p===window)return;
var f={postMessage:function(m,o,t){p.postMessage(m,'*',t)}};
Object.defineProperty(window,'parent',{configurable:true,get:function(){return f}});
var d=Object.getOwnPropertyDescriptor(MessageEvent.prototype,'source');
Object.defineProperty(MessageEvent.prototype,'source',{configurable:true,get:function(){var s=d.get.call(this);return s===p?f:s}});
}catch(e){}})()</script>`

export interface MiniAppProxyOptions {
  /** HTML put at the start of each proxied page's `<head>` (before the app's own scripts); default BRIDGE_SHIM. */
  inject?: string
  maxOrigins?: number
  maxHtmlBytes?: number
  timeoutMs?: number
}

export interface MiniAppProxy {
  /** The URL the frame loads for an app's URL (path, query and hash kept), on the proxy of its origin. */
  frameUrl(appUrl: string): Promise<string>
  close(): Promise<void>
}

let scriptCache: string | undefined

/** telegram-web-app.js as @twa-dev/sdk ships it (read once). */
export function telegramWebAppScript(): string {
  if (scriptCache === undefined) {
    const require = createRequire(import.meta.url)
    // the package's entry is dist/index.js; its src/ holds telegram-web-app.js as Telegram serves it
    const dir = dirname(dirname(require.resolve('@twa-dev/sdk')))
    scriptCache = readFileSync(join(dir, 'src', 'telegram-web-apps.js'), 'utf8')
  }
  return scriptCache
}

/**
 * Whether the request names this proxy in its Host (127.0.0.1, localhost or [::1] with its port): a page of
 * another site whose name is rebound to 127.0.0.1 gets 403, so it cannot read the app through the proxy.
 */
function hostIsMine(req: IncomingMessage, server: Server): boolean {
  const port = portOf(server)
  const host = req.headers.host ?? ''
  return port !== undefined && [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase())
}

export function createMiniAppProxy(options: MiniAppProxyOptions = {}): MiniAppProxy {
  const maxOrigins = options.maxOrigins ?? 16
  const maxHtml = options.maxHtmlBytes ?? 8 * 1024 * 1024
  const timeoutMs = options.timeoutMs ?? 30_000
  const proxies = new Map<string, Promise<{server: Server; base: string; sockets: Set<Socket>}>>()
  let closed = false

  async function start(origin: URL) {
    const sockets = new Set<Socket>()
    const server = createServer((req, res) => {
      if (!hostIsMine(req, server)) {
        res.writeHead(403, {'content-type': 'text/plain'})
        return void res.end('this Mini App proxy answers only for its own loopback address')
      }
      forward(origin, req, res).catch((err: Error) => {
        const why = `the Mini App at ${origin.origin} did not answer (${err.message})`
        if (res.headersSent) return void res.destroy()
        // the frame's own page: a readable screen in the phone frame (as a client shows one), not an error page
        if (req.headers['sec-fetch-dest'] === 'iframe' || req.headers['sec-fetch-dest'] === 'document') {
          res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store'})
          return void res.end(unreachablePage(why))
        }
        res.writeHead(502, {'content-type': 'text/plain', 'x-content-type-options': 'nosniff'})
        res.end(why)
      })
    })
    server.on('connection', (socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    server.on('upgrade', (req, socket: Socket, head) => {
      if (hostIsMine(req, server)) return upgrade(origin, req, socket, head)
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
    })
    server.on('clientError', (_err, socket) => socket.destroy())
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    const port = listeningPort(server)
    return {server, base: `http://127.0.0.1:${port}`, sockets}
  }

  async function forward(origin: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/'
    if (path === LOCAL_SCRIPT_PATH || path.startsWith(`${LOCAL_SCRIPT_PATH}?`)) {
      res.writeHead(200, {'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache'})
      res.end(telegramWebAppScript())
      return
    }
    const upstream = await requestUpstream(origin, req, {path, timeoutMs, drop: ['accept-encoding']})
    const out: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined) continue
      // the page frames the app: a frame ban of the app's server would blank it
      if (name === 'x-frame-options' || name === 'content-security-policy') continue
      out[name] = value
    }
    const location = upstream.headers.location
    if (typeof location === 'string' && location.startsWith(origin.origin))
      out.location = `http://${req.headers.host}${location.slice(origin.origin.length)}`
    const html = /^text\/html/i.test(String(upstream.headers['content-type'] ?? ''))
    const length = Number(upstream.headers['content-length'] ?? 0)
    if (!html || req.method === 'HEAD' || length > maxHtml) {
      res.writeHead(upstream.statusCode ?? 502, out)
      upstream.pipe(res)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of upstream) {
      const piece: Buffer = chunk
      size += piece.length
      if (size > maxHtml) {
        upstream.destroy()
        res.writeHead(502, {'content-type': 'text/plain'})
        res.end(`the Mini App's page is over ${maxHtml} bytes: too large to rewrite`)
        return
      }
      chunks.push(piece)
    }
    const body = rewriteHtml(Buffer.concat(chunks).toString('utf8'), options.inject ?? BRIDGE_SHIM)
    delete out['content-length']
    delete out['transfer-encoding']
    res.writeHead(upstream.statusCode ?? 502, {...out, 'content-length': Buffer.byteLength(body)})
    res.end(body)
  }

  function upgrade(origin: URL, req: IncomingMessage, socket: Socket, head: Buffer): void {
    upgradeUpstream(origin, req, socket, head, {path: req.url ?? '/', timeoutMs})
  }

  return {
    async frameUrl(appUrl) {
      if (closed) throw new Error('the Mini App proxy is closed')
      const url = new URL(appUrl)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${appUrl} is not an http(s) URL`)
      let proxy = proxies.get(url.origin)
      if (!proxy) {
        proxy = start(url)
        proxies.set(url.origin, proxy)
        proxy.catch(() => proxies.delete(url.origin))
        while (proxies.size > maxOrigins) {
          const [oldest, first] = proxies.entries().next().value!
          proxies.delete(oldest)
          void first.then((p) => stop(p)).catch(() => {})
        }
      }
      const {base} = await proxy
      return base + url.pathname + url.search + url.hash
    },
    async close() {
      closed = true
      const all = [...proxies.values()]
      proxies.clear()
      await Promise.all(all.map((p) => p.then(stop).catch(() => {})))
    },
  }
}

function unreachablePage(why: string): string {
  const text = why.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!doctype html><html><head><meta charset="utf-8"><title>Mini App unreachable</title></head><body style="font:15px system-ui,sans-serif;padding:24px;color:#707579"><p id="bot-mini-app-unreachable">${text}</p><p>Start the app's server, or check the button's URL.</p></body></html>`
}

async function stop(p: {server: Server; sockets: Set<Socket>}): Promise<void> {
  for (const socket of p.sockets) socket.destroy()
  await new Promise<void>((resolve) => p.server.close(() => resolve()))
}

/** Telegram's script pointed at the proxy's copy, and `inject` put first in `<head>` (or first in the page). */
export function rewriteHtml(html: string, inject = ''): string {
  const rewritten = html.replace(TELEGRAM_SCRIPT, LOCAL_SCRIPT_PATH)
  if (!inject) return rewritten
  const head = /<head(\s[^>]*)?>/i.exec(rewritten)
  if (head)
    return rewritten.slice(0, head.index + head[0].length) + inject + rewritten.slice(head.index + head[0].length)
  return inject + rewritten
}
