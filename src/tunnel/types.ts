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
  /**
   * A provider that runs a program (cloudflared) reports it: `running` once it was started, then not
   * once it exited. A session records it so that the next one can stop it if this one is killed.
   */
  onProcess?: (process: TunnelProcess) => void
}

/** The environment variable whose value marks a tunnel program as ours (read back from /proc/<pid>/environ). */
export const TUNNEL_MARKER_ENV = 'BOT_DEV_TUNNEL'

export interface TunnelProcess {
  /** Its pid, also its process group. */
  pid: number
  /** The random value of TUNNEL_MARKER_ENV in its environment. */
  marker: string
  running: boolean
}

export interface TunnelProvider {
  readonly name: string
  open(options: TunnelOpenOptions): Promise<Tunnel>
}

export const DEFAULT_TUNNEL_TIMEOUT_MS = 15_000
