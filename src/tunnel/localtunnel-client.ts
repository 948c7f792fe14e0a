/**
 * The glue to the installed `@n8n/localtunnel` client (v3): the parts of its Tunnel class this
 * provider relies on, loaded lazily (so `bot --help` never loads it).
 */
import type {EventEmitter} from 'node:events'
import {createRequire} from 'node:module'
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
