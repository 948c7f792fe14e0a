/**
 * The relay's `/app/` (bot dev --web-app, src/dev/relay/app.ts) against a real dev server on loopback: requests and
 * WebSocket upgrades reach it with its own Host and the path mapped; the webhook path, its secret and everything
 * else stay the relay's, also on a connection that carried an `/app/` request first. Plain bot dev (`app: {bot:
 * true}`): `/app/` goes to the bot's own server, the relay's current target, across a restart on a new port.
 */
import http from 'node:http'
import net from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {Relay} from '../../src/dev/relay/relay.js'
import {startDevAppServer, wsEcho} from '../support/dev-app-server.js'
import {waitFor} from '../support/wait.js'

const SECRET = 'relay_app_secret'
const PATH = '/webhook/appTestPath1'

const opened: Array<{close(): Promise<void>}> = []
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close()
})

async function startBot() {
  const seen: Array<{path: string; secret?: string}> = []
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.push({path: req.url ?? '', secret: req.headers['x-telegram-bot-api-secret-token'] as string | undefined})
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const bot = {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
  opened.push(bot)
  return bot
}

async function relayWith(app?: string) {
  const relay = new Relay({
    secret: SECRET,
    path: PATH,
    holdTimeoutMs: 5000,
    ...(app ? {app: {url: app, timeoutMs: 5000}} : {}),
  })
  await relay.listen()
  opened.push(relay)
  return {relay, base: `http://127.0.0.1:${relay.port}`}
}

const update = JSON.stringify({
  update_id: 5,
  message: {message_id: 1, date: 0, chat: {id: 1, type: 'private'}, text: 'x'},
})

describe('the relay’s /app/ (--web-app)', () => {
  it('serves the dev server at /app/ with its own Host, maps paths and redirects, passes bodies and WebSockets', async () => {
    const dev = await startDevAppServer()
    opened.push(dev)
    const {base} = await relayWith(dev.url)

    const page = await fetch(`${base}/app/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`dev app at / for Host 127.0.0.1:${dev.port}`)

    const deep = await (await fetch(`${base}/app/headers?x=1`, {headers: {referer: `${base}/app/page`}})).json()
    expect(deep.path).toBe('/headers?x=1')
    expect(deep.headers.host).toBe(`127.0.0.1:${dev.port}`)
    expect(deep.headers.referer).toBe(`http://127.0.0.1:${dev.port}/page`)

    const bare = await fetch(`${base}/app?a=b`, {redirect: 'manual'})
    expect(bare.status).toBe(301)
    expect(bare.headers.get('location')).toBe('/app/?a=b')

    const redirect = await fetch(`${base}/app/go`, {redirect: 'manual'})
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBe('/app/landed')

    const body = 'x'.repeat(200_000)
    const echoed = await fetch(`${base}/app/echo`, {method: 'POST', body})
    expect(await echoed.text()).toBe(body)

    expect(await wsEcho(`ws://127.0.0.1:${base.split(':')[2]}/app/hmr?token=t`, 'hello hot reload')).toBe(
      'hello hot reload',
    )
    expect(dev.upgrades.at(-1)).toMatchObject({path: '/hmr?token=t', host: `127.0.0.1:${dev.port}`})

    // Only /app/ is the app's: the root and other paths are still the relay's 404.
    expect((await fetch(`${base}/`)).status).toBe(404)
    expect((await fetch(`${base}/application`)).status).toBe(404)
  })

  it('keeps the app’s own base path: --web-app http://host/app/ serves /app/x as /app/x', async () => {
    const dev = await startDevAppServer('/app/')
    opened.push(dev)
    const {base} = await relayWith(dev.url)
    const deep = await (await fetch(`${base}/app/headers`)).json()
    expect(deep.path).toBe('/app/headers')
    expect((await fetch(`${base}/app/go`, {redirect: 'manual'})).headers.get('location')).toBe('/app/landed')
  })

  it('a webhook after an /app/ request on the same connection reaches the bot, never the dev server; the secret is not passed on', async () => {
    const dev = await startDevAppServer()
    opened.push(dev)
    const bot = await startBot()
    const {relay} = await relayWith(dev.url)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const socket = net.connect(relay.port, '127.0.0.1')
    opened.push({close: async () => void socket.destroy()})
    let received = ''
    socket.on('data', (c) => (received += c.toString('latin1')))
    socket.write(
      `GET /app/headers HTTP/1.1\r\nHost: public.example\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\n\r\n` +
        `POST ${PATH} HTTP/1.1\r\nHost: public.example\r\nContent-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nContent-Length: ${update.length}\r\n\r\n${update}`,
    )
    await waitFor(() => (received.match(/HTTP\/1\.1 200/g) ?? []).length === 2, {what: 'both answers'})
    expect(bot.seen).toEqual([{path: '/hook', secret: SECRET}])
    expect(dev.requests.map((r) => r.path)).toEqual(['/headers'])
    expect(dev.requests[0].headers['x-telegram-bot-api-secret-token']).toBeUndefined()
    expect(JSON.stringify(dev.requests)).not.toContain(PATH)
  })

  it('a dev server that is down gets 502 with what to do; without --web-app /app/ is a 404', async () => {
    const dev = await startDevAppServer()
    const url = dev.url
    await dev.close()
    const {base} = await relayWith(url)
    const res = await fetch(`${base}/app/`)
    expect(res.status).toBe(502)
    expect(await res.text()).toMatch(/dev server at .* did not answer .*Start it/)
    const plain = await relayWith()
    expect((await fetch(`${plain.base}/app/`)).status).toBe(404)
  })
})

describe('the relay’s /app/ to the bot’s own server (plain bot dev, no --web-app)', () => {
  async function relayToBot() {
    const relay = new Relay({secret: SECRET, path: PATH, holdTimeoutMs: 5000, app: {bot: true, timeoutMs: 5000}})
    await relay.listen()
    opened.push(relay)
    return {relay, base: `http://127.0.0.1:${relay.port}`}
  }

  it('sends /app/ (path kept, no secret) to the port webhooks go to now, follows a restart on a fresh port, 502 while none', async () => {
    const {relay, base} = await relayToBot()
    // Not listening yet (the first start, or between a restart's stop and start): 502 that says so.
    const early = await fetch(`${base}/app/`)
    expect(early.status).toBe(502)
    expect(await early.text()).toMatch(/your bot is not listening right now/)

    const first = await startDevAppServer('/app/')
    opened.push(first)
    relay.setTarget({host: '127.0.0.1', port: first.port, path: '/hook'})
    const page = await fetch(`${base}/app/?x=1`, {headers: {'x-telegram-bot-api-secret-token': SECRET}})
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`dev app at /app/?x=1 for Host 127.0.0.1:${first.port}`)
    expect((await fetch(`${base}/app`, {redirect: 'manual'})).headers.get('location')).toBe('/app/')
    const check = await fetch(`${base}/app/echo`, {method: 'POST', body: 'initData=abc'})
    expect(await check.text()).toBe('initData=abc')
    expect(first.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /app/?x=1', 'POST /app/echo'])
    expect(first.requests[0].headers['x-telegram-bot-api-secret-token']).toBeUndefined()
    expect(JSON.stringify(first.requests)).not.toContain(PATH)
    // The bot's own WebSocket under /app/ passes too.
    expect(await wsEcho(`ws://127.0.0.1:${relay.port}/app/socket`, 'hi bot')).toBe('hi bot')
    expect(first.upgrades.map((u) => u.path)).toEqual(['/app/socket'])

    // A start-first restart: the new bot listens on a fresh port, the relay's target moves, /app/ follows it.
    const second = await startDevAppServer('/app/')
    opened.push(second)
    relay.setTarget({host: '127.0.0.1', port: second.port, path: '/hook'})
    await first.close()
    const moved = await fetch(`${base}/app/`)
    expect(await moved.text()).toContain(`for Host 127.0.0.1:${second.port}`)

    // A webhook with its secret still goes to the bot at its webhook path, with the secret (the relay's own job).
    const hook = await fetch(`${base}${PATH}`, {
      method: 'POST',
      headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET},
      body: update,
    })
    expect(hook.status).toBe(200)
    expect(second.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /app/', 'POST /hook'])
    expect(second.requests[1].headers['x-telegram-bot-api-secret-token']).toBe(SECRET)

    // The target is set but nothing listens there: 502 that says the bot did not answer.
    await second.close()
    const down = await fetch(`${base}/app/`)
    expect(down.status).toBe(502)
    expect(await down.text()).toMatch(/your bot's server did not answer \/app\//)
  })
})

describe('the relay’s /app/ with a real Vite dev server (base /app/)', () => {
  it('serves the page, its modules and the hot-reload WebSocket; Vite itself refuses the public Host the relay rewrites', async () => {
    const {mkdtempSync, writeFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const {join} = await import('node:path')
    const {createServer} = await import('vite')
    const root = mkdtempSync(join(tmpdir(), 'bot-vite-app-'))
    writeFileSync(
      join(root, 'index.html'),
      '<!doctype html><html><head><title>v</title></head><body><div id="app"></div><script type="module" src="/app/main.js"></script></body></html>',
    )
    writeFileSync(join(root, 'main.js'), "document.getElementById('app').textContent = 'hi'\n")
    const vite = await createServer({
      root,
      base: '/app/',
      configFile: false,
      logLevel: 'silent',
      server: {host: '127.0.0.1', port: 0, strictPort: false, watch: null},
    })
    await vite.listen()
    opened.push({close: () => vite.close()})
    const port = (vite.httpServer!.address() as AddressInfo).port
    const {base} = await relayWith(`http://127.0.0.1:${port}/app/`)

    const page = await fetch(`${base}/app/`, {headers: {accept: 'text/html'}})
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('/app/@vite/client')
    expect((await fetch(`${base}/app/@vite/client`)).status).toBe(200)
    expect(await (await fetch(`${base}/app/main.js`)).text()).toContain("textContent = 'hi'")

    // The hot-reload socket: Vite says it is connected.
    const {WebSocket} = await import('undici')
    const first = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${base.split(':')[2]}/app/`, ['vite-hmr'])
      const timer = setTimeout(() => reject(new Error('no message from Vite')), 15_000)
      ws.addEventListener('message', (e) => {
        clearTimeout(timer)
        resolve(String(e.data))
        ws.close()
      })
      ws.addEventListener('error', () => reject(new Error('the WebSocket failed')))
    })
    expect(JSON.parse(first)).toMatchObject({type: 'connected'})

    // Why the Host is rewritten: asked with the tunnel's name, Vite refuses.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.get({host: '127.0.0.1', port, path: '/app/', headers: {host: 'quiet-fox-12.loca.lt'}}, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
    })
    expect(status).toBe(403)
  })
})
