/**
 * Keeps the tunnel alive: listens for the provider's 'down' event and probes the public URL
 * (GET <url><healthPath> must come back from our relay with its nonce). When the tunnel is
 * lost it reopens it with backoff and hands the new tunnel to `onReconnected` (which sets the
 * webhook to the new URL); after `retries` failed attempts it calls `onGiveUp` (the session falls
 * back to long polling).
 */
import {deadline} from '../../../lib/deadline.js'
import type {Tunnel, TunnelProvider} from '../../../tunnel/types.js'

export interface TunnelKeeperOptions {
  provider: TunnelProvider
  /** Local port the tunnel forwards to (the relay). */
  port: number
  /** Path on the public URL that the relay answers with `expect`. */
  healthPath: string
  expect: string
  /** Probe the tunnel and watch 'down' (off for a user's own public URL and for loopback). */
  monitor?: boolean
  probeIntervalMs?: number
  /** Consecutive failed probes that count as "down". Default 2. */
  probeFailures?: number
  probeTimeoutMs?: number
  /** Reconnect attempts before giving up. Default 5. */
  retries?: number
  backoffMs?: number
  maxBackoffMs?: number
  openTimeoutMs?: number
  signal: AbortSignal
  onDown?: (error: string | undefined) => void
  onRetry?: (attempt: number, of: number, delayMs: number, error: string | undefined) => void
  onReconnected: (tunnel: Tunnel) => Promise<void>
  onGiveUp: (error: string | undefined) => void
}

/** GET the health path through the tunnel; true when our relay answered. */
export async function probeThrough(
  url: string,
  healthPath: string,
  expect: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const limit = deadline(timeoutMs, signal)
  try {
    const response = await fetch(url + healthPath, {
      headers: {'bypass-tunnel-reminder': 'bot-dev', 'user-agent': 'bot-dev-probe'},
      signal: limit.signal,
    })
    const text = await response.text()
    return response.ok && text.includes(expect)
  } catch {
    return false
  } finally {
    limit.clear()
  }
}

function errorText(error: unknown): string | undefined {
  if (error === undefined) return undefined
  return error instanceof Error ? error.message : String(error)
}

export class TunnelKeeper {
  #options: Required<Omit<TunnelKeeperOptions, 'onDown' | 'onRetry'>> & Pick<TunnelKeeperOptions, 'onDown' | 'onRetry'>
  #tunnel: Tunnel | undefined
  #timer: NodeJS.Timeout | undefined
  #recovering = false
  #stopped = false
  #failedProbes = 0

  constructor(options: TunnelKeeperOptions) {
    this.#options = {
      monitor: true,
      probeIntervalMs: 10_000,
      probeFailures: 2,
      probeTimeoutMs: 4000,
      retries: 5,
      backoffMs: 500,
      maxBackoffMs: 8000,
      openTimeoutMs: 15_000,
      ...options,
    }
  }

  get tunnel(): Tunnel | undefined {
    return this.#tunnel
  }

  /** Open the first tunnel (errors go to the caller). */
  async open(): Promise<Tunnel> {
    const tunnel = await this.#options.provider.open({
      port: this.#options.port,
      localHost: '127.0.0.1',
      signal: this.#options.signal,
      timeoutMs: this.#options.openTimeoutMs,
    })
    this.#adopt(tunnel)
    return tunnel
  }

  #adopt(tunnel: Tunnel): void {
    this.#tunnel = tunnel
    this.#failedProbes = 0
    if (!this.#options.monitor) return
    tunnel.on('down', (err) => {
      if (this.#tunnel === tunnel) void this.#recover(errorText(err) ?? 'the tunnel closed')
    })
    this.#schedule()
  }

  #schedule(): void {
    if (this.#stopped || !this.#options.monitor) return
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = setTimeout(() => void this.#probe(), this.#options.probeIntervalMs)
    this.#timer.unref()
  }

  async #probe(): Promise<void> {
    const tunnel = this.#tunnel
    if (!tunnel || this.#recovering || this.#stopped) return
    const ok = await probeThrough(
      tunnel.url,
      this.#options.healthPath,
      this.#options.expect,
      this.#options.probeTimeoutMs,
      this.#options.signal,
    )
    if (this.#stopped || tunnel !== this.#tunnel) return
    if (ok) this.#failedProbes = 0
    else if (++this.#failedProbes >= this.#options.probeFailures)
      return this.#recover(`${this.#failedProbes} probes of ${tunnel.url} failed`)
    this.#schedule()
  }

  /** Close the current tunnel and open a new one, with backoff; give up after `retries`. */
  async #recover(reason: string): Promise<void> {
    if (this.#recovering || this.#stopped) return
    this.#recovering = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#options.onDown?.(reason)
    const old = this.#tunnel
    this.#tunnel = undefined
    void old?.close().catch(() => {})
    let lastError: string | undefined = reason
    let delay = 0
    try {
      for (let attempt = 1; attempt <= this.#options.retries; attempt++) {
        if (this.#stopped) return
        this.#options.onRetry?.(attempt, this.#options.retries, delay, attempt === 1 ? undefined : lastError)
        if (delay > 0) await this.#sleep(delay)
        if (this.#stopped) return
        delay = delay === 0 ? this.#options.backoffMs : Math.min(delay * 2, this.#options.maxBackoffMs)
        let tunnel: Tunnel | undefined
        try {
          tunnel = await this.#options.provider.open({
            port: this.#options.port,
            localHost: '127.0.0.1',
            signal: this.#options.signal,
            timeoutMs: this.#options.openTimeoutMs,
          })
          if (this.#stopped) {
            await tunnel.close().catch(() => {})
            return
          }
          await this.#options.onReconnected(tunnel)
          this.#recovering = false
          this.#adopt(tunnel)
          return
        } catch (error) {
          lastError = errorText(error)
          await tunnel?.close().catch(() => {})
        }
      }
      if (!this.#stopped) {
        this.#stopped = true
        this.#options.onGiveUp(lastError)
      }
    } finally {
      this.#recovering = false
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms)
      this.#options.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t)
          resolve()
        },
        {once: true},
      )
    })
  }

  /** Stop watching (the tunnel itself is closed by close()). */
  stop(): void {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
  }

  async close(): Promise<void> {
    this.stop()
    const tunnel = this.#tunnel
    this.#tunnel = undefined
    await tunnel?.close()
  }
}
