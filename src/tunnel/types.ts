/**
 * The tunnel layer: something that makes a local port reachable at a public base URL.
 * Providers never print and never import oclif; they return tunnels and emit 'down'.
 */

export interface Tunnel {
  /** Public base URL, no trailing slash. */
  readonly url: string
  /** 'cloudflared' | 'localtunnel' | 'public-url' | 'loopback' (or any provider added later). */
  readonly provider: string
  /** The tunnel lost its connection for good: it needs a new one (emitted at most once). */
  on(event: 'down', cb: (err?: Error) => void): void
  /** Releases every socket and timer. Idempotent. */
  close(): Promise<void>
}

export interface TunnelOpenOptions {
  /** Local port to forward to (the relay). */
  port: number
  /** Local host to forward to. Default: 'localhost' for localtunnel, 127.0.0.1 for loopback. */
  localHost?: string
  /** Aborts the start-up. */
  signal?: AbortSignal
  /** Start-up deadline in ms (default 15000); past it, open() rejects with a TunnelError and a fix. */
  timeoutMs?: number
}

export interface TunnelProvider {
  readonly name: string
  open(options: TunnelOpenOptions): Promise<Tunnel>
}

export const DEFAULT_TUNNEL_TIMEOUT_MS = 15_000
