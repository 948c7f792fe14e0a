/**
 * A small forward proxy on loopback for tests: CONNECT tunnels (what undici's ProxyAgent uses,
 * for http and https targets alike) and absolute-URI HTTP requests (`GET http://host/path`).
 * It records every request it saw, and maps made-up host names to loopback ports, so a test
 * can use an api root such as http://api.telegram.test that only the proxy can resolve:
 *
 *   const proxy = await startProxy({hosts: {'api.telegram.test': emu.port}})
 *   env: {HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, BOT_API_ROOT: 'http://api.telegram.test'}
 *   proxy.seen  // [{method: 'CONNECT', host: 'api.telegram.test', port: 80, ...}]
 *
 * Hosts it does not map get a 502: nothing ever leaves the machine. `auth: 'user:pass'` makes
 * it answer 407 to requests without those credentials.
 */
import {once} from 'node:events'
import {createServer, request, type IncomingMessage, type Server} from 'node:http'
import {connect, type AddressInfo, type Socket} from 'node:net'

export interface SeenRequest {
  method: string
  host: string
  port: number
  /** Path of an absolute-URI request; '' for CONNECT. */
  path: string
  /** The Proxy-Authorization header, decoded ("user:pass"), when sent. */
  credentials?: string
  /** The answer the proxy gave the client (200 for an opened tunnel). */
  status: number
}

export interface TestProxy {
  url: string
  port: number
  seen: SeenRequest[]
  close(): Promise<void>
}

function credentialsOf(req: IncomingMessage): string | undefined {
  const header = req.headers['proxy-authorization']
  const m = typeof header === 'string' ? /^Basic\s+(.+)$/i.exec(header) : null
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : undefined
}

export async function startProxy(options: {hosts?: Record<string, number>; auth?: string} = {}): Promise<TestProxy> {
  const hosts = new Map(Object.entries(options.hosts ?? {}).map(([h, p]) => [h.toLowerCase(), p]))
  const seen: SeenRequest[] = []
  const sockets = new Set<Socket>()
  /** A loopback port for host:port, or undefined (502). Loopback targets pass as they are. */
  const route = (host: string, port: number): number | undefined =>
    hosts.get(host.toLowerCase()) ?? (host === '127.0.0.1' || host === 'localhost' ? port : undefined)
  const authorized = (req: IncomingMessage) => !options.auth || credentialsOf(req) === options.auth

  const server: Server = createServer((req, res) => {
    let target: URL
    try {
      target = new URL(req.url ?? '')
    } catch {
      res.writeHead(400).end('absolute URI expected')
      return
    }
    const port = Number(target.port) || 80
    const entry: SeenRequest = {
      method: req.method ?? '',
      host: target.hostname,
      port,
      path: target.pathname + target.search,
      credentials: credentialsOf(req),
      status: 0,
    }
    seen.push(entry)
    if (!authorized(req)) {
      entry.status = 407
      res.writeHead(407, {'proxy-authenticate': 'Basic realm="test"'}).end()
      return
    }
    const to = route(target.hostname, port)
    if (to === undefined) {
      entry.status = 502
      res.writeHead(502).end('unknown host')
      return
    }
    const headers = {...req.headers}
    delete headers['proxy-authorization']
    delete headers['proxy-connection']
    const upstream = request({host: '127.0.0.1', port: to, method: req.method, path: entry.path, headers}, (answer) => {
      entry.status = answer.statusCode ?? 0
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => {
      entry.status = 502
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })

  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client)
    client.on('error', () => client.destroy())
    client.on('close', () => sockets.delete(client))
    const m = /^(.*):(\d+)$/.exec(req.url ?? '')
    const host = (m?.[1] ?? '').replace(/^\[|\]$/g, '')
    const port = Number(m?.[2] ?? 0)
    const entry: SeenRequest = {method: 'CONNECT', host, port, path: '', credentials: credentialsOf(req), status: 0}
    seen.push(entry)
    if (!authorized(req)) {
      entry.status = 407
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      )
      return
    }
    const to = route(host, port)
    if (to === undefined) {
      entry.status = 502
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const upstream = connect(to, '127.0.0.1', () => {
      entry.status = 200
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => {
      if (entry.status === 0) {
        entry.status = 502
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
      } else client.destroy()
    })
  })

  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    async close() {
      for (const s of sockets) s.destroy()
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}
