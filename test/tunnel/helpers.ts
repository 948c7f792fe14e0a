import http from 'node:http'
import net from 'node:net'

export interface SeenRequest {
  method: string
  url: string
  body: string
  headers: http.IncomingHttpHeaders
}

export interface EchoServer {
  port: number
  seen: SeenRequest[]
  /** Local TCP connections accepted so far. */
  connections: number
  close(): Promise<void>
}

/**
 * A local HTTP server standing in for the relay: answers JSON {method, url, body} (status from
 * `?status=NNN`, delayed by `?delay=MS`), records every request.
 */
export async function startEchoServer(host = '127.0.0.1'): Promise<EchoServer> {
  const seen: SeenRequest[] = []
  let connections = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({method: req.method ?? '', url: req.url ?? '', body, headers: req.headers})
      const url = new URL(req.url ?? '/', 'http://x')
      const status = Number(url.searchParams.get('status') ?? 200)
      const delay = Number(url.searchParams.get('delay') ?? 0)
      const answer = () => {
        const text = JSON.stringify({method: req.method, url: req.url, body})
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-echo': 'yes',
          'content-length': Buffer.byteLength(text),
        })
        res.end(text)
      }
      if (delay > 0) setTimeout(answer, delay)
      else answer()
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    seen,
    get connections() {
      return connections
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A TCP server that accepts connections and never answers. */
export async function startSilentServer(): Promise<{port: number; close(): Promise<void>}> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((s) => {
    sockets.add(s)
    s.on('error', () => {})
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A control server answering every GET with the given status and body (a fake localtunnel server). */
export async function startFakeControl(
  status: number,
  body: string,
  contentType = 'application/json',
): Promise<{url: string; hits: number; close(): Promise<void>}> {
  let hits = 0
  const server = http.createServer((_req, res) => {
    hits++
    res.writeHead(status, {'content-type': contentType})
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get hits() {
      return hits
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Counts of the process's active handles by kind (sockets, servers, timers). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1
  return counts
}
