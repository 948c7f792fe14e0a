/**
 * A bound on the connections a loopback server holds for clients that have not proved anything
 * yet. Opening a TCP connection costs an attacker nothing (no key, no request), and each one costs
 * the session a file descriptor: ~21,000 idle connections left `bot dev` without descriptors for
 * its own requests (EMFILE), and 64 made the control port refuse `bot trigger`.
 *
 * A connection is *idle* while no request on it has passed the server's checks (a connection that
 * sent nothing, a slow request head, a keep-alive connection between requests), and *busy* while a
 * request that passed them is being answered (`busy(req, res)`, until the answer closes).
 * - Past `maxIdle` idle connections, the one idle the longest is closed (oldest first), so a
 *   flood of idle connections costs its sender its oldest ones, never the newest (a real client
 *   sends its request right after connecting).
 * - Past `maxTotal` connections with none idle left to close, a new connection is let in but each
 *   request on it is answered by the server as busy (`over(req)`: 503), then closed.
 * `closeIdle()` closes every idle connection at once (a session's teardown, before its own
 * requests need descriptors).
 */
import type {Server} from 'node:http'
import type {Socket} from 'node:net'

export interface ConnectionGuardOptions {
  /** Most idle connections kept (the oldest idle one is closed beyond). */
  maxIdle: number
  /** Most connections in all; beyond, with none idle to close, requests are answered as busy. */
  maxTotal: number
}

interface Tracked {
  /** Requests on it that passed the checks and are still being answered. */
  busy: number
  /** Let in past maxTotal: every request on it gets the busy answer. */
  over: boolean
}

export class ConnectionGuard {
  readonly #o: ConnectionGuardOptions
  /** Every open connection, the one idle the longest first (a connection that turns idle moves to the end). */
  readonly #sockets = new Map<Socket, Tracked>()
  #idle = 0
  /** Connections closed because too many were idle, since the start. */
  evicted = 0

  constructor(server: Server, o: ConnectionGuardOptions) {
    this.#o = o
    server.on('connection', (socket: Socket) => this.#add(socket))
  }

  /** Open connections now, and how many of them are idle. */
  get counts(): {open: number; idle: number} {
    return {open: this.#sockets.size, idle: this.#idle}
  }

  /** Whether this request came on a connection let in past maxTotal (answer it as busy and close). */
  over(req: {socket: Socket}): boolean {
    return this.#sockets.get(req.socket)?.over === true
  }

  /** A request passed the checks: its connection is busy until the answer closes. */
  busy(req: {socket: Socket}, res: {once(event: 'close', listener: () => void): unknown}): void {
    const socket = req.socket
    const tracked = this.#sockets.get(socket)
    if (!tracked) return
    if (tracked.busy++ === 0) this.#idle--
    res.once('close', () => {
      if (this.#sockets.get(socket) !== tracked || --tracked.busy > 0) return
      // Idle again, and now the most recently active: it goes to the end of the line.
      this.#sockets.delete(socket)
      this.#sockets.set(socket, tracked)
      this.#idle++
      this.#trim(socket)
    })
  }

  /** Close every idle connection now. */
  closeIdle(): void {
    for (const [socket, tracked] of this.#sockets) if (tracked.busy === 0) socket.destroy()
  }

  #add(socket: Socket): void {
    const tracked: Tracked = {busy: 0, over: false}
    this.#sockets.set(socket, tracked)
    this.#idle++
    socket.once('close', () => {
      if (this.#sockets.get(socket) !== tracked) return
      this.#sockets.delete(socket)
      if (tracked.busy === 0) this.#idle--
    })
    this.#trim(socket)
    if (this.#sockets.size > this.#o.maxTotal) tracked.over = true
  }

  /** Past maxIdle (or maxTotal), close the connections idle the longest, never `keep`. */
  #trim(keep: Socket): void {
    if (this.#idle <= this.#o.maxIdle && this.#sockets.size <= this.#o.maxTotal) return
    for (const [socket, tracked] of this.#sockets) {
      if (this.#idle <= this.#o.maxIdle && this.#sockets.size <= this.#o.maxTotal) return
      if (tracked.busy > 0 || socket === keep) continue
      // Counted out now: 'close' comes later, and the next connection must see the room.
      this.#sockets.delete(socket)
      this.#idle--
      this.evicted++
      socket.destroy()
    }
  }
}
