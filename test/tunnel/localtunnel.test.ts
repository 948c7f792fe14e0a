/**
 * The real @n8n/localtunnel client (through localtunnelProvider) against the loopback localtunnel
 * server in test/support, forwarding to a real local HTTP server. Everything on 127.0.0.1.
 */
import http from 'node:http'
import net from 'node:net'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {localtunnelProvider, TunnelError, type LocaltunnelTunnel} from '../../src/tunnel/index.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'
import {
  activeResources,
  closedPort,
  startEchoServer,
  startFakeControl,
  startSilentServer,
  type EchoServer,
} from './helpers.js'
import {waitFor} from '../support/wait.js'

let lt: LocaltunnelServer
let echo: EchoServer
const tunnels: LocaltunnelTunnel[] = []

beforeEach(async () => {
  lt = await startLocaltunnelServer()
  echo = await startEchoServer()
})

afterEach(async () => {
  await Promise.all(tunnels.splice(0).map((t) => t.close()))
  await lt.close()
  await echo.close()
})

async function open(options: {subdomain?: string; downAfterMs?: number} = {}): Promise<LocaltunnelTunnel> {
  const tunnel = await localtunnelProvider({host: lt.url, ...options}).open({port: echo.port, timeoutMs: 20_000})
  tunnels.push(tunnel)
  return tunnel
}

async function getJson(
  url: string,
  init?: RequestInit,
): Promise<{status: number; body: {method: string; url: string; body: string}; headers: Headers}> {
  const res = await fetch(url, init)
  return {
    status: res.status,
    body: (await res.json()) as {method: string; url: string; body: string},
    headers: res.headers,
  }
}

describe('localtunnel provider against the loopback localtunnel server', () => {
  it('opens a tunnel whose public URL reaches the local server (GET and POST with a body)', async () => {
    const tunnel = await open()
    expect(tunnel.provider).toBe('localtunnel')
    expect(tunnel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(lt.tunnels.map((t) => t.url)).toEqual([tunnel.url])
    expect(tunnel.sockets).toBeGreaterThan(0)

    const get = await getJson(`${tunnel.url}/hello?x=1`)
    expect(get.status).toBe(200)
    expect(get.headers.get('x-echo')).toBe('yes')
    expect(get.body).toEqual({method: 'GET', url: '/hello?x=1', body: ''})

    const update = JSON.stringify({update_id: 7, message: {text: 'привет 👋', chat: {id: 1}}})
    const post = await getJson(`${tunnel.url}/webhook/abc`, {
      method: 'POST',
      headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 's3cret'},
      body: update,
    })
    expect(post.body).toEqual({method: 'POST', url: '/webhook/abc', body: update})
    const seen = echo.seen.find((r) => r.method === 'POST')
    expect(seen?.headers['x-telegram-bot-api-secret-token']).toBe('s3cret')

    const notFound = await getJson(`${tunnel.url}/missing?status=404`)
    expect(notFound.status).toBe(404)
  })

  it('carries a 1 MB body of multi-byte text intact both ways', async () => {
    const tunnel = await open()
    const big = 'ж€😀a'.repeat(100_000)
    const post = await getJson(`${tunnel.url}/big`, {method: 'POST', body: big})
    expect(post.body.body.length).toBe(big.length)
    expect(post.body.body === big).toBe(true)
  })

  it('with localHost: forwards there, byte for byte, and leaves the Host header alone', async () => {
    // 127.0.0.2 is loopback too, but not what "localhost" resolves to: only an honoured localHost reaches it.
    const other = await startEchoServer('127.0.0.2')
    try {
      const tunnel = await localtunnelProvider({host: lt.url}).open({
        port: other.port,
        localHost: '127.0.0.2',
        timeoutMs: 20_000,
      })
      tunnels.push(tunnel)
      await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
      // The first request on each of the 10 sockets is where the client's Host rewriter would decode text.
      const bodies = Array.from({length: 20}, (_, i) => 'ж€😀a'.repeat(20_000 + i * 7))
      const answers = await Promise.all(bodies.map((b) => getJson(`${tunnel.url}/big`, {method: 'POST', body: b})))
      answers.forEach((a, i) => expect(a.body.body === bodies[i]).toBe(true))
      expect(new Set(other.seen.map((r) => r.headers.host))).toEqual(new Set([new URL(tunnel.url).host]))
      // Sockets the client opens again after a drop keep both properties.
      lt.dropAll()
      await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
      const again = await Promise.all(
        bodies.slice(0, 10).map((b) => getJson(`${tunnel.url}/again`, {method: 'POST', body: b})),
      )
      again.forEach((a, i) => expect(a.body.body === bodies[i]).toBe(true))
      expect(other.seen.at(-1)?.headers.host).toBe(new URL(tunnel.url).host)
    } finally {
      await other.close()
    }
  })

  it('serves 50 concurrent requests, more than the 10 client sockets, each getting its own answer', async () => {
    const tunnel = await open()
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    const results = await Promise.all(
      Array.from({length: 50}, (_, i) =>
        getJson(`${tunnel.url}/n/${i}?delay=${(i % 5) * 10}`, {method: 'POST', body: `body-${i}`}),
      ),
    )
    results.forEach((r, i) => {
      expect(r.status).toBe(200)
      expect(r.body).toEqual({method: 'POST', url: `/n/${i}?delay=${(i % 5) * 10}`, body: `body-${i}`})
    })
    expect(echo.seen.length).toBe(50)
    expect(lt.tunnels[0].requests).toBe(50)
  })

  it('keeps a public keep-alive connection open across requests', async () => {
    const tunnel = await open()
    const agent = new http.Agent({keepAlive: true, maxSockets: 1})
    const reused: boolean[] = []
    try {
      for (let i = 0; i < 20; i++) {
        const body = await new Promise<string>((resolve, reject) => {
          const req = http.request(`${tunnel.url}/ka/${i}`, {agent, method: i % 2 ? 'POST' : 'GET'}, (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (c: string) => (text += c))
            res.on('end', () => resolve(text))
          })
          req.on('error', reject)
          reused.push(req.reusedSocket)
          req.end(i % 2 ? `k${i}` : undefined)
        })
        expect(JSON.parse(body)).toMatchObject({url: `/ka/${i}`, body: i % 2 ? `k${i}` : ''})
      }
    } finally {
      agent.destroy()
    }
    // Only the first request opened a connection; the other 19 went over it.
    expect(reused[0]).toBe(false)
    expect(reused.slice(1).every(Boolean)).toBe(true)
    // And the local side was not reconnected per request either: at most one local connection per client socket.
    expect(echo.connections).toBeLessThanOrEqual(10)
  })

  it('honours a requested subdomain', async () => {
    const tunnel = await open({subdomain: 'mybot-dev'})
    expect(tunnel.id).toBe('mybot-dev')
    expect(lt.tunnels[0].id).toBe('mybot-dev')
    expect((await getJson(`${tunnel.url}/sub`)).body.url).toBe('/sub')
  })

  it('reconnects after the server drops every socket, and requests work again', async () => {
    const tunnel = await open({downAfterMs: 3000})
    let down = 0
    tunnel.on('down', () => down++)
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    const before = echo.connections

    lt.dropAll()
    // Requests sent right away wait in the server's queue until a socket is back.
    const during = await getJson(`${tunnel.url}/during-drop`, {signal: AbortSignal.timeout(5000)})
    expect(during.body.url).toBe('/during-drop')
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    expect(echo.connections).toBeGreaterThan(before)
    const after = await waitFor(
      async () => {
        const r = await getJson(`${tunnel.url}/after-drop`)
        return r.status === 200 ? r : undefined
      },
      {what: 'a request through the tunnel after the drop'},
    )
    expect(after.body.url).toBe('/after-drop')

    // Twice more, for good measure.
    for (let i = 0; i < 2; i++) {
      lt.dropAll()
      await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
      expect((await getJson(`${tunnel.url}/again-${i}`)).body.url).toBe(`/again-${i}`)
    }
    expect(down).toBe(0)
  })

  it("emits 'down' within the window when the server dies (kill)", async () => {
    const tunnel = await open({downAfterMs: 1500})
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    const down = new Promise<{err?: Error}>((resolve) => {
      tunnel.on('down', (err) => resolve({err}))
    })
    await lt.kill()
    // Ended by the refused reconnections or by its 1.5 s window, as the error says (a dead server never answers again:
    // nothing else could end the wait).
    const result = await down
    expect(result.err?.message).toMatch(
      /the localtunnel server stopped accepting the tunnel's connections|no lasting connection to the localtunnel server for 1\.5 s/,
    )
    expect(tunnel.sockets).toBe(0)
    // A listener added afterwards still hears about it.
    const late = await new Promise<Error | undefined>((resolve) => tunnel.on('down', resolve))
    expect(late).toBe(result.err)
    // close() after 'down' is fine, and idempotent.
    await tunnel.close()
    await tunnel.close()

    // The server comes back: a new tunnel opens on the same control URL.
    await lt.revive()
    const again = await open()
    expect((await getJson(`${again.url}/revived`)).body.url).toBe('/revived')
  })

  it("emits 'down' when the server goes away entirely", async () => {
    const tunnel = await open({downAfterMs: 5000})
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    const down = new Promise<Error | undefined>((resolve) => tunnel.on('down', resolve))
    await lt.close()
    const err = await down
    expect(err?.message).toMatch(/stopped accepting/)
  })

  it("emits 'down' after the window when the server accepts the tunnel's sockets but drops each at once", async () => {
    // A tunnel port that accepts and immediately closes: the client reconnects in a loop, nothing lasts.
    let accepted = 0
    const dropper = net.createServer((s) => {
      accepted++
      s.destroy()
    })
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve))
    const port = (dropper.address() as net.AddressInfo).port
    const fake = await startFakeControl(
      200,
      JSON.stringify({id: 'thrash', port, max_conn_count: 2, url: 'http://127.0.0.1:9'}),
    )
    try {
      const tunnel = await localtunnelProvider({host: fake.url, downAfterMs: 800}).open({
        port: echo.port,
        timeoutMs: 20_000,
      })
      tunnels.push(tunnel)
      const err = await new Promise<Error | undefined>((resolve) => tunnel.on('down', resolve))
      expect(err?.message).toMatch(/no lasting connection to the localtunnel server for 0\.8 s/)
      expect(accepted).toBeGreaterThan(2)
    } finally {
      await fake.close()
      dropper.close()
    }
  })

  it('close() releases every socket and timer, is idempotent, and emits no down', async () => {
    await lt.close()
    await echo.close()
    const baseline = activeResources()
    lt = await startLocaltunnelServer()
    echo = await startEchoServer()
    const tunnel = await localtunnelProvider({host: lt.url, downAfterMs: 200}).open({
      port: echo.port,
      timeoutMs: 20_000,
    })
    let down = 0
    tunnel.on('down', () => down++)
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    expect((await getJson(`${tunnel.url}/x`)).status).toBe(200)

    await Promise.all([tunnel.close(), tunnel.close()])
    expect(tunnel.sockets).toBe(0)
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 0)
    await lt.close()
    await echo.close()
    // Every TCP handle and timer the tunnel made is gone (the client's 1 s local retry is the longest).
    const leftover = await waitFor(
      () => {
        const now = activeResources()
        const extra = Object.entries(now).filter(([kind, n]) => /TCP|Timeout/.test(kind) && n > (baseline[kind] ?? 0))
        return extra.length === 0 ? 'clean' : undefined
      },
      {what: 'the tunnel to release its handles', timeout: 2500},
    )
    expect(leftover).toBe('clean')
    expect(down).toBe(0)
  })
})

describe('localtunnel start-up deadline', () => {
  const FIX = /--tunnel-host.*--public-url.*--mode polling/

  it('fails at once with the fix when nothing listens on the server port (waiting would not change it)', async () => {
    const port = await closedPort()
    // A 10-minute deadline: only the refusal can end the start-up within the test, and the message says it did.
    const err = await localtunnelProvider({host: `http://127.0.0.1:${port}`, retryDelayMs: 200})
      .open({port: echo.port, timeoutMs: 600_000})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TunnelError)
    const te = err as TunnelError
    expect(te.reason).toBe('tunnel_unreachable')
    expect(te.message).toBe(`the localtunnel server http://127.0.0.1:${port} cannot be reached (connection refused)`)
    expect(te.fix).toMatch(FIX)
    expect(te.exitCode).toBe(1)
  })

  it('fails within the deadline when the server accepts but never answers', async () => {
    const silent = await startSilentServer()
    try {
      const err = await localtunnelProvider({host: `http://127.0.0.1:${silent.port}`})
        .open({port: echo.port, timeoutMs: 800})
        .catch((e: unknown) => e)
      // Ended by the 0.8 s deadline, as the message says (the server never answers: nothing else could end it).
      expect((err as TunnelError).message).toMatch(/did not answer within 0\.8 s/)
      expect((err as TunnelError).reason).toBe('tunnel_unreachable')
      expect((err as TunnelError).fix).toMatch(FIX)
    } finally {
      await silent.close()
    }
  })

  it('stops at once when the caller aborts', async () => {
    // (A server that never answers: a refused connection would fail by itself.)
    const silent = await startSilentServer()
    try {
      const controller = new AbortController()
      // A 10-minute deadline: only the abort can end it within the test, and the reason says it did.
      const pending = localtunnelProvider({host: `http://127.0.0.1:${silent.port}`}).open({
        port: echo.port,
        timeoutMs: 600_000,
        signal: controller.signal,
      })
      setImmediate(() => controller.abort())
      const err = await pending.catch((e: unknown) => e)
      expect((err as TunnelError).reason).toBe('tunnel_aborted')
    } finally {
      await silent.close()
    }
  })

  it('keeps retrying while the server answers 5xx, and succeeds when it recovers within the deadline', async () => {
    let hits = 0
    const flaky = http.createServer((_req, res) => {
      hits++
      if (hits <= 2) {
        res.writeHead(503, {'content-type': 'application/json'})
        res.end(JSON.stringify({message: 'busy'}))
        return
      }
      // Third time: answer what the real (loopback) server answers.
      fetch(`${lt.url}/?new`).then(
        async (r) => {
          res.writeHead(r.status, {'content-type': 'application/json'})
          res.end(await r.text())
        },
        () => res.destroy(),
      )
    })
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve))
    try {
      const host = `http://127.0.0.1:${(flaky.address() as {port: number}).port}`
      const tunnel = await localtunnelProvider({host, retryDelayMs: 100}).open({port: echo.port, timeoutMs: 20_000})
      tunnels.push(tunnel)
      expect(hits).toBe(3)
      expect((await getJson(`${tunnel.url}/late`)).body.url).toBe('/late')
    } finally {
      flaky.closeAllConnections()
      await new Promise<void>((resolve) => flaky.close(() => resolve()))
    }
  })

  it('reports the last 5xx when the server never recovers', async () => {
    const fake = await startFakeControl(502, JSON.stringify({message: 'bad gateway'}))
    try {
      const err = await localtunnelProvider({host: fake.url, retryDelayMs: 100})
        .open({port: echo.port, timeoutMs: 2000})
        .catch((e: unknown) => e)
      expect((err as TunnelError).reason).toBe('tunnel_unreachable')
      expect((err as TunnelError).message).toContain('last: HTTP 502 (bad gateway)')
      expect(fake.hits).toBeGreaterThan(1)
    } finally {
      await fake.close()
    }
  })

  it('reports a refusal from the server (4xx) at once, with its message', async () => {
    const fake = await startFakeControl(403, JSON.stringify({message: 'Subdomain reserved.'}))
    try {
      const err = await localtunnelProvider({host: fake.url, subdomain: 'taken-name'})
        .open({port: echo.port, timeoutMs: 20_000})
        .catch((e: unknown) => e)
      expect((err as TunnelError).reason).toBe('tunnel_refused')
      expect((err as TunnelError).message).toContain('HTTP 403: Subdomain reserved.')
      expect((err as TunnelError).fix).toMatch(/--subdomain/)
      expect(fake.hits).toBe(1)
    } finally {
      await fake.close()
    }
  })

  it('says so when the host is not a localtunnel server', async () => {
    const fake = await startFakeControl(200, '<html>hello</html>', 'text/html')
    try {
      const err = await localtunnelProvider({host: fake.url})
        .open({port: echo.port, timeoutMs: 20_000})
        .catch((e: unknown) => e)
      expect((err as TunnelError).reason).toBe('tunnel_protocol')
      expect((err as TunnelError).message).toMatch(/not like a localtunnel server/)
    } finally {
      await fake.close()
    }
  })

  it("fails fast when the server's tunnel port refuses connections", async () => {
    const port = await closedPort()
    const fake = await startFakeControl(
      200,
      JSON.stringify({id: 'abcd', port, max_conn_count: 3, url: 'http://127.0.0.1:1'}),
    )
    try {
      // A 10-minute deadline: only the refusal can end it within the test, and the message says it did.
      const err = await localtunnelProvider({host: fake.url})
        .open({port: echo.port, timeoutMs: 600_000})
        .catch((e: unknown) => e)
      expect((err as TunnelError).reason).toBe('tunnel_connect')
      expect((err as TunnelError).message).toContain(`127.0.0.1:${port} refused`)
    } finally {
      await fake.close()
    }
  })
})
