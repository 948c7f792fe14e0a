/**
 * The relay's HTTP/1.1 server: it listens, accepts each connection (connection.ts reads, frames and answers its
 * requests) and keeps them bounded: one sweep checks every connection's deadlines, and connections without an
 * authenticated request (idle, sending a head, closing) are bounded by maxAnonymous: a new one closes the longest
 * idle first (kept alive between requests, or open and silent since it connected), then a closing one, then the
 * oldest unfinished head, so idle or slow connections cannot use up the process's file descriptors. One being
 * answered is never closed for room.
 */
import net from 'node:net'

import {listeningPort} from '../../lib/server-port.js'
import {Conn, type ConnDeadlines, type ConnHandler, type ConnHost} from './connection.js'
import {BodyBudget} from './intake.js'

export interface ServerOptions extends ConnDeadlines {
  host: string
  port: number
  maxBodyBytes: number
  maxBufferedBytes: number
  /** Connections without an authenticated request. */
  maxAnonymous: number
  /** How long a closed connection reads and drops what still comes. */
  lingerMs?: number
}

export class RelayServer implements ConnHost {
  readonly budget: BodyBudget
  readonly handler: ConnHandler
  closed = false
  /** Connections closed to make room for new ones (see maxAnonymous). */
  evicted = 0
  #options: ServerOptions
  #server: net.Server
  #conns = new Set<Conn>()
  #sweeper: NodeJS.Timeout | undefined
  #lingerMs: number

  constructor(o: ServerOptions, handler: ConnHandler) {
    this.#options = o
    this.handler = handler
    this.budget = new BodyBudget(o.maxBodyBytes, o.maxBufferedBytes)
    this.#lingerMs = o.lingerMs ?? 2000
    this.#server = net.createServer({noDelay: true}, (socket) => this.#accept(socket))
  }

  get connections(): number {
    return this.#conns.size
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(this.#options.port, this.#options.host, () => {
        this.#server.off('error', reject)
        resolve()
      })
    })
    this.#server.on('error', () => {}) // after listen: nothing the server reports may crash the process
    const every = Math.max(50, Math.min(1000, Math.floor(this.#options.headersTimeoutMs / 4)))
    this.#sweeper = setInterval(() => this.#sweep(), every).unref()
    return listeningPort(this.#server)
  }

  /** Stop accepting; idle connections close now, requests under way once answered, all within graceMs. */
  close(graceMs = 500): Promise<void> {
    this.closed = true
    clearInterval(this.#sweeper)
    return new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      for (const conn of [...this.#conns]) conn.shutdown()
      setTimeout(() => {
        for (const conn of [...this.#conns]) conn.destroy()
      }, graceMs).unref()
    })
  }

  forget(conn: Conn): void {
    this.#conns.delete(conn)
  }

  #accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy()
      return
    }
    if (this.#conns.size >= this.#options.maxAnonymous) this.#makeRoom()
    this.#conns.add(new Conn(this, socket, performance.now()))
  }

  /** At the bound: close the longest idle anonymous connection, else a closing one, else the oldest unfinished head. */
  #makeRoom(): void {
    let anonymous = 0
    let idle: Conn | undefined
    let closing: Conn | undefined
    let head: Conn | undefined
    for (const conn of this.#conns) {
      if (!conn.anonymous) continue
      anonymous++
      if (conn.idle) {
        if (!idle || conn.since < idle.since) idle = conn
      } else if (conn.closing) {
        if (!closing || conn.since < closing.since) closing = conn
      } else if (!head || conn.started < head.started) head = conn
    }
    if (anonymous < this.#options.maxAnonymous) return
    const victim = idle ?? closing ?? head
    if (!victim) return
    this.evicted++
    this.#conns.delete(victim)
    victim.destroy()
  }

  #sweep(): void {
    const now = performance.now()
    for (const conn of this.#conns) conn.sweep(now, this.#options, this.#lingerMs)
  }
}
