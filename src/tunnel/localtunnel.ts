/**
 * localtunnel provider: the real `@n8n/localtunnel` client, with a start-up deadline and 'down'.
 *
 * What the client does (v3.0.0, lib/Tunnel.js and lib/TunnelCluster.js):
 *  - GET `<host>/?new` (or `<host>/<subdomain>`) → JSON {id, port, max_conn_count, url, ip?};
 *    on any failure (network, non-2xx) it retries every second, forever, and cannot be stopped;
 *  - then opens `max_conn_count` TCP sockets to `ip || hostname(host)`:`port`; each one is piped to a
 *    TCP connection to the local port; when a connected socket closes ('dead') it opens a new one;
 *  - a socket whose connect is refused emits 'error' and is not replaced; other connect errors are
 *    silent and not replaced either;
 *  - close() destroys the connected sockets and stops replacing them.
 *
 * So the tunnel request (the GET) is done here, with fetch, a deadline and an AbortSignal (the client's
 * own loop would keep a timer alive forever), and everything after it is the client's: `_establish`,
 * the socket cluster, the piping and the reconnects. The provider watches the connected sockets and
 * emits 'down' when none is left and none can come back.
 */
import {EventEmitter} from 'node:events'
import {createRequire} from 'node:module'
import {Socket} from 'node:net'
import {DEFAULT_TUNNEL_TIMEOUT_MS, type Tunnel, type TunnelOpenOptions, type TunnelProvider} from './types.js'
import {TUNNEL_FIX, TunnelError} from './errors.js'

export const DEFAULT_LOCALTUNNEL_HOST = 'https://localtunnel.me'

export interface LocaltunnelProviderOptions {
  /** The localtunnel server, e.g. http://127.0.0.1:PORT. Default https://localtunnel.me. */
  host?: string
  /** Ask for this subdomain (the server may give another one if it is taken). */
  subdomain?: string
  /** 'down' when no socket to the server has been connected for this long. Default 10000 ms. */
  downAfterMs?: number
  /** Pause between two tunnel requests while the server does not answer. Default 1000 ms (like the client). */
  retryDelayMs?: number
}

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

/**
 * With `local_host` set, the client connects its local sockets to that host (wanted) and also pipes
 * each socket through a Host-header rewriter that decodes the first chunk as UTF-8 text: a multi-byte
 * character split at the chunk's end is corrupted (seen with large bodies). The rewriter is only used
 * when `local_host` is set at the moment a local connection completes, while the address is read when
 * a socket is opened. So: keep `local_host` set only while the cluster opens a socket.
 * The local server then sees the public Host header, unchanged, and every byte as sent.
 */
function keepHostHeader(client: Client, info: ClientInfo, localHost: string): void {
  const cluster = client.tunnelCluster
  if (!cluster || cluster.opts !== info) return // not the client this was written for: leave it as it is
  info.local_host = undefined
  const open = cluster.open
  cluster.open = function openWithLocalHost(this: ClientCluster) {
    info.local_host = localHost
    try {
      open.call(this)
    } finally {
      info.local_host = undefined
    }
  }
}

/** The parts of the client's Tunnel class this provider relies on. */
interface ClientCluster extends EventEmitter {
  opts?: unknown
  open(): void
}
/** What `_getInfo` returns; TunnelCluster keeps this very object as its options. */
interface ClientInfo {
  max_conn: number
  local_host?: string
  [key: string]: unknown
}
interface Client extends EventEmitter {
  closed: boolean
  url?: string
  clientId?: string
  tunnelCluster?: ClientCluster
  _getInfo(body: LocaltunnelInfo): ClientInfo
  _init(cb: (err: Error | null, info?: unknown) => void): void
  open(cb: (err?: Error) => void): void
  close(): void
}
type ClientClass = new (opts: Record<string, unknown>) => Client

let clientClass: ClientClass | undefined
function loadClientClass(): ClientClass {
  if (clientClass) return clientClass
  const require = createRequire(import.meta.url)
  const Base = require('@n8n/localtunnel/lib/Tunnel.js') as ClientClass
  const proto = Base.prototype as Partial<Client>
  if (typeof proto._init !== 'function' || typeof proto._getInfo !== 'function' || typeof proto.open !== 'function') {
    throw new TunnelError('the installed @n8n/localtunnel is not a version this tool knows (3.x expected)', {
      code: 'tunnel_protocol',
      fix: 'reinstall the tool, or use --public-url with cloudflared or ngrok',
    })
  }
  clientClass = Base
  return Base
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

function validatePort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TunnelError(`local port ${port} is not a TCP port (1–65535)`, {code: 'tunnel_invalid'})
  }
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

function parseInfo(body: unknown): LocaltunnelInfo | undefined {
  if (!body || typeof body !== 'object') return undefined
  const b = body as Record<string, unknown>
  if (typeof b.id !== 'string' || typeof b.url !== 'string') return undefined
  if (typeof b.port !== 'number' || !Number.isInteger(b.port) || b.port < 1 || b.port > 65535) return undefined
  if (b.max_conn_count !== undefined && (typeof b.max_conn_count !== 'number' || b.max_conn_count < 1)) return undefined
  try {
    new URL(b.url)
  } catch {
    return undefined
  }
  return b as unknown as LocaltunnelInfo
}

interface StartContext {
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
      await abortableDelay(ctx.retryDelayMs, ctx.signal)
      continue
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const message = body && typeof body === 'object' && typeof (body as {message?: unknown}).message === 'string'
      ? (body as {message: string}).message
      : undefined
    if (status >= 200 && status < 300) {
      const info = parseInfo(body)
      if (!info) {
        throw new TunnelError(`${ctx.host} answered, but not like a localtunnel server (expected JSON with id, port and url)`, {
          code: 'tunnel_protocol',
          fix: `check that --tunnel-host points at a localtunnel server; or ${TUNNEL_FIX}`,
        })
      }
      return info
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      throw new TunnelError(`the localtunnel server ${ctx.host} refused the tunnel (HTTP ${status}${message ? `: ${message}` : ''})`, {
        code: 'tunnel_refused',
        fix: ctx.subdomain ? `try another --subdomain or none; or ${TUNNEL_FIX}` : TUNNEL_FIX,
      })
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

/** A tunnel through localtunnel; `sockets` is how many sockets to the server are connected now. */
export class LocaltunnelTunnel implements Tunnel {
  readonly provider = 'localtunnel'
  private readonly events = new EventEmitter()
  /** Connected sockets to the server, with the time each connected. */
  private readonly remotes = new Map<Socket, number>()
  /** The client's connections to the local port (found through the 'pipe' event of their remote). */
  private readonly locals = new Set<Socket>()
  private downTimer?: NodeJS.Timeout
  private stableTimer?: NodeJS.Timeout
  private downError?: Error
  private isDown = false
  private closed = false
  private closing?: Promise<void>
  private refused = 0
  private lastError?: Error

  /** @internal built by the provider once the client is established. */
  constructor(
    readonly url: string,
    readonly id: string,
    private readonly client: Client,
    private readonly maxConn: number,
    private readonly downAfterMs: number,
  ) {}

  get sockets(): number {
    return this.remotes.size
  }

  on(event: 'down', cb: (err?: Error) => void): void {
    this.events.on(event, cb)
    // A listener added after the fact still hears about it.
    if (event === 'down' && this.isDown) process.nextTick(() => cb(this.downError))
  }

  /** @internal */
  watch(): void {
    const cluster = this.client.tunnelCluster
    cluster?.on('open', (remote: Socket) => {
      if (this.closed || this.isDown) return
      this.remotes.set(remote, Date.now())
      this.armStableCheck()
      remote.once('close', () => {
        this.remotes.delete(remote)
        this.checkDown()
      })
      // The client pipes its local connection into the remote socket: that is how we learn of it.
      remote.on('pipe', (src) => {
        if (!(src instanceof Socket) || this.locals.has(src)) return
        this.locals.add(src)
        src.once('close', () => this.locals.delete(src))
      })
    })
    this.client.on('error', (err: Error) => {
      this.lastError = err
      // A refused connect is never retried by the client: that slot is gone for good.
      if (/connection refused/i.test(err.message)) this.refused++
      this.checkDown()
    })
    this.checkDown()
  }

  /** A socket that has stayed connected this long means the tunnel works (a server that accepts and drops at once does not). */
  private get stableMs(): number {
    return Math.min(1000, this.downAfterMs / 2)
  }

  private hasStableSocket(now = Date.now()): boolean {
    for (const openedAt of this.remotes.values()) if (now - openedAt >= this.stableMs) return true
    return false
  }

  /** No socket left: start the down window (or go down now if the client will never reconnect). */
  private checkDown(): void {
    if (this.closed || this.isDown || this.remotes.size > 0) return
    if (this.refused >= this.maxConn) {
      this.goDown(new Error(`the localtunnel server stopped accepting the tunnel's connections (${this.lastError?.message ?? 'refused'})`))
      return
    }
    this.downTimer ??= setTimeout(() => {
      this.downTimer = undefined
      if (this.hasStableSocket()) return this.clearDownWindow()
      const why = this.lastError ? `: ${this.lastError.message}` : ''
      this.goDown(new Error(`no lasting connection to the localtunnel server for ${this.downAfterMs / 1000} s${why}`))
    }, this.downAfterMs)
    this.armStableCheck()
  }

  /** While the down window runs, end it once some socket has stayed connected for stableMs. */
  private armStableCheck(): void {
    if (this.stableTimer || !this.downTimer || this.remotes.size === 0) return
    const oldest = Math.min(...this.remotes.values())
    this.stableTimer = setTimeout(() => {
      this.stableTimer = undefined
      if (this.hasStableSocket()) this.clearDownWindow()
      else this.armStableCheck()
    }, Math.max(0, oldest + this.stableMs - Date.now()))
  }

  private clearDownWindow(): void {
    clearTimeout(this.downTimer)
    clearTimeout(this.stableTimer)
    this.downTimer = undefined
    this.stableTimer = undefined
  }

  private goDown(err: Error): void {
    this.isDown = true
    this.downError = err
    this.clearDownWindow()
    // The client would not recover on its own: release it now; close() stays callable.
    this.releaseLocals()
    this.client.close()
    this.events.emit('down', err)
  }

  /**
   * Close the client's local connections before it sees its remote sockets close: otherwise a local
   * server that resets them makes the client schedule a 1 s reconnect timer after it was closed.
   */
  private releaseLocals(): void {
    for (const local of this.locals) local.destroy()
    this.locals.clear()
  }

  close(): Promise<void> {
    this.closing ??= this.doClose()
    return this.closing
  }

  private async doClose(): Promise<void> {
    this.closed = true
    this.clearDownWindow()
    const pending = [...this.locals, ...this.remotes.keys()].filter((s) => !s.closed)
    this.releaseLocals()
    // The client destroys its sockets to the server; wait (bounded) until everything is really closed.
    this.client.close()
    for (const s of pending) s.destroy()
    let bound: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all(pending.map((s) => new Promise<void>((resolve) => (s.closed ? resolve() : s.once('close', () => resolve()))))),
      new Promise<void>((resolve) => (bound = setTimeout(resolve, 2000))),
    ])
    clearTimeout(bound)
    this.remotes.clear()
    this.locals.clear()
    this.events.removeAllListeners()
  }
}

export class LocaltunnelProvider implements TunnelProvider {
  readonly name = 'localtunnel'
  readonly host: string
  readonly subdomain?: string
  private readonly downAfterMs: number
  private readonly retryDelayMs: number

  constructor(options: LocaltunnelProviderOptions = {}) {
    this.host = validateTunnelHost(options.host ?? DEFAULT_LOCALTUNNEL_HOST)
    this.subdomain = options.subdomain === undefined || options.subdomain === '' ? undefined : validateSubdomain(options.subdomain)
    this.downAfterMs = options.downAfterMs ?? 10_000
    this.retryDelayMs = options.retryDelayMs ?? 1000
  }

  async open(options: TunnelOpenOptions): Promise<LocaltunnelTunnel> {
    validatePort(options.port)
    const deadlineMs = options.timeoutMs ?? DEFAULT_TUNNEL_TIMEOUT_MS
    const ClientBase = loadClientClass()

    const controller = new AbortController()
    let reason: 'deadline' | 'aborted' = 'deadline'
    const onAbort = () => {
      reason = 'aborted'
      controller.abort()
    }
    if (options.signal?.aborted) throw new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'})
    options.signal?.addEventListener('abort', onAbort, {once: true})
    const deadline = setTimeout(() => controller.abort(), deadlineMs)
    const ctx: StartContext = {
      host: this.host,
      subdomain: this.subdomain,
      signal: controller.signal,
      retryDelayMs: this.retryDelayMs,
      deadlineMs,
      reason: () => reason,
    }

    // The client's own GET loop is replaced by requestTunnel (deadline, abort, clear errors).
    class Client extends (ClientBase as ClientClass) {
      override _init(cb: (err: Error | null, info?: unknown) => void): void {
        requestTunnel(ctx).then(
          (body) => {
            this.body = body
            this.info = this._getInfo(body)
            if (options.localHost) this.info.local_host = options.localHost
            cb(null, this.info)
          },
          (err: Error) => cb(err),
        )
      }
      body?: LocaltunnelInfo
      info?: ClientInfo
    }

    const clientOptions: Record<string, unknown> = {host: this.host, port: options.port, local_port: options.port}
    if (this.subdomain) clientOptions.subdomain = this.subdomain
    const client = new Client(clientOptions)
    // The client emits 'error' for every refused socket; without a listener that would throw.
    client.on('error', () => {})
    const startErrors: Error[] = []
    const onStartError = (err: Error) => startErrors.push(err)
    client.on('error', onStartError)

    try {
      await new Promise<void>((resolve, reject) =>
        client.open((err?: Error) => {
          if (err) return reject(err)
          // Synchronously, before any local connection can complete.
          if (options.localHost) keepHostHeader(client, client.info as ClientInfo, options.localHost)
          resolve()
        }),
      )
      const info = client.body as LocaltunnelInfo
      const maxConn = (client.info as ClientInfo).max_conn
      const tunnel = new LocaltunnelTunnel(info.url.replace(/\/+$/, ''), info.id, client, maxConn, this.downAfterMs)
      tunnel.watch()
      await this.firstSocket(tunnel, client, info, maxConn, ctx, startErrors)
      return tunnel
    } catch (err) {
      client.close()
      throw err
    } finally {
      clearTimeout(deadline)
      options.signal?.removeEventListener('abort', onAbort)
      client.off('error', onStartError)
    }
  }

  /** Resolves once one socket to the server's tunnel port is connected. */
  private firstSocket(
    tunnel: LocaltunnelTunnel,
    client: Client,
    info: LocaltunnelInfo,
    maxConn: number,
    ctx: StartContext,
    startErrors: Error[],
  ): Promise<void> {
    const target = `${info.ip ?? new URL(this.host).hostname}:${info.port}`
    return new Promise<void>((resolve, reject) => {
      const cluster = client.tunnelCluster
      const cleanup = () => {
        cluster?.off('open', onOpen)
        client.off('error', onError)
        ctx.signal.removeEventListener('abort', onAbort)
      }
      const onOpen = () => {
        cleanup()
        resolve()
      }
      const fail = (err: TunnelError) => {
        cleanup()
        void tunnel.close()
        reject(err)
      }
      const onError = () => {
        const refused = startErrors.filter((e) => /connection refused/i.test(e.message)).length
        if (refused >= maxConn && tunnel.sockets === 0) {
          fail(new TunnelError(`the localtunnel server ${this.host} gave a tunnel, but its port ${target} refused the connection`, {
            code: 'tunnel_connect',
            fix: `a firewall may block outgoing connections to that port; ${TUNNEL_FIX}`,
          }))
        }
      }
      const onAbort = () => {
        if (ctx.reason() === 'aborted') {
          fail(new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'}))
        } else {
          fail(new TunnelError(
            `the localtunnel server ${this.host} gave a tunnel, but no connection to ${target} succeeded within ${ctx.deadlineMs / 1000} s`,
            {code: 'tunnel_connect', fix: `a firewall may block outgoing connections to that port; ${TUNNEL_FIX}`},
          ))
        }
      }
      if (tunnel.sockets > 0) return resolve()
      cluster?.on('open', onOpen)
      client.on('error', onError)
      if (ctx.signal.aborted) return onAbort()
      ctx.signal.addEventListener('abort', onAbort, {once: true})
      onError()
    })
  }
}

export function localtunnelProvider(options: LocaltunnelProviderOptions = {}): LocaltunnelProvider {
  return new LocaltunnelProvider(options)
}
