/** Loopback HTTP for tests: one request over a fresh connection, its whole answer read as text; a server listening. */
import http from 'node:http'
import type {AddressInfo} from 'node:net'

export interface HttpReply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * One HTTP request to a loopback server over a fresh connection. `host` sets the Host header (default
 * `127.0.0.1:PORT`); `headers` may override it too.
 */
export function loopbackRequest(
  port: number,
  path: string,
  o: {method?: string; host?: string; headers?: Record<string, string>; body?: string | Buffer} = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: o.method ?? 'GET',
        agent: false,
        headers: {host: o.host ?? `127.0.0.1:${port}`, ...o.headers},
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8')}),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

/**
 * Listen on 127.0.0.1 at a free port: the port, and a close that also ends the kept-alive connections (so a test's
 * cleanup never waits for a client's idle socket).
 */
export async function listenLoopback(server: http.Server): Promise<{port: number; close(): Promise<void>}> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
