/**
 * One client connection of the relay's HTTP/1.1 server (server.ts), with no HTTP stack of Node's in between (one
 * `data` event and one write per request on the hot path): its framing, its bounds and its deadlines.
 *
 * - Heads are read within MAX_HEAD_BYTES (431 beyond) and parsed strictly (request-head.ts); a
 *   broken one gets 400 and the connection is closed. The handler routes a head before a byte of
 *   its body is read: a refusal is answered at once with `Connection: close`.
 * - Bodies: Content-Length or chunked, within a per-request cap (413) and a cap on the bytes all
 *   requests hold at once (503); `Expect: 100-continue` is answered once the head is accepted.
 * - Keep-alive and pipelining: one request at a time per connection, answered in order; bytes of
 *   the next request wait (reading pauses beyond MAX_PIPELINED), `Connection: close` and HTTP/1.0
 *   end the connection after the answer.
 * - Deadlines (checked by the server's one sweep, not a timer per request): the head within
 *   headersTimeoutMs of its first byte (of the connection, for the first request), the whole
 *   request within requestTimeoutMs (408 either way), an idle kept-alive connection within
 *   keepAliveMs. A request being answered has no deadline here (the relay holds it).
 * - A connection closed with an answer lingers (reads and drops what the client still sends, up to
 *   LINGER_BYTES or lingerMs) so the client reads the answer rather than a reset.
 */
import type net from 'node:net'

import {ChunkedDecoder, headEnd, MAX_HEAD_BYTES, reasonOf} from './http1.js'
import type {BodyBudget} from './intake.js'
import {parseRequestHead, type RequestHead} from './request-head.js'

export interface ConnHandler {
  /** A head arrived: answer it (respond/refuse) and return false, or return true to read its body. */
  route(conn: Conn, head: RequestHead): boolean
  /** The body arrived whole; answer once with `conn.respond`. */
  request(conn: Conn, head: RequestHead, body: Buffer): void
  /** The body was refused while it arrived (413 too large, 503 too many bytes held); answered already. */
  refused(conn: Conn, head: RequestHead, status: 413 | 503): void
}

/** The deadlines a connection keeps (ServerOptions'). */
export interface ConnDeadlines {
  headersTimeoutMs: number
  /** The whole request (head and body) within this time. */
  requestTimeoutMs: number
  /** An idle kept-alive connection is closed after this time. */
  keepAliveMs: number
}

/** What a connection needs of its server: the handler, the bytes all requests may hold, and to be forgotten. */
export interface ConnHost {
  readonly handler: ConnHandler
  readonly budget: BodyBudget
  /** The server stopped accepting: a connection closes after its answer. */
  readonly closed: boolean
  forget(conn: Conn): void
}

/** Bytes of following requests read ahead while one is answered (pipelining), before reading pauses. */
const MAX_PIPELINED = 64 * 1024
/** Bytes read and dropped from a connection being closed before it is cut. */
const LINGER_BYTES = 1024 * 1024
const EMPTY = Buffer.alloc(0)

/** A connection's state. */
const State = {
  /** Waiting for, or reading, a head. */
  Head: 0,
  /** Kept alive between requests. */
  Idle: 1,
  /** Reading an accepted request's body. */
  Body: 2,
  /** The request is being answered (forwarded, held). */
  Busy: 3,
  /** Answered and ending: what comes is dropped. */
  Closing: 4,
} as const
type State = (typeof State)[keyof typeof State]

export const REFUSAL_TEXT: Record<number, string> = {
  400: 'Bad Request\n',
  408: 'Request Timeout\n',
  413: 'Payload Too Large\n',
  417: 'Expectation Failed\n',
  431: 'Request Header Fields Too Large\n',
  501: 'Not Implemented\n',
  503: 'Busy: too many bytes in flight, retry later\n',
  505: 'HTTP Version Not Supported\n',
}

/**
 * One client connection. For the request being answered it is also the relay's Link (deliver.ts):
 * `gone` once the client closed before its answer; `hold.cancel` is called then when watched.
 */
export class Conn {
  gone = false
  watching = false
  hold: {cancel?: () => void} = {}
  readonly socket: net.Socket
  /** Bytes of this request's body held in the budget. */
  reserved = 0
  #server: ConnHost
  #state: State = State.Head
  /** When the current state's deadline started (ms, performance.now()). */
  since: number
  /** When the current request started (its first byte). */
  #started: number
  #pending: Buffer | null = null
  #head: RequestHead | null = null
  #chunks: Buffer[] | null = null
  #size = 0
  #need = 0
  #decoder: ChunkedDecoder | null = null
  /** Something was written for the current request (a 100 Continue): no 408 then. */
  #wrote = false
  #closeAfter = false
  #paused = false
  #dropped = 0
  #resuming = false
  /** Bytes of the current request arrived. */
  #heard = false
  /** While `route` runs: what was read of the connection from this request's head on (for detach). */
  #routing: Buffer | null = null

  constructor(server: ConnHost, socket: net.Socket, now: number) {
    this.#server = server
    this.socket = socket
    this.since = now
    this.#started = now
    socket.on('data', (chunk: Buffer) => this.#onData(chunk))
    socket.on('error', () => {}) // a reset: 'close' follows
    socket.on('close', () => this.#onClose())
  }

  /** No request under way: idle between requests, or closing. */
  get anonymous(): boolean {
    return this.#state !== State.Body && this.#state !== State.Busy
  }

  /** Nothing of a request under way: kept alive between requests, or open and silent so far. */
  get idle(): boolean {
    return this.#state === State.Idle || (this.#state === State.Head && !this.#heard)
  }

  get closing(): boolean {
    return this.#state === State.Closing
  }

  /** When the current request began (ms, performance.now()). */
  get started(): number {
    return this.#started
  }

  watch(): void {
    if (this.watching) return
    this.watching = true
    if (this.socket.destroyed) this.gone = true
  }

  /**
   * Answer the current request: status, extra header lines (each ending in CRLF), a latin1 body.
   * The connection stays open for the next request unless the client or `close` says otherwise.
   */
  respond(status: number, headers: string, body: string, close = false): void {
    const server = this.#server
    server.budget.give(this.reserved)
    this.reserved = 0
    this.#chunks = null
    this.#decoder = null
    this.hold.cancel = undefined
    this.watching = false
    // Gone, or answered already (a bug answered 500 and is closing): nothing more is written.
    if (this.socket.destroyed || this.#state === State.Closing) return
    const ending = close || this.#closeAfter || this.#head?.close === true || server.closed
    const noBody = status === 204 || status === 304
    const length = body.length
    // HEAD: the head a GET would get, without its body.
    if (noBody || this.#head?.method === 'HEAD') body = ''
    this.socket.write(
      `HTTP/1.1 ${status} ${reasonOf(status)}\r\n${noBody ? '' : `content-length: ${length}\r\n`}${headers}${
        ending ? 'connection: close\r\n' : this.#head?.http10 ? 'connection: keep-alive\r\n' : ''
      }\r\n${body}`,
      'latin1',
    )
    this.#head = null
    if (ending) return this.#end()
    this.#state = State.Idle
    this.since = performance.now()
    if (this.#paused) {
      this.#paused = false
      this.socket.resume()
    }
    // Bytes of a pipelined request came meanwhile: read them on the next turn (never recursively).
    if (this.#pending && !this.#resuming) {
      this.#resuming = true
      setImmediate(() => {
        this.#resuming = false
        if (this.#state !== State.Idle || !this.#pending) return
        const pending = this.#pending
        this.#pending = null
        this.#begin(performance.now())
        this.#heard = true
        this.#guarded(pending)
      })
    }
  }

  /** Answer with a refusal (`Connection: close`) and close; nothing more of the request is read. */
  refuse(status: number, headers = '', body = REFUSAL_TEXT[status] ?? '\n'): void {
    this.respond(status, `content-type: text/plain\r\n${headers}`, body, true)
  }

  /**
   * While `route` runs: hand the connection over whole (the relay's `/app/`, app.ts). Returns the socket, paused and
   * no longer read, answered or bounded here, and what was read of it from this request's head on; `route` then
   * returns false.
   */
  detach(): {socket: net.Socket; bytes: Buffer} {
    const bytes = this.#routing ?? EMPTY
    this.#routing = null
    this.#head = null
    this.#pending = null
    // Nothing more is written or read here (respond is a no-op when closing).
    this.#state = State.Closing
    this.#server.forget(this)
    const socket = this.socket
    socket.pause()
    socket.removeAllListeners('data')
    socket.removeAllListeners('close')
    socket.removeAllListeners('error')
    return {socket, bytes}
  }

  /** Cut the connection now, without an answer. */
  destroy(): void {
    this.socket.destroy()
  }

  /** The deadline passed? Then act on it. */
  sweep(now: number, o: ConnDeadlines, lingerMs: number): void {
    switch (this.#state) {
      case State.Head:
        if (now - this.since > o.headersTimeoutMs || now - this.#started > o.requestTimeoutMs) this.#timedOut()
        break
      case State.Body:
        if (now - this.#started > o.requestTimeoutMs) this.#timedOut()
        break
      case State.Idle:
        if (now - this.since > o.keepAliveMs) this.destroy()
        break
      case State.Closing:
        if (now - this.since > lingerMs) this.destroy()
        break
    }
  }

  /** The server closes: idle connections go now, a request under way is answered first. */
  shutdown(): void {
    if (this.#state === State.Body || this.#state === State.Busy) this.#closeAfter = true
    else this.destroy()
  }

  #timedOut(): void {
    if (this.#wrote) this.destroy()
    else this.refuse(408)
  }

  #begin(now: number): void {
    this.#state = State.Head
    this.since = now
    this.#started = now
    this.#wrote = false
    this.#heard = false
    this.gone = false
  }

  #end(): void {
    this.#state = State.Closing
    this.since = performance.now()
    this.#pending = null
    this.socket.end()
    if (this.#paused) {
      this.#paused = false
      this.socket.resume()
    }
  }

  #onClose(): void {
    const state = this.#state
    this.#server.forget(this)
    if (state === State.Busy) {
      // The relay still answers it (and gives its budget back then); the client is gone.
      this.gone = true
      if (this.watching) this.hold.cancel?.()
      return
    }
    this.#server.budget.give(this.reserved)
    this.reserved = 0
    this.#chunks = null
  }

  #onData(chunk: Buffer): void {
    switch (this.#state) {
      case State.Closing:
        this.#dropped += chunk.length
        if (this.#dropped > LINGER_BYTES) this.destroy()
        return
      case State.Busy:
        this.#pending = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk
        if (this.#pending.length > MAX_PIPELINED && !this.#paused) {
          this.#paused = true
          this.socket.pause()
        }
        return
      case State.Idle:
        this.#begin(performance.now())
        break
    }
    this.#heard = true
    let buf = chunk
    if (this.#pending) {
      buf = Buffer.concat([this.#pending, chunk])
      this.#pending = null
    }
    this.#guarded(buf)
  }

  #guarded(buf: Buffer): void {
    try {
      this.#parse(buf)
    } catch {
      // A bug here must not take the relay down: this connection ends (its budget given back), the others go on.
      if (this.#state === State.Closing) this.destroy()
      else this.refuse(500, '', 'bot dev: relay error\n')
    }
  }

  #parse(buf: Buffer): void {
    let pos = 0
    while (pos < buf.length) {
      if (this.#state === State.Head) {
        // Empty lines before a request line are allowed (RFC 9112 §2.2).
        while (pos < buf.length && (buf[pos] === 13 || buf[pos] === 10)) pos++
        if (pos === buf.length) return
        const end = headEnd(buf, pos)
        if (end < 0 || end - pos > MAX_HEAD_BYTES) {
          if (buf.length - pos > MAX_HEAD_BYTES) return this.refuse(431)
          this.#pending = buf.subarray(pos)
          return
        }
        const head = parseRequestHead(buf.toString('latin1', pos, end))
        const headStart = pos
        pos = end
        if ('error' in head) return this.refuse(head.error)
        this.#head = head
        this.#routing = buf.subarray(headStart)
        const read = this.#server.handler.route(this, head)
        this.#routing = null
        if (!read) return
        if (!this.#accept(head)) return
        if ((this.#state as State) === State.Busy) {
          if (pos < buf.length) this.#pending = buf.subarray(pos)
          return this.#server.handler.request(this, head, EMPTY)
        }
        if (head.contentLength >= 0 && buf.length - pos >= head.contentLength) {
          // The whole body is here (the usual case): no copy.
          const body = buf.subarray(pos, pos + head.contentLength)
          pos += head.contentLength
          return this.#dispatch(body, buf, pos)
        }
        if (head.expectContinue) {
          this.#wrote = true
          this.socket.write('HTTP/1.1 100 Continue\r\n\r\n')
        }
      } else if (this.#state === State.Body) {
        const head = this.#head!
        if (this.#decoder) {
          const at = this.#decoder.feed(buf, pos, buf.length)
          if (at < 0) {
            if (this.#state === State.Body) this.refuse(400)
            return
          }
          pos = at
          if (!this.#decoder.done) return
          const chunks = this.#chunks!
          return this.#dispatch(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.#size), buf, pos)
        }
        const take = Math.min(this.#need, buf.length - pos)
        this.#chunks!.push(buf.subarray(pos, pos + take))
        this.#size += take
        this.#need -= take
        pos += take
        if (this.#need > 0) return
        const chunks = this.#chunks!
        return this.#dispatch(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.#size), buf, pos)
      } else return
    }
  }

  /** The head was routed to be read: check its body against the caps and get ready for it. */
  #accept(head: RequestHead): boolean {
    const budget = this.#server.budget
    if (head.chunked) {
      this.#state = State.Body
      this.#chunks = []
      this.#size = 0
      this.#decoder = new ChunkedDecoder((buf, start, end) => this.#chunk(buf, start, end))
      return true
    }
    const length = head.contentLength
    if (length <= 0) {
      this.#state = State.Busy
      return true
    }
    if (length > budget.perRequest) return this.#refused(head, 413)
    if (!budget.take(length)) return this.#refused(head, 503)
    this.reserved = length
    this.#state = State.Body
    this.#chunks = []
    this.#size = 0
    this.#need = length
    return true
  }

  /** A piece of a chunked body, counted as it arrives. */
  #chunk(buf: Buffer, start: number, end: number): boolean {
    const n = end - start
    if (n === 0) return true
    const budget = this.#server.budget
    if (this.#size + n > budget.perRequest) return this.#refused(this.#head!, 413)
    if (!budget.take(n)) return this.#refused(this.#head!, 503)
    this.reserved += n
    this.#size += n
    this.#chunks!.push(buf.subarray(start, end))
    return true
  }

  #refused(head: RequestHead, status: 413 | 503): false {
    this.refuse(status, status === 503 ? 'retry-after: 1\r\n' : '')
    this.#server.handler.refused(this, head, status)
    return false
  }

  #dispatch(body: Buffer, buf: Buffer, pos: number): void {
    this.#state = State.Busy
    this.#chunks = null
    this.#decoder = null
    if (pos < buf.length) this.#pending = buf.subarray(pos)
    this.#server.handler.request(this, this.#head!, body)
  }
}
