/**
 * A tunnel that fails while a proxy is set says that tunnels usually do not pass corporate
 * proxies and suggests `bot dev --tunnel none`; without a proxy the fix is unchanged.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {localtunnelProvider, TunnelError} from '../../src/tunnel/index.js'
import {closedPort, startEchoServer} from './helpers.js'

const VARS = ['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy']
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]))
afterEach(() => {
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
})

async function failedTunnel(): Promise<TunnelError> {
  const echo = await startEchoServer()
  try {
    const port = await closedPort()
    const err = await localtunnelProvider({host: `http://127.0.0.1:${port}`, retryDelayMs: 100})
      .open({port: echo.port, timeoutMs: 500})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TunnelError)
    return err as TunnelError
  } finally {
    await echo.close()
  }
}

describe('tunnel failures behind a proxy', () => {
  it('with HTTPS_PROXY set: the fix says tunnels usually do not pass proxies and suggests --tunnel none', async () => {
    for (const k of VARS) delete process.env[k]
    process.env.HTTPS_PROXY = 'http://user:secret@proxy.corp.test:3128'
    const err = await failedTunnel()
    expect(err.reason).toBe('tunnel_unreachable')
    expect(err.fix).toMatch(
      /^A proxy is set \(HTTPS_PROXY\) and tunnels usually do not pass corporate proxies: run `bot dev --tunnel none`/,
    )
    expect(err.fix).toMatch(/Otherwise: .*--tunnel-host/)
    expect(err.fix).not.toContain('secret')
  })

  it('without a proxy: the usual fix, no proxy words', async () => {
    for (const k of VARS) delete process.env[k]
    const err = await failedTunnel()
    expect(err.fix).toMatch(/--tunnel-host/)
    expect(err.fix).not.toMatch(/proxy is set|--tunnel none/)
  })

  it('bad input (tunnel_invalid) gets no proxy note even with a proxy set', () => {
    process.env.http_proxy = 'http://proxy.corp.test:3128'
    expect(new TunnelError('bad subdomain', {code: 'tunnel_invalid', fix: 'Use a-z.'}).fix).toBe('Use a-z.')
  })
})
