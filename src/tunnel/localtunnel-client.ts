/**
 * The glue to the installed `@n8n/localtunnel` client (v3): the parts of its Tunnel class this
 * provider relies on, loaded lazily (so `bot --help` never loads it).
 */
import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import type {EventEmitter} from 'node:events'
import {createRequire} from 'node:module'
import type {Socket} from 'node:net'
import {TunnelError} from './errors.js'
import type {LocaltunnelInfo} from './localtunnel-request.js'

/** The parts of the client's Tunnel class this provider relies on. */
export interface ClientCluster extends EventEmitter {
  opts?: unknown
  open(): void
}
/** What `_getInfo` returns; TunnelCluster keeps this very object as its options. */
export interface ClientInfo {
  max_conn: number
  local_host?: string
  [key: string]: unknown
}
export interface Client extends EventEmitter {
  closed: boolean
  url?: string
  clientId?: string
  tunnelCluster?: ClientCluster
  _getInfo(body: LocaltunnelInfo): ClientInfo
  _init(cb: (err: Error | null, info?: unknown) => void): void
  open(cb: (err?: Error) => void): void
  close(): void
}
export type ClientClass = new (opts: Record<string, unknown>) => Client

let clientClass: ClientClass | undefined
export function loadClientClass(): ClientClass {
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

/**
 * With `local_host` set, the client connects its local sockets to that host (wanted) and also pipes
 * each socket through a Host-header rewriter that decodes the first chunk as UTF-8 text: a multi-byte
 * character split at the chunk's end is corrupted (seen with large bodies). The rewriter is only used
 * when `local_host` is set at the moment a local connection completes, while the address is read when
 * a socket is opened. So: keep `local_host` set only while the cluster opens a socket.
 * The local server then sees the public Host header, unchanged, and every byte as sent.
 */
export function keepHostHeader(client: Client, info: ClientInfo, localHost: string): void {
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

/**
 * The local connection the cluster opens for a remote socket, handed over while it still connects.
 *
 * The client shows its local connection only once it is connected (it pipes it into the remote). In
 * between, closing the tunnel cannot reach it: it connects on, and if the local server has gone by
 * then, the client's error handler schedules a 1 s reconnect timer (TunnelCluster.js, `connLocal`)
 * that keeps the process alive after close. The cluster opens that connection with `net.connect`
 * right after it emits 'open' for the remote, in the same synchronous run, and Node announces every
 * `net.connect` socket on the `net.client.socket` channel
 * (https://nodejs.org/api/diagnostics_channel.html#built-in-channels). Called from an 'open' listener,
 * this listens until that run ends: the first socket announced is the local one. Nothing announced
 * (the remote was already destroyed, or a Node without the channel) just means no socket; the 'pipe'
 * event still shows it once connected.
 */
export function onLocalConnect(cb: (socket: Socket) => void): void {
  const onMessage = (message: unknown) => {
    stop()
    const socket = (message as {socket?: Socket} | undefined)?.socket
    try {
      if (socket) cb(socket)
    } catch {
      // A throw here would reach the process as an uncaught exception (Channel.publish).
    }
  }
  const stop = () => unsubscribe('net.client.socket', onMessage)
  subscribe('net.client.socket', onMessage)
  queueMicrotask(stop)
}
