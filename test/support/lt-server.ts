/**
 * A loopback server that speaks localtunnel's protocol, for tests and benches.
 *
 * Protocol (what the localtunnel client expects):
 *  - the client GETs `<host>/?new` (or `<host>/<subdomain>`) and gets JSON
 *    `{id, port, max_conn_count, url}` (optionally `ip`);
 *  - it opens `max_conn_count` TCP connections to `port` on the server's host and pipes each one
 *    to its local port; when one closes it opens a new one;
 *  - the server writes each public HTTP request raw onto an idle client socket and reads the
 *    response back from it (one request at a time per socket, keep-alive between requests).
 *
 * Here every tunnel gets its own public HTTP port on 127.0.0.1 (`url` = http://127.0.0.1:<port>)
 * instead of a subdomain. Public requests are proxied with node:http over the client sockets:
 * each client socket is the only connection of its own keep-alive http.Agent, so a socket carries
 * one request at a time; requests wait in a bounded queue while every socket is busy.
 *
 * Everything listens on 127.0.0.1 only and close() destroys every socket.
 */
import {EventEmitter} from 'node:events'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import {randomBytes} from 'node:crypto'

export interface LocaltunnelServerOptions {
  /** `max_conn_count` handed to clients; extra client sockets are refused. Default 10 (like localtunnel's server). */
  maxSockets?: number
  /** A tunnel whose client has had no socket for this long is removed (localtunnel's server does this). Default 5000; 0 = never. */
  graceMs?: number
  /** At most this many tunnels at once (503 beyond). Default 50. */
  maxTunnels?: number
  /** At most this many public requests waiting for a client socket, per tunnel (503 beyond). Default 1000. */
  maxQueue?: number
  /** A public request gets 504 if it is not answered within this time. Default 60000. */
  requestTimeoutMs?: number
  /** Include `"ip": "127.0.0.1"` in the answer to the client (the client then connects to it). Default false. */
  includeIp?: boolean
  /** Port of the control server. Default 0 (a free port). */
  port?: number
  /** The host name in each tunnel's public URL (it must resolve to 127.0.0.1 where it is used). Default 127.0.0.1. */
  publicHost?: string
  /** Answer each request for a new tunnel this much later (a slow tunnel server). Default 0. */
  newTunnelDelayMs?: number
  /** Serve each tunnel's public side over https with this key and certificate (PEM), as localtunnel's hosts do. */
  tls?: {key: string; cert: string}
}

export interface LtTunnelInfo {
  id: string
  url: string
  /** TCP port the client's sockets connect to. */
  port: number
  /** Client sockets currently connected. */
  sockets: number
  /** Public requests answered so far (any status). */
  requests: number
  /** Public requests waiting for a free client socket now. */
  waiting: number
}

export interface LocaltunnelServer {
  /** Control URL, e.g. http://127.0.0.1:PORT — the `host` of the localtunnel client. */
  readonly url: string
  readonly tunnels: LtTunnelInfo[]
  /** True between kill() and revive(). */
  readonly killed: boolean
  /** Destroy every client socket of every tunnel (the clients reconnect). */
  dropAll(): void
  /** Stop answering anything: every socket destroyed, every port closed, tunnels forgotten. */
  kill(): Promise<void>
  /** Listen again on the same control port (old tunnels stay forgotten, like a restarted server). */
  revive(): Promise<void>
  /** Resolves when `predicate` holds (checked on every change); rejects after `timeoutMs` (default 30 000: it bounds a failure only, and CI may run at load 8 or more). */
  waitFor(predicate: (server: LocaltunnelServer) => boolean, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

const SUBDOMAIN_RE = /^(?:[a-z0-9][a-z0-9-]{4,63}[a-z0-9]|[a-z0-9]{4,63})$/
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

function stripHopByHop(raw: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1])
  }
  return out
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err)
    server.once('error', onError)
    server.listen({port, host: '127.0.0.1'}, () => {
      server.off('error', onError)
      resolve((server.address() as net.AddressInfo).port)
    })
  })
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve()
    server.close(() => resolve())
  })
}

interface Waiter {
  grant(socket: net.Socket): void
}

/** One client socket and the agent that sends requests over it. */
interface ClientSocket {
  socket: net.Socket
  agent: http.Agent
  handedOut: boolean
}

class LtTunnel {
  readonly clientSockets = new Set<ClientSocket>()
  private idle: ClientSocket[] = []
  private waiting: Waiter[] = []
  private graceTimer?: NodeJS.Timeout
  readonly tcp: net.Server
  readonly public: http.Server
  tcpPort = 0
  publicPort = 0
  requests = 0
  closed = false

  constructor(
    readonly id: string,
    private readonly opts: Required<Omit<LocaltunnelServerOptions, 'port' | 'includeIp' | 'newTunnelDelayMs' | 'tls'>> &
      Pick<LocaltunnelServerOptions, 'tls'>,
    private readonly changed: () => void,
    private readonly onExpire: (t: LtTunnel) => void,
  ) {
    this.tcp = net.createServer((socket) => this.onClientSocket(socket))
    this.public = this.opts.tls
      ? https.createServer(this.opts.tls, (req, res) => this.forward(req, res))
      : http.createServer((req, res) => this.forward(req, res))
    this.public.keepAliveTimeout = 5000
    this.public.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) =>
      this.upgrade(req, socket, head),
    )
  }

  get url(): string {
    return `${this.opts.tls ? 'https' : 'http'}://${this.opts.publicHost}:${this.publicPort}`
  }

  /**
   * An upgrade (a WebSocket), as localtunnel's server passes one: an idle client socket is taken for good, the
   * request's head written raw onto it, then both piped until either closes (the client then opens a new socket).
   */
  private upgrade(req: http.IncomingMessage, socket: net.Socket, head: Buffer): void {
    socket.on('error', () => socket.destroy())
    const cs = this.idle.shift()
    if (!cs)
      return void socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
    const remote = cs.socket
    remote.removeAllListeners('data')
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
    remote.write(`${lines.join('\r\n')}\r\n\r\n`)
    if (head.length > 0) remote.write(head)
    remote.pipe(socket)
    socket.pipe(remote)
    socket.on('close', () => remote.destroy())
    remote.on('close', () => socket.destroy())
    this.changed()
  }

  async start(): Promise<void> {
    this.tcpPort = await listen(this.tcp, 0)
    this.publicPort = await listen(this.public, 0)
    this.armGrace()
  }

  info(): LtTunnelInfo {
    return {
      id: this.id,
      url: this.url,
      port: this.tcpPort,
      sockets: this.clientSockets.size,
      requests: this.requests,
      waiting: this.waiting.length,
    }
  }

  private armGrace(): void {
    clearTimeout(this.graceTimer)
    this.graceTimer = undefined
    if (this.opts.graceMs > 0 && this.clientSockets.size === 0 && !this.closed) {
      this.graceTimer = setTimeout(() => this.onExpire(this), this.opts.graceMs)
    }
  }

  private onClientSocket(socket: net.Socket): void {
    if (this.closed || this.clientSockets.size >= this.opts.maxSockets) {
      socket.destroy()
      return
    }
    const cs: ClientSocket = {socket, agent: undefined as unknown as http.Agent, handedOut: false}
    const agent = new http.Agent({keepAlive: true, maxSockets: 1, maxFreeSockets: 1})
    // The agent's only connection is this client socket; it is handed out once.
    ;(agent as unknown as {createConnection: unknown}).createConnection = (
      _options: unknown,
      cb: (err: Error | null, s?: net.Socket) => void,
    ) => {
      if (cs.handedOut || socket.destroyed) {
        cb(new Error('tunnel socket is gone'))
        return undefined
      }
      cs.handedOut = true
      return socket
    }
    cs.agent = agent
    this.clientSockets.add(cs)
    socket.setNoDelay(true)
    socket.on('error', () => socket.destroy())
    // Keep reading while idle so a closed client socket is noticed at once.
    socket.on('data', () => {})
    socket.once('close', () => {
      this.clientSockets.delete(cs)
      this.idle = this.idle.filter((c) => c !== cs)
      agent.destroy()
      this.armGrace()
      this.changed()
    })
    this.armGrace()
    this.release(cs)
    this.changed()
  }

  /** A socket is free: give it to the oldest waiting request, or keep it idle. */
  private release(cs: ClientSocket): void {
    if (!this.reusable(cs)) {
      cs.socket.destroy()
      return
    }
    const waiter = this.waiting.shift()
    if (waiter) {
      waiter.grant(cs.socket)
      this.changed()
    } else {
      this.idle.push(cs)
    }
  }

  private reusable(cs: ClientSocket): boolean {
    const s = cs.socket
    if (this.closed || s.destroyed || s.writableEnded || s.readableEnded) return false
    if (!cs.handedOut) return true
    // After a request the agent keeps a reusable socket in its free list (keep-alive).
    const free = Object.values(cs.agent.freeSockets).flat()
    return free.includes(s)
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let done = false
    let out: http.ClientRequest | undefined
    const fail = (status: number, message: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      out?.destroy()
      this.waiting = this.waiting.filter((w) => w !== waiter)
      if (!res.headersSent) {
        res.writeHead(status, {'content-type': 'text/plain', connection: 'close'})
        res.end(message + '\n')
      } else {
        res.destroy()
      }
      this.requests++
      this.changed()
    }
    const timer = setTimeout(
      () => fail(504, 'localtunnel (test server): the tunnel did not answer in time'),
      this.opts.requestTimeoutMs,
    )
    res.once('close', () => {
      if (!done) {
        // The public client went away before the answer: the socket's state is unknown, drop it.
        done = true
        clearTimeout(timer)
        out?.destroy()
        this.waiting = this.waiting.filter((w) => w !== waiter)
        this.changed()
      }
    })

    const send = (cs: ClientSocket) => {
      if (done) {
        this.release(cs)
        return
      }
      const request = http.request({
        agent: cs.agent,
        host: '127.0.0.1',
        port: this.tcpPort,
        method: req.method,
        path: req.url,
        headers: stripHopByHop(req.rawHeaders),
        setHost: false,
      })
      out = request
      request.on('response', (pres) => {
        if (done) {
          pres.resume()
          return
        }
        res.writeHead(pres.statusCode ?? 502, pres.statusMessage, stripHopByHop(pres.rawHeaders))
        pres.pipe(res)
        pres.on('end', () => {
          if (done) return
          done = true
          clearTimeout(timer)
          this.requests++
          this.changed()
        })
        pres.on('error', () => fail(502, 'localtunnel (test server): the tunnel closed during the answer'))
      })
      request.on('error', () => fail(502, 'localtunnel (test server): the tunnel socket failed'))
      request.on('close', () => {
        // Let the agent file the socket as free first (it does so right after 'close').
        process.nextTick(() => this.release(cs))
      })
      req.pipe(request)
    }

    const waiter: Waiter = {
      grant: (socket) => {
        const cs = [...this.clientSockets].find((c) => c.socket === socket)
        if (cs) send(cs)
      },
    }

    const cs = this.idle.shift()
    if (cs) {
      send(cs)
    } else if (this.waiting.length >= this.opts.maxQueue) {
      fail(503, 'localtunnel (test server): too many requests waiting for a tunnel socket')
    } else {
      this.waiting.push(waiter)
      this.changed()
    }
  }

  dropSockets(): void {
    for (const cs of this.clientSockets) cs.socket.destroy()
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.graceTimer)
    this.waiting = []
    this.dropSockets()
    this.public.closeAllConnections()
    await Promise.all([closeServer(this.tcp), closeServer(this.public)])
  }
}

export async function startLocaltunnelServer(options: LocaltunnelServerOptions = {}): Promise<LocaltunnelServer> {
  const opts = {
    maxSockets: options.maxSockets ?? 10,
    graceMs: options.graceMs ?? 5000,
    maxTunnels: options.maxTunnels ?? 50,
    maxQueue: options.maxQueue ?? 1000,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    publicHost: options.publicHost ?? '127.0.0.1',
    tls: options.tls,
  }
  const events = new EventEmitter()
  events.setMaxListeners(0)
  const tunnels = new Map<string, LtTunnel>()
  let killed = false
  let closed = false

  const changed = () => events.emit('change')

  const removeTunnel = (t: LtTunnel) => {
    if (tunnels.get(t.id) === t) tunnels.delete(t.id)
    void t.close().then(changed)
  }

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
    res.end(text)
  }

  const newId = (): string => {
    for (;;) {
      const id = randomBytes(8).toString('hex').slice(0, 10)
      if (!tunnels.has(id)) return id
    }
  }

  const createTunnel = async (res: http.ServerResponse, requested?: string) => {
    if (options.newTunnelDelayMs) await new Promise((r) => setTimeout(r, options.newTunnelDelayMs))
    if (tunnels.size >= opts.maxTunnels) {
      json(res, 503, {message: `too many tunnels (limit ${opts.maxTunnels})`})
      return
    }
    // Like localtunnel's server: a subdomain already in use gets a random id instead.
    const id = requested && !tunnels.has(requested) ? requested : newId()
    const t = new LtTunnel(id, opts, changed, removeTunnel)
    tunnels.set(id, t)
    try {
      await t.start()
    } catch (err) {
      tunnels.delete(id)
      await t.close()
      json(res, 500, {message: `could not open a tunnel port: ${(err as Error).message}`})
      return
    }
    changed()
    const body: Record<string, unknown> = {id, port: t.tcpPort, max_conn_count: opts.maxSockets, url: t.url}
    if (options.includeIp) body.ip = '127.0.0.1'
    json(res, 200, body)
  }

  const control = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method !== 'GET') {
      json(res, 405, {message: 'method not allowed'})
      return
    }
    if (url.pathname === '/' && url.searchParams.has('new')) {
      void createTunnel(res)
      return
    }
    if (url.pathname === '/api/status') {
      json(res, 200, {tunnels: tunnels.size})
      return
    }
    const status = /^\/api\/tunnels\/([^/]+)\/status$/.exec(url.pathname)
    if (status) {
      const t = tunnels.get(status[1])
      if (t) json(res, 200, {connected_sockets: t.clientSockets.size})
      else json(res, 404, {message: 'no such tunnel'})
      return
    }
    const parts = url.pathname.split('/').filter(Boolean)
    if (parts.length !== 1) {
      json(res, 404, {message: 'not found'})
      return
    }
    const subdomain = parts[0]
    if (!SUBDOMAIN_RE.test(subdomain)) {
      json(res, 403, {
        message: 'Invalid subdomain. Subdomains must be lowercase and between 4 and 63 alphanumeric characters.',
      })
      return
    }
    void createTunnel(res, subdomain)
  })
  control.keepAliveTimeout = 1000

  const port = await listen(control, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`

  const killAll = async () => {
    const all = [...tunnels.values()]
    tunnels.clear()
    control.closeAllConnections()
    await Promise.all([closeServer(control), ...all.map((t) => t.close())])
    changed()
  }

  const server: LocaltunnelServer = {
    url,
    get tunnels() {
      return [...tunnels.values()].map((t) => t.info())
    },
    get killed() {
      return killed
    },
    dropAll() {
      for (const t of tunnels.values()) t.dropSockets()
    },
    async kill() {
      killed = true
      await killAll()
    },
    async revive() {
      if (closed) throw new Error('the localtunnel test server is closed')
      if (!killed) return
      await listen(control, port)
      killed = false
      changed()
    },
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(server)) return
          cleanup()
          resolve()
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(
              `lt-server: condition not met within ${timeoutMs} ms (tunnels: ${JSON.stringify(server.tunnels)})`,
            ),
          )
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          events.off('change', check)
        }
        events.on('change', check)
        check()
      })
    },
    async close() {
      closed = true
      killed = true
      await killAll()
      events.removeAllListeners()
    },
  }
  return server
}
