/**
 * A live localtunnel tunnel: watches the client's sockets to the server and emits 'down' once none is
 * left and none can come back (every slot refused, or nothing lasting for `downAfterMs`).
 */
import {EventEmitter} from 'node:events'
import {Socket} from 'node:net'
import {waitAtMost} from '../lib/deadline.js'
import type {Tunnel} from './types.js'
import {onLocalConnect, type Client} from './localtunnel-client.js'

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
      // The client opens the remote's local connection right after this event: known from its first
      // moment, it is closed with the tunnel even if it has not connected yet.
      onLocalConnect((local) => this.trackLocal(local))
      // The client pipes its local connection into the remote socket once connected (and again after a
      // reconnect, which no 'open' announces).
      remote.on('pipe', (src) => {
        if (src instanceof Socket) this.trackLocal(src)
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

  private trackLocal(local: Socket): void {
    if (this.locals.has(local)) return
    if (this.closed || this.isDown) {
      local.destroy()
      return
    }
    this.locals.add(local)
    local.once('close', () => this.locals.delete(local))
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
      this.goDown(
        new Error(
          `the localtunnel server stopped accepting the tunnel's connections (${this.lastError?.message ?? 'refused'})`,
        ),
      )
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
    this.stableTimer = setTimeout(
      () => {
        this.stableTimer = undefined
        if (this.hasStableSocket()) this.clearDownWindow()
        else this.armStableCheck()
      },
      Math.max(0, oldest + this.stableMs - Date.now()),
    )
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
    // Every socket in these sets has not emitted 'close' yet (each leaves its set on 'close'). A
    // destroyed net.Socket reads `closed` at once, but emits 'close' only when its handle is closed
    // (lib/net.js, Socket.prototype._destroy): that event is what "really closed" means here.
    const pending = [...this.locals, ...this.remotes.keys()]
    const allClosed = Promise.all(pending.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve()))))
    this.releaseLocals()
    // The client destroys its sockets to the server; wait (bounded) until everything is really closed.
    this.client.close()
    for (const s of pending) s.destroy()
    await waitAtMost(allClosed, 2000)
    this.remotes.clear()
    this.locals.clear()
    this.events.removeAllListeners()
  }
}
