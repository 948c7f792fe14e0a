/**
 * Helpers of the hostile tests (test/inspector/hostile*.test.ts): a raw TCP client that says
 * exactly the bytes it is given (HTTP clients are too polite to send a broken request), a raw TCP
 * "upstream" that answers whatever a test wants, and polling with a generous deadline.
 */
import net, {type AddressInfo, type Socket} from 'node:net'
import {afterEach} from 'vitest'
import {waitFor} from '../support/wait.js'

/** Real tokens are `<bot id>:<35 characters>`; this one is only for the tests. */
export const TOKEN = '7123456789:AAF-hostile_Token_0123456789abcdefghij'
export const SECRET = TOKEN.slice(TOKEN.indexOf(':') + 1)

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => {})
})

/** Runs `fn` after the current test (in reverse order of registration). */
export function later(fn: () => unknown): void {
  cleanups.push(fn)
}

export interface RawConnection {
  socket: Socket
  /** Everything received so far. */
  received(): Buffer
  text(): string
  closed: boolean
  /** Resolves once the peer closed (or reset) the connection; rejects after `timeoutMs`. */
  whenClosed(timeoutMs?: number): Promise<void>
  /** Resolves once `test` accepts what was received so far. */
  whenReceived(test: (text: string) => boolean, timeoutMs?: number): Promise<string>
  write(data: string | Buffer): Promise<void>
}

/** A raw TCP connection to 127.0.0.1:port (closed after the test). */
export async function connectRaw(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  socket.on('error', () => {})
  const chunks: Buffer[] = []
  let closed = false
  const closeWaiters: Array<() => void> = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.on('close', () => {
    closed = true
    for (const w of closeWaiters.splice(0)) w()
  })
  later(() => socket.destroy())
  const conn: RawConnection = {
    socket,
    received: () => Buffer.concat(chunks),
    text: () => Buffer.concat(chunks).toString('latin1'),
    get closed() {
      return closed
    },
    whenClosed: (timeoutMs = 30_000) =>
      closed
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(
              () =>
                reject(
                  new Error(`the connection was not closed within ${timeoutMs} ms; got: ${conn.text().slice(0, 300)}`),
                ),
              timeoutMs,
            )
            closeWaiters.push(() => {
              clearTimeout(timer)
              resolve()
            })
          }),
    whenReceived: async (test, timeoutMs = 30_000) => {
      await waitFor(() => test(conn.text()), {what: 'the expected bytes', timeout: timeoutMs})
      return conn.text()
    },
    write: (data) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve()
        socket.write(data, () => resolve())
      }),
  }
  return conn
}

/** Sends `request` on a fresh connection and returns what came back once the peer closed it. */
export async function rawExchange(port: number, request: string | Buffer, timeoutMs = 30_000): Promise<string> {
  const conn = await connectRaw(port)
  await conn.write(request)
  await conn.whenClosed(timeoutMs)
  return conn.text()
}

/** The status code of the first HTTP answer in `text` (0 when there is none). */
export function statusOf(text: string): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)
}

/** A raw TCP server standing in for the api root: `onConnection` does what it likes with each socket. */
export async function rawUpstream(onConnection: (socket: Socket, request: () => string) => void) {
  const sockets = new Set<Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let text = ''
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1')
    })
    onConnection(socket, () => text)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const handle = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sockets,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
  later(handle.close)
  return handle
}

/** Once the request head (and `bodyBytes` of body) arrived on a raw upstream socket. */
export function afterHead(socket: Socket, then: () => void, bodyBytes = 0): void {
  let text = ''
  let done = false
  socket.on('data', (c: Buffer) => {
    if (done) return
    text += c.toString('latin1')
    const end = text.indexOf('\r\n\r\n')
    if (end >= 0 && text.length - end - 4 >= bodyBytes) {
      done = true
      then()
    }
  })
}

/** No ESC, C1, other C0 (but tab and newline), DEL or bidi control anywhere in `text`. */
export const TERMINAL_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/
