/**
 * src/lib/proxy.ts: which URLs go through which proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, the
 * lower-case forms first, loopback never), and the dispatcher it installs, proven with a real
 * forward proxy on loopback (test/support/proxy.ts) that records what it saw: Node's global
 * fetch and BotApi go through it once it is the global dispatcher.
 */
import {once} from 'node:events'
import {createServer as createHttpServer} from 'node:http'
import {createServer, type AddressInfo} from 'node:net'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {setGlobalDispatcher, type Dispatcher} from 'undici'

import {UpdateBridge} from '../../src/dev/delivery/bridge/bridge.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {explainApiError} from '../../src/telegram/explain.js'
import {
  createProxyDispatcher,
  describeProxyFailure,
  isLoopbackHost,
  proxyFor,
  proxyProblem,
  proxySummary,
} from '../../src/lib/proxy.js'
import {BotApi, BotApiError} from '../../src/telegram/index.js'
import {startProxy, type TestProxy} from '../support/proxy.js'
import {waitFor} from '../support/wait.js'

const GLOBAL = Symbol.for('undici.globalDispatcher.1')

describe('proxyFor', () => {
  it('picks HTTPS_PROXY for https, HTTP_PROXY for http (and for https when HTTPS_PROXY is unset)', () => {
    const env = {HTTPS_PROXY: 'http://secure:3128', HTTP_PROXY: 'http://plain:8080'}
    expect(proxyFor('https://api.telegram.org', env)).toMatchObject({variable: 'HTTPS_PROXY', hostPort: 'secure:3128'})
    expect(proxyFor('http://api.telegram.test', env)).toMatchObject({variable: 'HTTP_PROXY', hostPort: 'plain:8080'})
    expect(proxyFor('https://api.telegram.org', {HTTP_PROXY: 'plain:8080'})).toMatchObject({
      variable: 'HTTP_PROXY',
      hostPort: 'plain:8080',
      shown: 'http://plain:8080',
    })
    expect(proxyFor('https://api.telegram.org', {})).toBeUndefined()
  })

  it('lower-case names win, as in undici', () => {
    expect(proxyFor('https://x.org', {https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2'})).toMatchObject({
      variable: 'https_proxy',
      hostPort: 'lower:1',
    })
  })

  it('never shows credentials', () => {
    const p = proxyFor('https://x.org', {HTTPS_PROXY: 'http://alice:s3cret@proxy.corp:3128'})!
    expect(p).toMatchObject({hostPort: 'proxy.corp:3128', shown: 'http://proxy.corp:3128', hasCredentials: true})
    expect(JSON.stringify(p)).not.toContain('s3cret')
    expect(proxySummary({HTTPS_PROXY: 'http://alice:s3cret@proxy.corp:3128', NO_PROXY: '.corp'})).toBe(
      'HTTPS_PROXY=http://proxy.corp:3128, NO_PROXY=.corp',
    )
  })

  it('NO_PROXY: exact names, .suffix / *.suffix, :port, and *', () => {
    const env = {HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1'}
    expect(proxyFor('https://api.telegram.org', {...env, NO_PROXY: 'api.telegram.org'})).toBeUndefined()
    expect(proxyFor('https://api.telegram.org', {...env, NO_PROXY: '.telegram.org'})).toBeUndefined()
    expect(proxyFor('https://api.telegram.org', {...env, no_proxy: '*.telegram.org'})).toBeUndefined()
    expect(proxyFor('https://api.telegram.org', {...env, NO_PROXY: 'api.telegram.org:8443'})).toBeDefined()
    expect(proxyFor('https://api.telegram.org:8443', {...env, NO_PROXY: 'api.telegram.org:8443'})).toBeUndefined()
    expect(proxyFor('https://api.telegram.org', {...env, NO_PROXY: 'other.org, elsewhere'})).toBeDefined()
    expect(proxyFor('https://api.telegram.org', {...env, NO_PROXY: '*'})).toBeUndefined()
  })

  it('loopback is never proxied, whatever NO_PROXY says', () => {
    const env = {HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: 'unrelated.org'}
    for (const url of [
      'http://127.0.0.1:8081',
      'http://127.8.9.10',
      'http://localhost:3000',
      'http://bot.localhost',
      'http://[::1]:8081',
      'http://[::ffff:127.0.0.1]:1',
    ])
      expect(proxyFor(url, env), url).toBeUndefined()
    expect(proxyFor('http://128.0.0.1', env)).toBeDefined()
    expect(isLoopbackHost('10.0.0.1')).toBe(false)
    expect(isLoopbackHost('localhost.example.com')).toBe(false)
  })

  it('a proxy variable that is not an http(s) URL is a problem to report', () => {
    expect(proxyProblem({HTTPS_PROXY: 'socks5://p:1080'})?.message).toMatch(/HTTPS_PROXY uses socks5:\/\//)
    expect(proxyProblem({http_proxy: 'http://'})?.message).toMatch(/http_proxy is not a proxy URL/)
    expect(proxyProblem({HTTPS_PROXY: 'proxy.corp:3128'})).toBeUndefined()
    // Unusable, so nothing is installed: requests go direct, and proxyFor says so.
    expect(proxyFor('https://api.telegram.org', {HTTPS_PROXY: 'socks5://p:1080'})).toBeUndefined()
  })
})

describe('the proxy dispatcher with a real forward proxy', () => {
  let emu: BotApiEmulator
  let proxy: TestProxy
  let saved: unknown
  const installed: Dispatcher[] = []
  const emuPort = () => Number(new URL(emu.apiRoot).port)

  beforeAll(async () => {
    // the proxy maps api.telegram.test to it: a name it serves besides its loopback ones
    emu = await BotApiEmulator.start({timeScale: 0.01, allowedHosts: ['api.telegram.test']})
    saved = (globalThis as Record<symbol, unknown>)[GLOBAL]
  })
  afterEach(async () => {
    ;(globalThis as Record<symbol, unknown>)[GLOBAL] = saved
    for (const d of installed.splice(0)) await d.close().catch(() => {})
    await proxy?.close()
  })
  afterAll(async () => {
    await emu.stop()
  })

  const PROXY_VARS = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy']
  const savedEnv = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]))
  afterEach(() => {
    for (const k of PROXY_VARS) {
      if (savedEnv[k] === undefined) delete process.env[k]
      else process.env[k] = savedEnv[k]
    }
  })

  /** As bin/run.js does: the variables in this process's environment, the dispatcher global. */
  async function install(env: NodeJS.ProcessEnv): Promise<void> {
    for (const k of PROXY_VARS) delete process.env[k]
    Object.assign(process.env, env)
    const d = await createProxyDispatcher()
    expect(d).toBeDefined()
    installed.push(d!)
    setGlobalDispatcher(d!)
  }

  it("Node's global fetch and BotApi go through the proxy; the made-up host resolves only there", async () => {
    proxy = await startProxy({hosts: {'api.telegram.test': emuPort()}})
    const {token} = emu.createBot({username: 'proxied_bot'})
    await install({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url})
    const api = new BotApi({token, apiRoot: 'http://api.telegram.test'})
    const me = await api.getMe()
    expect(me.username).toBe('proxied_bot')
    expect(proxy.seen).toEqual([
      expect.objectContaining({method: 'CONNECT', host: 'api.telegram.test', port: 80, status: 200}),
    ])
    // What the tunnel-less bridge does: long polling through the proxy.
    const sent = emu.sendUserMessage(token, {text: 'through the proxy'})
    const updates = await api.getUpdates({timeout: 5})
    expect(updates.map((u) => u.update_id)).toEqual([sent.update_id])
    expect(emu.calls(token).map((c) => c.method)).toEqual(['getMe', 'getUpdates'])
    expect(proxy.seen.every((s) => s.host === 'api.telegram.test')).toBe(true)
  })

  it('NO_PROXY matching the host: straight there, the proxy sees nothing', async () => {
    proxy = await startProxy({hosts: {'api.telegram.test': emuPort()}})
    await install({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: '.telegram.test'})
    const api = new BotApi({token: emu.createBot().token, apiRoot: 'http://api.telegram.test'})
    const error = await api.getMe().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BotApiError)
    // Direct, so the name cannot be resolved here: proof that it did not go through the proxy.
    expect((error as BotApiError).description).toMatch(/cannot resolve the host name api\.telegram\.test/)
    expect(proxy.seen).toEqual([])
  })

  it('loopback never goes through the proxy, even with NO_PROXY unset', async () => {
    proxy = await startProxy({hosts: {'api.telegram.test': emuPort()}})
    await install({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url})
    const {token} = emu.createBot({username: 'loop_bot'})
    for (const root of [emu.apiRoot, `http://localhost:${emuPort()}`]) {
      const me = await new BotApi({token, apiRoot: root}).getMe()
      expect(me.username).toBe('loop_bot')
    }
    const res = await fetch(`http://127.0.0.1:${emuPort()}/`)
    await res.arrayBuffer()
    expect(proxy.seen).toEqual([])
  })

  it('a proxy asking for credentials: the client passes those in the URL; without them, a line naming the proxy and 407', async () => {
    proxy = await startProxy({hosts: {'api.telegram.test': emuPort()}, auth: 'alice:s3cret'})
    const {token} = emu.createBot()
    const port = proxy.port
    await install({HTTP_PROXY: `http://alice:s3cret@127.0.0.1:${port}`})
    expect((await new BotApi({token, apiRoot: 'http://api.telegram.test'}).getMe()).id).toBeGreaterThan(0)
    expect(proxy.seen.at(-1)).toMatchObject({method: 'CONNECT', credentials: 'alice:s3cret', status: 200})

    ;(globalThis as Record<symbol, unknown>)[GLOBAL] = saved
    const env = {HTTP_PROXY: `http://127.0.0.1:${port}`}
    await install(env)
    const error = (await new BotApi({token, apiRoot: 'http://api.telegram.test'})
      .getMe()
      .catch((e: unknown) => e)) as BotApiError
    expect(error).toBeInstanceOf(BotApiError)
    expect(error.kind).toBe('network')
    expect(error.description).toBe(
      `the proxy 127.0.0.1:${port} (HTTP_PROXY) asks for credentials (407 Proxy Authentication Required)`,
    )
    expect(
      describeProxyFailure(
        'http://api.telegram.test',
        new TypeError('fetch failed', {cause: new Error('Proxy response (407) !== 200 when HTTP Tunneling')}),
        {HTTP_PROXY: 'http://u:p@h:1'},
      ),
    ).toBe('the proxy h:1 (HTTP_PROXY) rejected its credentials (407 Proxy Authentication Required)')
  })

  it('a proxy whose name does not resolve, and one that accepts but never answers: each named, with the fix', async () => {
    const {token} = emu.createBot()
    await install({HTTPS_PROXY: 'http://user:pw@proxy.invalid:3128'})
    const unresolved = (await new BotApi({token, apiRoot: 'https://api.telegram.test'})
      .getMe()
      .catch((e: unknown) => e)) as BotApiError
    expect(unresolved.description).toBe(
      'cannot resolve the host name of the proxy proxy.invalid:3128 (HTTPS_PROXY): ENOTFOUND',
    )
    expect(explainApiError(unresolved, 'https://api.telegram.test')).toEqual({
      message:
        'Cannot reach the Bot API at https://api.telegram.test: cannot resolve the host name of the proxy proxy.invalid:3128 (HTTPS_PROXY): ENOTFOUND.',
      fix: 'Check HTTPS_PROXY (a running proxy, credentials as http://user:password@host:port), or add api.telegram.test to NO_PROXY if it is reachable directly.',
    })

    // A proxy that takes the connection and says nothing: the deadline, naming the proxy.
    const silent = createServer((socket) => socket.on('error', () => {}))
    silent.listen(0, '127.0.0.1')
    await once(silent, 'listening')
    try {
      ;(globalThis as Record<symbol, unknown>)[GLOBAL] = saved
      const port = (silent.address() as AddressInfo).port
      await install({HTTPS_PROXY: `http://127.0.0.1:${port}`})
      const hung = (await new BotApi({token, apiRoot: 'https://api.telegram.test', timeoutMs: 500})
        .getMe()
        .catch((e: unknown) => e)) as BotApiError
      expect(hung.kind).toBe('timeout')
      expect(explainApiError(hung, 'https://api.telegram.test').message).toBe(
        `The Bot API at https://api.telegram.test did not answer in time (getMe, through the proxy 127.0.0.1:${port}).`,
      )
    } finally {
      silent.close()
      for (const d of installed.splice(0)) await d.destroy().catch(() => {})
    }
  })

  it('the tunnel-less bridge: getUpdates through the proxy, the POST to the bot on loopback direct', async () => {
    proxy = await startProxy({hosts: {'api.telegram.test': emuPort()}})
    await install({HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url})
    const {token} = emu.createBot()
    const got: number[] = []
    const bot = createHttpServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c))
      req.on('end', () => {
        got.push((JSON.parse(body) as {update_id: number}).update_id)
        res.writeHead(200).end()
      })
    })
    bot.listen(0, '127.0.0.1')
    await once(bot, 'listening')
    const bridge = new UpdateBridge({
      api: new BotApi({token, apiRoot: 'http://api.telegram.test'}),
      target: {url: `http://127.0.0.1:${(bot.address() as AddressInfo).port}/hook`, secret: 'bridge_secret'},
      pollTimeoutSec: 1,
      onEvent: () => {},
    })
    try {
      await bridge.start()
      const sent = emu.sendUserMessage(token, {text: 'via the bridge'})
      await waitFor(() => got.includes(sent.update_id), {what: 'the update at the bot', timeout: 20_000})
      expect(got).toEqual([sent.update_id])
    } finally {
      await bridge.stop()
      bot.closeAllConnections()
      bot.close()
    }
    expect(proxy.seen.length).toBeGreaterThan(0)
    expect(proxy.seen.every((s) => s.method === 'CONNECT' && s.host === 'api.telegram.test')).toBe(true)
    expect(emu.calls(token).map((c) => c.method)).toContain('getUpdates')
  })
})
