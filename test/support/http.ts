/** One HTTP request to a loopback server over a fresh connection, its whole answer read as text. */
import http from 'node:http'

export interface HttpReply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** `host` sets the Host header (default `127.0.0.1:PORT`); `headers` may override it too. */
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
