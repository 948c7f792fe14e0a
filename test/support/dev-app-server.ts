/**
 * A small web app dev server for tests of `bot dev --web-app`: node:http on 127.0.0.1, with a WebSocket echo as a
 * dev server's hot-reload socket (RFC 6455: the handshake, then each text frame from the client sent back).
 *
 * - GET <base> (and any path): an HTML page naming the path and Host it was asked with;
 * - GET <base>headers: the request's path and headers as JSON;
 * - GET <base>go: 302 to <origin><base>landed (a dev server redirecting to itself);
 * - POST <base>echo: the body back;
 * - an upgrade at any path: a WebSocket echo (the path and Host of each upgrade are kept in `upgrades`).
 */
import {createHash} from 'node:crypto'
import http from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

export interface DevAppServer {
  readonly url: string
  readonly port: number
  /** Every request: method, path, Host. */
  readonly requests: Array<{method: string; path: string; host: string; headers: http.IncomingHttpHeaders}>
  readonly upgrades: Array<{path: string; host: string; origin?: string}>
  close(): Promise<void>
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** Text frames from a client (masked), each sent back unmasked; a close frame closes. */
function echoFrames(socket: Socket): void {
  let buf = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk])
    for (;;) {
      if (buf.length < 2) return
      const opcode = buf[0] & 0x0f
      let length = buf[1] & 0x7f
      let at = 2
      if (length === 126) {
        if (buf.length < 4) return
        length = buf.readUInt16BE(2)
        at = 4
      } else if (length === 127) return void socket.destroy()
      const masked = (buf[1] & 0x80) !== 0
      const need = at + (masked ? 4 : 0) + length
      if (buf.length < need) return
      const mask = masked ? buf.subarray(at, at + 4) : undefined
      const payload = Buffer.from(buf.subarray(need - length, need))
      if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4]
      buf = buf.subarray(need)
      if (opcode === 8) return void socket.end(Buffer.from([0x88, 0]))
      if (opcode !== 1) continue
      const head =
        payload.length < 126
          ? Buffer.from([0x81, payload.length])
          : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff])
      socket.write(Buffer.concat([head, payload]))
    }
  })
}

export async function startDevAppServer(base = '/'): Promise<DevAppServer> {
  const requests: DevAppServer['requests'] = []
  const upgrades: DevAppServer['upgrades'] = []
  let origin = ''
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/'
    requests.push({method: req.method ?? '', path, host: req.headers.host ?? '', headers: req.headers})
    const pathname = path.split('?')[0]
    if (pathname === `${base}headers`) {
      res.writeHead(200, {'content-type': 'application/json'})
      return void res.end(JSON.stringify({path, headers: req.headers}))
    }
    if (pathname === `${base}go`) {
      res.writeHead(302, {location: `${origin}${base}landed`, 'content-length': 0})
      return void res.end()
    }
    if (pathname === `${base}echo` && req.method === 'POST') {
      res.writeHead(200, {'content-type': 'application/octet-stream'})
      return void req.pipe(res)
    }
    res.writeHead(200, {'content-type': 'text/html; charset=utf-8'})
    res.end(`<!doctype html><title>dev app</title><p id="app">dev app at ${path} for Host ${req.headers.host}</p>`)
  })
  server.on('upgrade', (req, socket: Socket) => {
    socket.on('error', () => {})
    upgrades.push({path: req.url ?? '', host: req.headers.host ?? '', origin: req.headers.origin})
    const key = req.headers['sec-websocket-key']
    if (typeof key !== 'string') return void socket.destroy()
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64')
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    )
    echoFrames(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const {port} = server.address() as AddressInfo
  origin = `http://127.0.0.1:${port}`
  return {
    url: origin + base,
    port,
    requests,
    upgrades,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Open a WebSocket (undici's client), send `text`, resolve with the echo; rejects on error or after `timeoutMs`.
 * `ca`: the certificate (PEM) a wss:// server is trusted by.
 */
export async function wsEcho(url: string, text: string, o: {timeoutMs?: number; ca?: string} = {}): Promise<string> {
  const {WebSocket, Agent} = await import('undici')
  const timeoutMs = o.timeoutMs ?? 15_000
  const dispatcher = o.ca ? new Agent({connect: {ca: o.ca}}) : undefined
  return new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(url, dispatcher ? {dispatcher} : {})
    const timer = setTimeout(() => {
      ws.close()
      reject(new Error(`no echo from ${url} within ${timeoutMs} ms`))
    }, timeoutMs)
    ws.addEventListener('open', () => ws.send(text))
    ws.addEventListener('message', (event) => {
      clearTimeout(timer)
      resolve(String(event.data))
      ws.close()
    })
    ws.addEventListener('error', () => {
      clearTimeout(timer)
      reject(new Error(`WebSocket to ${url} failed`))
    })
  })
}
