/**
 * The least a long-polling Bot API server can do, for bench/emulator-throughput.ts: getUpdates answers
 * the queued updates (after dropping those below its offset) or is held until one is injected, and
 * sendMessage answers a fixed message. No checks, no bounds, no state beyond the queue: not a server
 * to use, a measure of what the bench's own client and the loopback cost on this machine, so the
 * emulator's ratio to telegram-test-api can be read against the most any server could reach here.
 *
 * It speaks HTTP/1.1 keep-alive on a raw socket (a request is its head and a Content-Length body),
 * with one read and one write per request, as the emulator's fast front does.
 */
import net from 'node:net'

const HEAD_END = Buffer.from('\r\n\r\n')
const SENT = JSON.stringify({
  ok: true,
  result: {message_id: 1, date: 1700000000, chat: {id: 1, type: 'private'}, text: 're'},
})

export interface FloorServer {
  apiRoot: string
  token: string
  /** Queue a user's message in chat `chatId` (answers a held getUpdates at once). */
  inject(chatId: number, text: string): void
  stop(): Promise<void>
}

export async function startFloorServer(): Promise<FloorServer> {
  const token = '123456:FLOORFLOORFLOORFLOORFLOORFLOORFLOOR'
  const queue: Array<{update_id: number; message: object}> = []
  let nextId = 1
  let held: net.Socket | undefined
  const sockets = new Set<net.Socket>()

  const respond = (socket: net.Socket, body: string) =>
    socket.write(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
  const answerUpdates = (socket: net.Socket) => respond(socket, JSON.stringify({ok: true, result: queue}))

  const request = (socket: net.Socket, path: string, body: string) => {
    if (path.endsWith('/getUpdates')) {
      const offset = Number((JSON.parse(body || '{}') as {offset?: number}).offset ?? 0)
      while (queue.length > 0 && queue[0].update_id < offset) queue.shift()
      if (queue.length > 0) answerUpdates(socket)
      else held = socket
    } else respond(socket, SENT)
  }

  const server = net.createServer({noDelay: true}, (socket) => {
    sockets.add(socket)
    socket.on('close', () => {
      sockets.delete(socket)
      if (held === socket) held = undefined
    })
    socket.on('error', () => {})
    let pending: Buffer | undefined
    socket.on('data', (chunk: Buffer) => {
      pending = pending ? Buffer.concat([pending, chunk]) : chunk
      for (;;) {
        const buf: Buffer = pending
        const end = buf.indexOf(HEAD_END)
        if (end < 0) return
        const head = buf.toString('latin1', 0, end)
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buf.length < end + 4 + length) return
        const path = head.slice(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1))
        const body = buf.toString('utf8', end + 4, end + 4 + length)
        pending = buf.length > end + 4 + length ? buf.subarray(end + 4 + length) : undefined
        request(socket, path, body)
        if (!pending) return
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as net.AddressInfo
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    inject(chatId, text) {
      queue.push({
        update_id: nextId++,
        message: {
          message_id: nextId,
          date: 1700000000,
          chat: {id: chatId, type: 'private'},
          from: {id: chatId, is_bot: false, first_name: 'U'},
          text,
        },
      })
      const socket = held
      held = undefined
      if (socket) answerUpdates(socket)
    },
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
