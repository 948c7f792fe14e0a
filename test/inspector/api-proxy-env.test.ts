/** The api proxy honours HTTP(S)_PROXY for a non-loopback api root, never for loopback, like the rest of the CLI. */
import http from 'node:http'
import net, {type AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {deadPort, postJson, recordingProxy, sink} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const saved = {...process.env}
afterEach(() => {
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
    if (saved[name] === undefined) delete process.env[name]
    else process.env[name] = saved[name]
  }
})

/** A forward proxy on loopback that tunnels every CONNECT to `targetPort` (whatever host was asked) and notes what was asked. */
async function tunnelProxy(targetPort: number) {
  const asked: string[] = []
  const sockets = new Set<net.Socket>()
  const server = http.createServer((_req, res) => {
    res.writeHead(405)
    res.end()
  })
  server.on('connect', (req, client: net.Socket, head: Buffer) => {
    asked.push(req.url ?? '')
    sockets.add(client)
    const upstream = net.connect(targetPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as AddressInfo).port,
    asked,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}

describe('api proxy behind HTTP(S)_PROXY', () => {
  it('sends a non-loopback api root through the proxy the environment names', async () => {
    const upstream = await sink()
    const forward = await tunnelProxy(upstream.port)
    try {
      process.env.HTTP_PROXY = `http://127.0.0.1:${forward.port}`
      delete process.env.http_proxy
      delete process.env.NO_PROXY
      delete process.env.no_proxy
      const rec = await recordingProxy('http://api.telegram.invalid:8081')
      const answer = await postJson(`${rec.proxy.url}/bot${TOKEN}/getMe`, {})
      expect(answer.json).toEqual({ok: true, result: true})
      expect(forward.asked).toEqual(['api.telegram.invalid:8081'])
      expect(upstream.requests[0].url).toBe(`/bot${TOKEN}/getMe`)
      expect(upstream.requests[0].headers.host).toBe('api.telegram.invalid:8081')
      await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    } finally {
      await forward.close()
    }
  })

  it('a proxy that refuses: 502 naming the proxy (host:port and variable), no token', async () => {
    const port = await deadPort()
    process.env.HTTP_PROXY = `http://user:pa55word@127.0.0.1:${port}`
    delete process.env.http_proxy
    const rec = await recordingProxy('http://api.telegram.invalid')
    const answer = await postJson(`${rec.proxy.url}/bot${TOKEN}/getMe`, {})
    expect(answer.status).toBe(502)
    expect(answer.json.description).toBe(
      `Bad Gateway: bot dev could not reach api.telegram.invalid: the proxy 127.0.0.1:${port} (HTTP_PROXY) refused the connection (nothing listens there)`,
    )
    expect(answer.text).not.toContain('pa55word')
    expect(answer.text).not.toContain(TOKEN.split(':')[1])
  })

  it('never proxies a loopback api root', async () => {
    const upstream = await sink()
    process.env.HTTP_PROXY = `http://127.0.0.1:${await deadPort()}`
    delete process.env.http_proxy
    const rec = await recordingProxy(upstream.url)
    const answer = await postJson(`${rec.proxy.url}/bot${TOKEN}/getMe`, {})
    expect(answer.json).toEqual({ok: true, result: true})
  })
})
