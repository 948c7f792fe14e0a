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
import {DEFAULT_TUNNEL_TIMEOUT_MS, type TunnelOpenOptions, type TunnelProvider} from './types.js'
import {TUNNEL_FIX, TunnelError} from './errors.js'
import {keepHostHeader, loadClientClass, type Client, type ClientClass, type ClientInfo} from './localtunnel-client.js'
import {
  requestTunnel,
  validateSubdomain,
  validateTunnelHost,
  type LocaltunnelInfo,
  type StartContext,
} from './localtunnel-request.js'
import {LocaltunnelTunnel} from './localtunnel-tunnel.js'

export {requestTunnel, validateSubdomain, validateTunnelHost, type LocaltunnelInfo} from './localtunnel-request.js'
export {LocaltunnelTunnel} from './localtunnel-tunnel.js'

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

function validatePort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TunnelError(`local port ${port} is not a TCP port (1–65535)`, {code: 'tunnel_invalid'})
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
    this.subdomain =
      options.subdomain === undefined || options.subdomain === '' ? undefined : validateSubdomain(options.subdomain)
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
          fail(
            new TunnelError(
              `the localtunnel server ${this.host} gave a tunnel, but its port ${target} refused the connection`,
              {
                code: 'tunnel_connect',
                fix: `a firewall may block outgoing connections to that port; ${TUNNEL_FIX}`,
              },
            ),
          )
        }
      }
      const onAbort = () => {
        if (ctx.reason() === 'aborted') {
          fail(new TunnelError('opening the tunnel was cancelled', {code: 'tunnel_aborted'}))
        } else {
          fail(
            new TunnelError(
              `the localtunnel server ${this.host} gave a tunnel, but no connection to ${target} succeeded within ${ctx.deadlineMs / 1000} s`,
              {code: 'tunnel_connect', fix: `a firewall may block outgoing connections to that port; ${TUNNEL_FIX}`},
            ),
          )
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
