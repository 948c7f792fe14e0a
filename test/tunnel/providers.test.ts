import {describe, expect, it} from 'vitest'

import {
  createProvider,
  localtunnelProvider,
  loopbackProvider,
  probeTunnel,
  publicUrlProvider,
  PROVIDERS,
  TunnelError,
} from '../../src/tunnel/index.js'
import {closedPort, startEchoServer, startSilentServer} from './helpers.js'

function invalid(fn: () => unknown): TunnelError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(TunnelError)
    expect((err as TunnelError).reason).toBe('tunnel_invalid')
    expect((err as TunnelError).exitCode).toBe(2)
    return err as TunnelError
  }
  throw new Error('expected a TunnelError')
}

describe('publicUrlProvider', () => {
  it('accepts an https URL (with a path prefix) and opens nothing', async () => {
    const provider = publicUrlProvider('https://bot.example.com/tg/')
    expect(provider.name).toBe('public-url')
    const tunnel = await provider.open({port: 1234})
    expect(tunnel.url).toBe('https://bot.example.com/tg')
    expect(tunnel.provider).toBe('public-url')
    let down = 0
    tunnel.on('down', () => down++)
    await tunnel.close()
    await tunnel.close()
    expect(down).toBe(0)
  })

  it('accepts http only on loopback', async () => {
    expect((await publicUrlProvider('http://127.0.0.1:8080').open({port: 1})).url).toBe('http://127.0.0.1:8080')
    expect((await publicUrlProvider('http://localhost:3000/').open({port: 1})).url).toBe('http://localhost:3000')
    expect((await publicUrlProvider('http://[::1]:3000').open({port: 1})).url).toBe('http://[::1]:3000')
    expect(publicUrlProvider('https://example.com:8443').url).toBe('https://example.com:8443')
  })

  it.each([
    ['not a url', /is not a URL/],
    ['bot.example.com', /is not a URL/],
    ['ftp://bot.example.com', /must be an https:\/\/ URL/],
    ['http://bot.example.com', /must use https .*http is accepted only for loopback/],
    ['http://10.0.0.5:8080', /must use https/],
    ['https://user:pw@bot.example.com', /user name or password/],
    ['https://bot.example.com/?a=1', /query or a fragment/],
    ['https://bot.example.com/#x', /query or a fragment/],
  ])('rejects %s with one line naming the rule and a fix', (url, rule) => {
    const err = invalid(() => publicUrlProvider(url))
    expect(err.message).toMatch(rule)
    expect(err.message).not.toContain('\n')
    if (!/password/.test(err.message)) expect(err.message).toContain(url)
    expect(err.fix).toMatch(/--public-url https:\/\//)
  })

  it('does not repeat credentials in its error', () => {
    const err = invalid(() => publicUrlProvider('https://user:hunter2@bot.example.com'))
    expect(err.message).not.toContain('hunter2')
  })
})

describe('loopbackProvider', () => {
  it('hands out http://127.0.0.1:<port> and never goes down', async () => {
    const tunnel = await loopbackProvider().open({port: 40123})
    expect(tunnel.url).toBe('http://127.0.0.1:40123')
    expect(tunnel.provider).toBe('loopback')
    await tunnel.close()
    expect((await loopbackProvider().open({port: 8080, localHost: '::1'})).url).toBe('http://[::1]:8080')
  })

  it('rejects a bad port or a host that is not loopback', async () => {
    await expect(loopbackProvider().open({port: 0})).rejects.toThrow(/local port 0 is not a TCP port/)
    await expect(loopbackProvider().open({port: 70000})).rejects.toThrow(/not a TCP port/)
    await expect(loopbackProvider().open({port: 80, localHost: '192.168.1.2'})).rejects.toThrow(
      /not a loopback address/,
    )
  })
})

describe('localtunnelProvider input checks', () => {
  it.each(['abc', 'Upper-Case', '-leading', 'trailing-', 'has_underscore', 'x'.repeat(70)])(
    'rejects subdomain %s',
    (sub) => {
      const err = invalid(() => localtunnelProvider({host: 'http://127.0.0.1:1', subdomain: sub}))
      expect(err.message).toContain(`subdomain "${sub}" is not valid`)
    },
  )

  it('accepts good subdomains and hosts, trimming a trailing slash', () => {
    const p = localtunnelProvider({host: 'https://tunnel.example.com/', subdomain: 'my-bot-dev'})
    expect(p.host).toBe('https://tunnel.example.com')
    expect(p.subdomain).toBe('my-bot-dev')
    expect(localtunnelProvider().host).toBe('https://localtunnel.me')
  })

  it.each([
    ['tunnel.example.com', /is not a URL/],
    ['ws://tunnel.example.com', /http:\/\/ or https:\/\//],
    ['https://tunnel.example.com/?x=1', /query/],
  ])('rejects host %s', (host, rule) => {
    expect(invalid(() => localtunnelProvider({host})).message).toMatch(rule)
  })

  it('rejects a bad local port before any network call', async () => {
    await expect(localtunnelProvider({host: 'http://127.0.0.1:1'}).open({port: -1})).rejects.toThrow(/local port -1/)
  })
})

describe('provider table', () => {
  it('builds each provider by name', async () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual(['cloudflared', 'localtunnel', 'loopback', 'public-url'])
    expect(createProvider('cloudflared').name).toBe('cloudflared')
    expect(createProvider('localtunnel', {host: 'http://127.0.0.1:9'}).name).toBe('localtunnel')
    expect(createProvider('public-url', {url: 'https://a.example.com'}).name).toBe('public-url')
    expect((await createProvider('loopback').open({port: 5})).url).toBe('http://127.0.0.1:5')
  })

  it('names the known providers when given an unknown one', () => {
    expect(invalid(() => createProvider('ngrok')).message).toBe(
      'unknown tunnel provider "ngrok" (known: localtunnel, public-url, loopback, cloudflared)',
    )
    expect(invalid(() => createProvider('public-url')).message).toMatch(/needs a URL/)
  })
})

describe('probeTunnel', () => {
  it('reports ok, status and time for a real answer', async () => {
    const echo = await startEchoServer()
    try {
      const ok = await probeTunnel(`http://127.0.0.1:${echo.port}/`, '/healthz', {timeoutMs: 2000})
      expect(ok.ok).toBe(true)
      expect(ok.status).toBe(200)
      expect(ok.ms).toBeGreaterThan(0)
      expect(echo.seen.at(-1)).toMatchObject({method: 'GET', url: '/healthz'})
      const bad = await probeTunnel(`http://127.0.0.1:${echo.port}`, 'x?status=502', {timeoutMs: 2000})
      expect(bad).toMatchObject({ok: false, status: 502})
    } finally {
      await echo.close()
    }
  })

  it('reports no answer (status 0) for a closed port, a silent server and an abort', async () => {
    const refused = await probeTunnel(`http://127.0.0.1:${await closedPort()}`, '/h', {timeoutMs: 2000})
    expect(refused).toMatchObject({ok: false, status: 0, error: 'ECONNREFUSED'})

    const silent = await startSilentServer()
    try {
      const slow = await probeTunnel(`http://127.0.0.1:${silent.port}`, '/h', {timeoutMs: 300})
      expect(slow).toMatchObject({ok: false, status: 0, error: 'no answer within 300 ms'})
      expect(slow.ms).toBeGreaterThanOrEqual(290)
      const controller = new AbortController()
      const pending = probeTunnel(`http://127.0.0.1:${silent.port}`, '/h', {timeoutMs: 5000, signal: controller.signal})
      controller.abort()
      expect(await pending).toMatchObject({ok: false, status: 0, error: 'aborted'})
    } finally {
      await silent.close()
    }
  })
})
