/**
 * proveReachable: the public URL must bring back the relay's own health answer (a real Relay from
 * src/dev/relay/relay.ts) before anything is registered with Telegram. Through every provider, on loopback.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {Relay} from '../../src/dev/relay/relay.js'
import {
  cloudflaredProvider,
  localtunnelProvider,
  loopbackProvider,
  proveReachable,
  publicUrlProvider,
  TunnelError,
  type Tunnel,
} from '../../src/tunnel/index.js'
import {needsNoDns} from '../../src/tunnel/public-dns.js'
import {startLocaltunnelServer} from '../support/lt-server.js'
import {fakeCloudflaredBin, type FakeBin} from './fake-cloudflared.js'
import {closedPort, startEchoServer} from './helpers.js'

let relay: Relay
let bin: FakeBin
const tunnels: Tunnel[] = []
const noDns = () => {
  throw new Error('a loopback URL must not be looked up in public DNS')
}

beforeAll(async () => {
  relay = new Relay({secret: 'sEcReT-123', path: '/webhook/abcdef', holdTimeoutMs: 1000})
  await relay.listen()
  bin = fakeCloudflaredBin()
})
afterAll(async () => {
  await relay.close()
  bin.remove()
})
afterEach(async () => {
  await Promise.all(tunnels.splice(0).map((t) => t.close()))
})

async function failure(promise: Promise<unknown>): Promise<TunnelError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(TunnelError)
    return err as TunnelError
  }
  throw new Error('expected proveReachable to fail')
}

describe('proveReachable', () => {
  it('through a fresh quick tunnel: succeeds only once the stand-in forwards (530 before)', async () => {
    // Unreachable for its first three requests (this fetch and the proof's first two attempts), then it forwards:
    // counted, where a 1.5 s delay was a race a loaded machine lost (the first fetch came after it).
    const tunnel = await cloudflaredProvider({
      env: bin.env({FAKE_CLOUDFLARED_UNREACHABLE_REQUESTS: '3', FAKE_CLOUDFLARED_REGISTER_MS: '50'}),
    }).open({port: relay.port})
    tunnels.push(tunnel)
    // Registered, but not reachable yet: this is what setWebhook must not see.
    const early = await fetch(tunnel.url + relay.healthPath)
    expect(early.status).toBe(530)
    expect(await early.text()).toBe('error code: 1033')
    const proof = await proveReachable(tunnel.url, relay.healthPath, {
      expect: relay.nonce,
      intervalMs: 100,
      timeoutMs: 20_000,
      lookup: noDns,
    })
    expect(proof.attempts).toBeGreaterThan(1)
    expect(proof.ms).toBeGreaterThan(0)
    const now = await fetch(tunnel.url + relay.healthPath)
    expect(await now.text()).toBe(`bot-dev ${relay.nonce}\n`)
  })

  it('through a quick tunnel that resets connections at first', async () => {
    const tunnel = await cloudflaredProvider({
      // Its first two connections are reset (counted, not a 1 s delay the first attempt could come after).
      env: bin.env({FAKE_CLOUDFLARED_UNREACHABLE_REQUESTS: '2', FAKE_CLOUDFLARED_UNREACHABLE: 'reset'}),
    }).open({port: relay.port})
    tunnels.push(tunnel)
    const proof = await proveReachable(tunnel.url, relay.healthPath, {
      expect: `bot-dev ${relay.nonce}`,
      intervalMs: 100,
      lookup: noDns,
    })
    expect(proof.attempts).toBeGreaterThan(1)
  })

  it('a quick tunnel that never reaches the relay: a TunnelError at the deadline naming the 530, with a fix', async () => {
    const tunnel = await cloudflaredProvider({env: bin.env({FAKE_CLOUDFLARED_NEVER_REACHABLE: '1'})}).open({
      port: relay.port,
    })
    tunnels.push(tunnel)
    const started = Date.now()
    const err = await failure(
      proveReachable(tunnel.url, relay.healthPath, {
        expect: relay.nonce,
        timeoutMs: 3000,
        intervalMs: 100,
        lookup: noDns,
      }),
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900)
    expect(err.reason).toBe('tunnel_unreachable')
    expect(err.message).toMatch(
      new RegExp(
        `^${tunnel.url} did not reach the relay within 3 s \\(\\d+ attempts; last: HTTP 530 \\("error code: 1033"\\)\\)$`,
      ),
    )
    expect(err.fix).toMatch(/--tunnel none/)
  })

  it('a URL that answers 200 but is not this relay fails, saying so', async () => {
    const echo = await startEchoServer()
    try {
      const err = await failure(
        proveReachable(`http://127.0.0.1:${echo.port}`, relay.healthPath, {
          expect: relay.nonce,
          timeoutMs: 2500,
          intervalMs: 100,
          lookup: noDns,
        }),
      )
      expect(err.message).toMatch(/last: HTTP 200 from something that is not this relay/)
      expect(err.fix).toMatch(/forward to the relay's port/)
      // Another relay (another nonce) is not this one either.
      const other = new Relay({secret: 'x', path: '/w', holdTimeoutMs: 100})
      await other.listen()
      try {
        await failure(
          proveReachable(`http://127.0.0.1:${other.port}`, other.healthPath, {
            expect: relay.nonce,
            timeoutMs: 2500,
            intervalMs: 100,
            lookup: noDns,
          }),
        )
      } finally {
        await other.close()
      }
    } finally {
      await echo.close()
    }
  })

  it('an attempt cut off by the end of the wait does not hide the last answer (a 404, then silence)', async () => {
    // The first request gets a 404; every later one is held unanswered until the wait is over, so the last attempt
    // ends with the whole deadline. On a loaded machine the attempt's own timer (set to what was left) could fire
    // before the whole wait's, and its "no answer within 5 s" replaced the 404 (a CI run at load 10).
    let requests = 0
    const held: http.ServerResponse[] = []
    const server = http.createServer((_req, res) => {
      requests++
      if (requests === 1) res.writeHead(404).end('not found')
      else held.push(res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as AddressInfo
      const err = await failure(
        proveReachable(`http://127.0.0.1:${port}`, '/h', {timeoutMs: 3000, intervalMs: 50, lookup: noDns}),
      )
      expect(requests).toBeGreaterThanOrEqual(2)
      expect(err.message).toMatch(/; last: HTTP 404/)
      expect(err.fix).toMatch(/config\.yml with ingress rules/)
    } finally {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('a 404 (the tunnel leads elsewhere): the fix names the cloudflared config.yml trap', async () => {
    const echo = await startEchoServer()
    try {
      const err = await failure(
        proveReachable(`http://127.0.0.1:${echo.port}`, '/h?status=404', {
          timeoutMs: 2500,
          intervalMs: 100,
          lookup: noDns,
        }),
      )
      expect(err.message).toMatch(/last: HTTP 404/)
      expect(err.fix).toMatch(/config\.yml with ingress rules/)
    } finally {
      await echo.close()
    }
  })

  it('nothing listening: names the connection error', async () => {
    const err = await failure(
      proveReachable(`http://127.0.0.1:${await closedPort()}`, '/h', {timeoutMs: 2500, intervalMs: 100, lookup: noDns}),
    )
    expect(err.message).toMatch(/last: ECONNREFUSED\)$/)
  })

  it('aborted: tunnel_aborted, at once', async () => {
    const controller = new AbortController()
    // A 10-minute wait: only the abort can end it within the test, and the reason says it did.
    const pending = proveReachable(`http://127.0.0.1:${await closedPort()}`, '/h', {
      timeoutMs: 600_000,
      intervalMs: 100,
      signal: controller.signal,
      lookup: noDns,
    })
    setImmediate(() => controller.abort())
    const err = await failure(pending)
    expect(err.reason).toBe('tunnel_aborted')
  })

  it('works for localtunnel, a public URL and loopback too', async () => {
    const lt = await startLocaltunnelServer()
    try {
      const viaLt = await localtunnelProvider({host: lt.url}).open({port: relay.port, timeoutMs: 5000})
      tunnels.push(viaLt)
      await proveReachable(viaLt.url, relay.healthPath, {expect: relay.nonce, lookup: noDns})
    } finally {
      await Promise.all(tunnels.splice(0).map((t) => t.close()))
      await lt.close()
    }
    const loop = await loopbackProvider().open({port: relay.port})
    expect((await proveReachable(loop.url, relay.healthPath, {expect: relay.nonce, lookup: noDns})).attempts).toBe(1)
    const pub = await publicUrlProvider(`http://localhost:${relay.port}`).open({port: relay.port})
    expect((await proveReachable(pub.url, relay.healthPath, {expect: relay.nonce, lookup: noDns})).attempts).toBe(1)
  })

  it('a host name is first looked up in public DNS; no HTTP request while it does not exist there', async () => {
    const asked: string[] = []
    const err = await failure(
      proveReachable('https://fresh-fox-words.trycloudflare.com', relay.healthPath, {
        expect: relay.nonce,
        timeoutMs: 700,
        intervalMs: 100,
        lookup: async (host) => {
          asked.push(host)
          return 'no'
        },
      }),
    )
    expect(asked.length).toBeGreaterThan(1)
    expect(new Set(asked)).toEqual(new Set(['fresh-fox-words.trycloudflare.com']))
    expect(err.message).toMatch(/\(0 attempts; last: fresh-fox-words\.trycloudflare\.com is not in public DNS yet\)$/)
  })

  it('ends at its deadline even when its timer is late (a busy thread): no spinning without yielding', async () => {
    let calls = 0
    const started = Date.now()
    const err = await failure(
      proveReachable('https://busy-fox.trycloudflare.com', '/h', {
        timeoutMs: 200,
        intervalMs: 50,
        lookup: async () => {
          calls++
          if (calls === 1) while (Date.now() - started < 400); // blocks past the deadline before its timer can fire
          if (calls > 1000) await new Promise((r) => setTimeout(r, 10)) // (lets a spinning loop end, so the test fails instead of hanging)
          return 'no'
        },
      }),
    )
    expect(err.reason).toBe('tunnel_unreachable')
    expect(calls).toBeLessThan(5)
  })

  it('waits for public DNS for quick-tunnel hosts only', () => {
    expect(needsNoDns('127.0.0.1')).toBe(true)
    expect(needsNoDns('[::1]')).toBe(true)
    expect(needsNoDns('localhost')).toBe(true)
    expect(needsNoDns('10.1.2.3')).toBe(true)
    // A self-hosted localtunnel server or a --public-url on an internal name: never in public DNS.
    expect(needsNoDns('heldout.lt.test')).toBe(true)
    expect(needsNoDns('quiet-fox.loca.lt')).toBe(true)
    expect(needsNoDns('dev.example.com')).toBe(true)
    expect(needsNoDns('quiet-fox.trycloudflare.com')).toBe(false)
    expect(needsNoDns('Quiet-Fox.TryCloudflare.com.')).toBe(false)
  })
})
