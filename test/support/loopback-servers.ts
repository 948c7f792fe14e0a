/**
 * Odd servers on loopback for the bad-input tests: one that records every request and answers
 * with a handler (default 200 `{"ok":true,"result":true}`), and one that accepts connections and
 * never answers. Both listen on 127.0.0.1, port 0.
 */
import {once} from 'node:events'
import {createServer as createHttpServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {createServer as createTcpServer, type AddressInfo, type Socket} from 'node:net'

export interface RecordedRequest {
  method: string
  url: string
}

export interface RecordingServer {
  url: string
  port: number
  requests: RecordedRequest[]
  close(): Promise<void>
}

export async function recordingServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"ok":true,"result":true}')
  },
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = []
  const server = createHttpServer((req, res) => {
    requests.push({method: req.method ?? '', url: req.url ?? ''})
    req.resume()
    req.on('end', () => handler(req, res))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

export interface SilentServer {
  url: string
  port: number
  /** Connections accepted so far. */
  connections(): number
  close(): Promise<void>
}

/** Accepts every connection and never answers (a stuck proxy, a half-dead server). */
export async function silentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createTcpServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => accepted,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((r) => server.close(r))
    },
  }
}
