/**
 * The emulator's listening socket: a front that reads the requests bots make most, and hands every other connection to
 * Node's HTTP server (server.ts) as it was.
 *
 * A profile of the polling bench showed Node's HTTP server costing more per small call than the emulator's own work:
 * an IncomingMessage and a ServerResponse with their streams, events and timers for 30 bytes of JSON. So the calls
 * bots make most (`GET` or `POST /bot<token>/<method>` over HTTP/1.1 with a JSON or form body of at most 1 MiB, or
 * none) are read here, answered in the same turn of the event loop when the method does not wait, and written with
 * exactly the bytes Node's server writes (status line, headers in the same order, Date). Anything else goes to Node's
 * server with the bytes read so far, and that connection stays there to its end: a body that is chunked, encoded or
 * multipart, `Expect`, `Connection: close`, HTTP/1.0, another method, the control API, /file, a request the guard
 * refuses (guard.ts), a head with anything unusual in it (Node's parser then answers what it answers).
 *
 * Pipelined requests are read ahead and answered in order (at most MAX_AHEAD waiting, and none while the socket's
 * write buffer is full); a connection closed before its answer aborts the call (a long poll ends), as with Node's
 * server; an idle connection is closed after the server's keep-alive timeout (plus Node's one second).
 */
import http from 'node:http'
import type net from 'node:net'
import {MAX_PARAMETERS} from './body.js'
import {type Scope, refusal} from './guard.js'
import {paramsOf} from './params.js'
import {type Reply, type Router, errorReply, isPromise, serveBotCall} from './server.js'

const HEAD_END = Buffer.from('\r\n\r\n')
/** A longer head goes to Node's server (which answers 431 past its own 16 KiB). */
const MAX_HEAD = 8192
/** Requests of one connection read ahead while an earlier one waits for its answer (pipelining). */
const MAX_AHEAD = 16
/** Added to the keep-alive timeout before an idle connection is closed (Node's HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER). */
const KEEP_ALIVE_BUFFER_MS = 1000

/**
 * The heads this front reads: `GET` or `POST`, an origin-form target of plain URL characters, HTTP/1.1, then header
 * lines of a token, a colon and printable ASCII (no obs-fold, no bare CR or LF, no control characters); as a pattern
 *
 *   ^(?:GET|POST) /[A-Za-z0-9-._~:/?[\]@!$&'()*+,;=%]* HTTP/1\.1(?:\r\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e]*)*$
 *
 * It is read byte by byte (readHeadBytes) on the bytes as they came: it runs twice per round trip of a polling bot,
 * and that pattern over a latin1 copy of the head, then its lines split and lower-cased, cost more than the rest of
 * this front's reading.
 */
const URL_CHAR = 1
const TOKEN_CHAR = 2
const VALUE_CHAR = 4
const CHARS = (() => {
  const table = new Uint8Array(256)
  const mark = (chars: string, flag: number): void => {
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] |= flag
  }
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  mark(`${alnum}-._~:/?[]@!$&'()*+,;=%`, URL_CHAR)
  mark(`${alnum}!#$%&'*+.^_\`|~-`, TOKEN_CHAR)
  table[9] |= VALUE_CHAR
  for (let c = 0x20; c <= 0x7e; c++) table[c] |= VALUE_CHAR
  return table
})()

const GET = [71, 69, 84, 32, 47] // 'GET /'
const POST = [80, 79, 83, 84, 32, 47] // 'POST /'
const HTTP11 = [32, 72, 84, 84, 80, 47, 49, 46, 49] // ' HTTP/1.1'

/** Whether the bytes so far can begin a head read here (`GET /` or `POST /`, or a part of either). */
function plainStart(data: Uint8Array): boolean {
  return agree(data, 0, data.length, GET) || agree(data, 0, data.length, POST)
}

/** Whether data[from, end) and `word` agree on their common length. */
function agree(data: Uint8Array, from: number, end: number, word: readonly number[]): boolean {
  const n = Math.min(end - from, word.length)
  for (let i = 0; i < n; i++) if (data[from + i] !== word[i]) return false
  return true
}

/** Whether data[from, end) begins with all of `word`. */
const begins = (data: Uint8Array, from: number, end: number, word: readonly number[]): boolean =>
  end - from >= word.length && agree(data, from, end, word)

/** What a head read here says (header values as sent). */
interface Head {
  target: string
  host: string
  origin?: string
  site?: string
  /** Content-Type, lower-cased ('' when absent). */
  type: string
  length: number
}

/**
 * The head of a request this front serves, or undefined (→ Node's server): a plain head (above) for `/bot…`, with a
 * Host, no header read here given twice, a Content-Length of at most MAX_PARAMETERS, no transfer or content coding, no
 * Expect or Upgrade, Connection absent or keep-alive, not multipart. `text` is the head without its blank line.
 */
export function readHead(text: string): Head | undefined {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return undefined // not a head's bytes
  return readHeadBytes(Buffer.from(text, 'latin1'), text.length)
}

/** readHead over the head's bytes data[0, end). */
function readHeadBytes(data: Buffer, end: number): Head | undefined {
  // the request line: GET or POST, a space, the target, " HTTP/1.1", then the end or a header line
  let i = begins(data, 0, end, GET) ? 4 : begins(data, 0, end, POST) ? 5 : -1
  if (i < 0) return undefined
  const targetStart = i
  while (i < end && CHARS[data[i]] & URL_CHAR) i++
  const targetEnd = i
  if (!begins(data, i, end, HTTP11)) return undefined
  i += HTTP11.length
  // the target begins with /bot
  if (targetEnd - targetStart < 4 || data[targetStart + 1] !== 98 || data[targetStart + 2] !== 111) return undefined
  if (data[targetStart + 3] !== 116) return undefined
  let host: string | undefined
  let origin: string | undefined
  let site: string | undefined
  let type: string | undefined
  let length: number | undefined
  let connection = false
  while (i < end) {
    // CR LF, a token, a colon, value characters to the next CR LF or the end
    if (i + 1 >= end || data[i] !== 13 || data[i + 1] !== 10) return undefined
    const nameStart = i + 2
    i = nameStart
    while (i < end && CHARS[data[i]] & TOKEN_CHAR) i++
    if (i === nameStart || i >= end || data[i] !== 58) return undefined
    const header = headerOf(data, nameStart, i)
    i++
    let v = i
    while (i < end && CHARS[data[i]] & VALUE_CHAR) i++
    if (header === OTHER) continue
    if (header === REFUSED) return undefined
    // the value without the spaces before it; one that ends in whitespace goes to Node (its reading may differ)
    const lineEnd = i
    while (v < lineEnd && (data[v] === 32 || data[v] === 9)) v++
    if (v < lineEnd && (data[lineEnd - 1] === 32 || data[lineEnd - 1] === 9)) return undefined
    switch (header) {
      case HOST:
        if (host !== undefined) return undefined
        host = data.toString('latin1', v, lineEnd)
        break
      case ORIGIN:
        if (origin !== undefined) return undefined
        origin = data.toString('latin1', v, lineEnd)
        break
      case SITE:
        if (site !== undefined) return undefined
        site = data.toString('latin1', v, lineEnd)
        break
      case TYPE:
        if (type !== undefined) return undefined
        type = data.toString('latin1', v, lineEnd).toLowerCase()
        if (type.includes('multipart/form-data')) return undefined
        break
      case LENGTH: {
        if (length !== undefined || lineEnd - v < 1 || lineEnd - v > 8) return undefined
        let n = 0
        for (let d = v; d < lineEnd; d++) {
          const digit = data[d] - 48
          if (digit < 0 || digit > 9) return undefined
          n = n * 10 + digit
        }
        if (n > MAX_PARAMETERS) return undefined
        length = n
        break
      }
      case CONNECTION:
        if (connection || lineEnd - v !== 10 || !sameLower(data, v, 'keep-alive')) return undefined
        connection = true
        break
    }
  }
  if (host === undefined) return undefined
  return {
    target: data.toString('latin1', targetStart, targetEnd),
    host,
    origin,
    site,
    type: type ?? '',
    length: length ?? 0,
  }
}

/** The headers readHead looks at, by what it does with them. */
const OTHER = 0
const HOST = 1
const ORIGIN = 2
const SITE = 3
const TYPE = 4
const LENGTH = 5
const CONNECTION = 6
/** transfer-encoding, content-encoding, expect, upgrade, proxy-connection: the request is Node's. */
const REFUSED = 7

const HEADERS: ReadonlyArray<readonly [string, number]> = [
  ['host', HOST],
  ['origin', ORIGIN],
  ['sec-fetch-site', SITE],
  ['content-type', TYPE],
  ['content-length', LENGTH],
  ['connection', CONNECTION],
  ['transfer-encoding', REFUSED],
  ['content-encoding', REFUSED],
  ['expect', REFUSED],
  ['upgrade', REFUSED],
  ['proxy-connection', REFUSED],
]

/** Which of HEADERS a name is (its bytes data[start, end), any case), else OTHER. */
function headerOf(data: Buffer, start: number, end: number): number {
  const n = end - start
  for (const [name, header] of HEADERS) if (name.length === n && sameLower(data, start, name)) return header
  return OTHER
}

/** Whether the bytes from `start` are `lower` (lower-case ASCII) in any case. */
function sameLower(data: Buffer, start: number, lower: string): boolean {
  for (let k = 0; k < lower.length; k++) {
    const c = data[start + k]
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(k)) return false
  }
  return true
}

/** The start of a response as Node's server writes it for these headers (writeHead in server.ts), by status. */
const starts = new Map<number, string>()
function startOf(status: number): string {
  let start = starts.get(status)
  if (start === undefined) {
    start = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'unknown'}\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: `
    starts.set(status, start)
  }
  return start
}

/** The Date header's value, made once a second (as Node's server does). */
let dateText = ''
let dateSecond = -1
function httpDate(): string {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(now).toUTCString()
  }
  return dateText
}

/** A reply as the bytes of a response (the same as send() in server.ts makes Node's server write). */
function responseText(reply: Reply): string {
  const retry = reply.retryAfter && reply.retryAfter > 0 ? `Retry-After: ${reply.retryAfter}\r\n` : ''
  return `${startOf(reply.status)}${Buffer.byteLength(reply.body)}\r\n${retry}Date: ${httpDate()}\r\n\r\n${reply.body}`
}

/** What Node's server writes when the client ends the connection in the middle of a request. */
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'

/** The listening socket's connection handler: `fallback` serves what this front does not read. */
export function createFront(
  router: Router,
  scope: Scope,
  fallback: http.Server,
): {onConnection(socket: net.Socket): void; closeAll(): void} {
  const sockets = new Set<net.Socket>()
  const keepAliveMs = fallback.keepAliveTimeout > 0 ? fallback.keepAliveTimeout + KEEP_ALIVE_BUFFER_MS : 0
  return {
    onConnection(socket) {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      new Connection(socket, router, scope, fallback, keepAliveMs)
    },
    closeAll() {
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    },
  }
}

/** One request's answer, in the connection's order. */
class Pending {
  /** The response's bytes once known. */
  text: string | undefined = undefined
  private aborts: Array<() => void> | undefined
  /** The caller is gone before the answer was written: run these (server.ts's onAbort, same contract). */
  readonly onAbort = (fn: () => void): (() => void) => {
    this.aborts ??= []
    this.aborts.push(fn)
    return () => {
      const i = this.aborts?.indexOf(fn) ?? -1
      if (i >= 0) this.aborts!.splice(i, 1)
    }
  }

  abort(): void {
    const aborts = this.aborts
    this.aborts = undefined
    if (aborts) for (const fn of aborts) fn()
  }
}

class Connection {
  /** Bytes read and not yet served. */
  private chunks: Buffer[] = []
  private size = 0
  /** How many bytes the request being read needs in all (its head was read), else 0. */
  private need = 0
  private readonly pending: Pending[] = []
  /** A request needs Node's server: the connection goes there once the answers before it are written. */
  private handingOver = false
  /** Handed over or closed: nothing more to do here. */
  private done = false
  private parsing = false
  private paused = false
  private timeoutArmed = false

  constructor(
    private readonly socket: net.Socket,
    private readonly router: Router,
    private readonly scope: Scope,
    private readonly fallback: http.Server,
    private readonly keepAliveMs: number,
  ) {
    socket.on('data', this.onData)
    socket.on('end', this.onEnd)
    socket.on('error', this.onError)
    socket.on('close', this.onClose)
    socket.on('timeout', this.onTimeout)
  }

  private readonly onData = (chunk: Buffer): void => {
    this.chunks.push(chunk)
    this.size += chunk.length
    if (this.size >= this.need) this.guarded(this.parse)
  }

  /**
   * Run a step of the connection (called from socket events and promise callbacks): whatever it throws ends this
   * connection, never the process (an exception in a 'data' handler, a rejection nobody handles).
   */
  private guarded(step: () => void): void {
    try {
      step.call(this)
    } catch {
      this.socket.destroy()
    }
  }

  /** Serve the complete requests read, in order, until one needs Node's server or more bytes. */
  private parse(): void {
    if (this.parsing) return
    this.parsing = true
    try {
      while (!this.done && !this.handingOver && this.size > 0) {
        if (this.pending.length >= MAX_AHEAD || this.socket.writableNeedDrain) {
          this.pause()
          return
        }
        const data = this.joined()
        const end = data.indexOf(HEAD_END)
        if (end < 0) {
          // a head still coming: wait for it, unless its start already says it goes to Node's server (whose parser
          // may answer before the head is complete)
          if (data.length > MAX_HEAD || !plainStart(data)) this.handOver()
          return
        }
        const head = end <= MAX_HEAD ? readHeadBytes(data, end) : undefined
        if (!head || refusal({host: head.host, origin: head.origin, 'sec-fetch-site': head.site}, this.scope)) {
          this.handOver()
          return
        }
        const total = end + 4 + head.length
        if (data.length < total) {
          this.need = total
          return
        }
        this.need = 0
        const body = data.subarray(end + 4, total)
        if (total < data.length) this.chunks = [data.subarray(total)]
        else this.chunks = []
        this.size -= total
        this.serve(head, body)
      }
    } finally {
      this.parsing = false
    }
  }

  /** The bytes read as one buffer. */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)]
    return this.chunks[0]
  }

  private serve(head: Head, body: Buffer): void {
    const pending = new Pending()
    this.pending.push(pending)
    const q = head.target.indexOf('?')
    const path = q < 0 ? head.target : head.target.slice(0, q)
    const search = q < 0 ? '' : head.target.slice(q + 1)
    let reply: Reply | Promise<Reply>
    try {
      reply = serveBotCall(this.router, path.slice(4), () => paramsOf(search, head.type, body), pending.onAbort)
    } catch (err) {
      reply = errorReply(err) // serveBotCall does not throw; nothing a request does may take the process down
    }
    if (isPromise(reply)) {
      reply.then(
        (r) => this.answer(pending, r),
        (err: unknown) => this.answer(pending, errorReply(err)),
      )
    } else this.answer(pending, reply)
  }

  private answer(pending: Pending, reply: Reply): void {
    try {
      pending.text = responseText(reply)
    } catch (err) {
      pending.text = responseText(errorReply(err))
    }
    this.guarded(this.flush)
  }

  /** Write the answers that are due, in order; then read on, or hand over. */
  private flush(): void {
    const {socket} = this
    while (this.pending.length > 0 && this.pending[0].text !== undefined) {
      const text = this.pending.shift()!.text!
      if (!socket.destroyed && !socket.writableEnded) socket.write(text)
    }
    if (this.pending.length > 0 || this.done) return
    if (!this.timeoutArmed && this.keepAliveMs > 0) {
      this.timeoutArmed = true
      socket.setTimeout(this.keepAliveMs)
    }
    if (this.handingOver) this.handOver()
    else if (this.paused) this.resume()
  }

  private pause(): void {
    if (this.paused) return
    this.paused = true
    this.socket.pause()
    if (this.socket.writableNeedDrain) this.socket.once('drain', () => this.guarded(this.resume))
  }

  private resume(): void {
    if (!this.paused || this.done) return
    if (this.pending.length >= MAX_AHEAD || this.socket.writableNeedDrain) return
    this.paused = false
    this.socket.resume()
    this.parse()
  }

  /** Give the connection to Node's server with the bytes not served yet, once every answer before is written. */
  private handOver(): void {
    const {socket} = this
    if (this.pending.length > 0) {
      this.handingOver = true
      socket.pause()
      return
    }
    this.done = true
    socket.off('data', this.onData)
    socket.off('end', this.onEnd)
    socket.off('error', this.onError)
    socket.off('close', this.onClose)
    socket.off('timeout', this.onTimeout)
    if (this.timeoutArmed) socket.setTimeout(0)
    const rest = this.size > 0 ? this.joined() : undefined
    this.chunks = []
    this.size = 0
    if (rest) socket.unshift(rest)
    this.fallback.emit('connection', socket)
    socket.resume()
  }

  /** The client ended its side: as Node's server, end ours (a request cut off is answered 400 first). */
  private readonly onEnd = (): void => {
    if (this.done) return
    if (this.size > 0 && !this.handingOver && !this.paused) {
      if (this.socket.writable) this.socket.write(BAD_REQUEST)
      this.socket.destroy()
      return
    }
    this.socket.end()
  }

  private readonly onError = (): void => {
    // 'close' follows; an answer not written yet is aborted there
  }

  private readonly onClose = (): void => {
    this.done = true
    this.chunks = []
    const pending = this.pending.splice(0)
    for (const p of pending) p.abort()
  }

  private readonly onTimeout = (): void => {
    if (this.pending.length === 0) this.socket.destroy()
  }
}
