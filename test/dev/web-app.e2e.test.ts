/**
 * `bot dev --web-app URL` as a real process: the emulator stands in for Telegram, the real localtunnel client opens
 * a tunnel on the loopback localtunnel server (its public side over https, as localtunnel's hosts serve it: Telegram
 * takes only https Mini App URLs), and a small real dev server (node:http with a WebSocket echo) is the app's.
 */
import {mkdtempSync, readFileSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {Agent} from 'undici'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readState} from '../../src/session-store/state.js'
import {startDevAppServer, wsEcho, type DevAppServer} from '../support/dev-app-server.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'
import {selfSignedCert} from '../support/tls.js'
import {waitFor} from '../support/wait.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
let lts: LocaltunnelServer
let app: DevAppServer
let ca: string
let envOut: string
let caFile: string
beforeEach(async () => {
  world = await devWorld()
  const dir = mkdtempSync(join(tmpdir(), 'bot-web-app-tls-'))
  const {keyFile, certFile} = selfSignedCert(dir, {cn: '127.0.0.1', san: 'IP:127.0.0.1'})
  ca = readFileSync(certFile, 'utf8')
  lts = await startLocaltunnelServer({tls: {key: readFileSync(keyFile, 'utf8'), cert: ca}})
  app = await startDevAppServer()
  envOut = join(world.dir, 'env.json')
  caFile = certFile
})
afterEach(async () => {
  await world.close()
  await lts.close().catch(() => {})
  await app.close().catch(() => {})
})

/** A Bot API call to the emulator (as the test, not the session). */
async function call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${world.emu.apiRoot}/bot${world.token}/${method}`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(params),
  })
  const body = (await res.json()) as {ok: boolean; result: T; description?: string}
  if (!body.ok) throw new Error(`${method}: ${body.description}`)
  return body.result
}

const PRODUCTION = {type: 'web_app', text: 'Shop', web_app: {url: 'https://shop.example.com/'}}

/** `bot dev --web-app` through the https loopback tunnel, the CLI trusting its certificate. */
function startWebAppDev(extra: string[] = [], webApp = app.url) {
  return startDev(world, {
    bot: 'web-app-bot.mjs',
    tunnel: false,
    args: ['--no-watch', '--tunnel-host', lts.url, '--tunnel-timeout', '60000', '--web-app', webApp, ...extra],
    env: {NODE_EXTRA_CA_CERTS: caFile, FIXTURE_ENV_OUT: envOut},
  })
}

function botEnv(): {WEB_APP_URL: string | null; WEBHOOK_URL: string} {
  return JSON.parse(readFileSync(envOut, 'utf8'))
}

describe('bot dev --web-app', () => {
  it('serves the dev server at the public URL’s /app/ (Host, WebSocket), sets the menu button for the session and puts the previous one back', async () => {
    await call('setChatMenuButton', {menu_button: PRODUCTION})
    const dev = startWebAppDev(['--json'])
    await dev.waitForOutput(/"type":"ready"/)
    await waitFor(() => existsSync(envOut), {what: 'the bot’s env'})
    const {WEBHOOK_URL} = botEnv()
    const WEB_APP_URL = botEnv().WEB_APP_URL ?? ''
    const publicUrl = new URL(WEBHOOK_URL).origin
    expect(publicUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(WEB_APP_URL).toBe(`${publicUrl}/app/`)

    // --json: the app's URL in its own event and in ready.
    const events = dev
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(events.find((e) => e.type === 'web-app')).toMatchObject({url: WEB_APP_URL, devServer: app.url})
    expect(events.find((e) => e.type === 'ready')).toMatchObject({webAppUrl: WEB_APP_URL})

    // The menu button opens the app, and the state file keeps what it replaced.
    expect(await call('getChatMenuButton')).toEqual({type: 'web_app', text: 'Open app', web_app: {url: WEB_APP_URL}})
    expect(readState(world.botId, world.stateDir)?.menuButton).toEqual({url: WEB_APP_URL, previous: PRODUCTION})

    // The page through the tunnel, with the Host the dev server expects; a WebSocket through /app/ echoes.
    const dispatcher = new Agent({connect: {ca}})
    const page = await fetch(`${WEB_APP_URL}`, {dispatcher} as RequestInit)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`dev app at / for Host 127.0.0.1:${app.port}`)
    const wss = `${WEB_APP_URL.replace(/^https/, 'wss')}hmr`
    expect(await wsEcho(wss, 'hot update', {ca})).toBe('hot update')
    expect(app.upgrades.at(-1)).toMatchObject({path: '/hmr', host: `127.0.0.1:${app.port}`})
    // The webhook path never reached the dev server.
    const path = new URL(WEBHOOK_URL).pathname
    expect(app.requests.some((r) => r.path.includes(path))).toBe(false)
    // (The emulator, which delivers the updates, does not trust the tunnel's test certificate: that updates and
    // /app/ share a connection is test/dev/relay-app.test.ts's.)
    await dispatcher.close()

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/Menu button put back as it was/)
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    assertNoToken(result, world.token)
  })

  it('a session killed with SIGKILL leaves its menu button; the next run puts the previous one back', async () => {
    const dev = startWebAppDev()
    await dev.waitForOutput(/Ready/)
    await waitFor(() => existsSync(envOut), {what: 'the bot’s env'})
    const {WEB_APP_URL} = botEnv()
    expect(await call('getChatMenuButton')).toMatchObject({type: 'web_app', web_app: {url: WEB_APP_URL}})
    dev.kill('SIGKILL')
    await dev.exited
    expect(await call('getChatMenuButton')).toMatchObject({type: 'web_app', web_app: {url: WEB_APP_URL}})

    // The next run, without --web-app, repairs it: the bot's default (commands) again.
    const next = startDev(world, {bot: 'web-app-bot.mjs', env: {FIXTURE_ENV_OUT: envOut}})
    await next.waitForOutput(/Ready/)
    expect(next.stderr()).toMatch(
      /Repaired: the previous `bot dev` \(pid \d+\) died and left the menu button on its app/,
    )
    expect(await call('getChatMenuButton')).toEqual({type: 'commands'})
    expect(readState(world.botId, world.stateDir)?.menuButton).toBeUndefined()
    next.kill('SIGINT')
    expect((await next.exited).code).toBe(0)
  })

  it('the polling bridge has no public URL: one line says so, the menu button is left alone, no WEB_APP_URL', async () => {
    await call('setChatMenuButton', {menu_button: PRODUCTION})
    const dev = startDev(world, {
      bot: 'web-app-bot.mjs',
      tunnel: false,
      args: ['--no-watch', '--tunnel', 'none', '--web-app', app.url],
      env: {FIXTURE_ENV_OUT: envOut},
    })
    await dev.waitForOutput(/Ready/)
    expect(dev.stderr()).toMatch(
      /--web-app: this session has no public URL \(the polling bridge\), so .* is not served and the menu button is left as it is; open the app from the chat page/,
    )
    await waitFor(() => existsSync(envOut), {what: 'the bot’s env'})
    expect(botEnv().WEB_APP_URL).toBeNull()
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
  })

  it.each([
    ['not a URL', ['--web-app', 'localhost:5173'], /--web-app .* must be a plain http\(s\) URL|is not a URL/],
    ['another scheme', ['--web-app', 'ftp://localhost/'], /must be a plain http\(s\) URL/],
    ['another machine', ['--web-app', 'http://example.com:5173'], /is not on this machine/],
    ['offline', ['--offline', '--web-app', 'http://localhost:5173'], /--offline has none/],
  ])('refuses %s: exit 2, one line and the fix, nothing set', async (_, args, message) => {
    await call('setChatMenuButton', {menu_button: PRODUCTION})
    const dev = startDev(world, {bot: 'web-app-bot.mjs', tunnel: false, args: ['--no-watch', ...args]})
    const result = await dev.exited
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(result.stderr).toMatch(/--web-app http:\/\/localhost:5173|Drop --offline/)
    expect(world.emu.webhook(world.token)).toBeUndefined()
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
  })
})

describe('bot dev without --web-app (a public URL)', () => {
  it('serves the bot’s own /app/ at the public URL’s /app/ and gives the bot WEB_APP_URL; the menu button is left alone', async () => {
    await call('setChatMenuButton', {menu_button: PRODUCTION})
    const dev = startDev(world, {
      bot: 'web-app-bot.mjs',
      tunnel: false,
      args: ['--no-watch', '--tunnel-host', lts.url, '--tunnel-timeout', '60000'],
      env: {NODE_EXTRA_CA_CERTS: caFile, FIXTURE_ENV_OUT: envOut},
    })
    await dev.waitForOutput(/Ready/)
    await waitFor(() => existsSync(envOut), {what: 'the bot’s env'})
    const {WEBHOOK_URL, PORT} = botEnv() as ReturnType<typeof botEnv> & {PORT: string}
    const publicUrl = new URL(WEBHOOK_URL).origin
    expect(publicUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(botEnv().WEB_APP_URL).toBe(`${publicUrl}/app/`)

    // Through the tunnel and the relay to the bot's own server, path kept.
    const dispatcher = new Agent({connect: {ca}})
    const page = await fetch(`${publicUrl}/app/?start=1`, {dispatcher} as RequestInit)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(`the bot's own app at /app/?start=1 on port ${PORT}`)
    await dispatcher.close()
    // Only the session's --web-app sets the menu button; nothing else reached the dev server of the other tests.
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
    expect(app.requests).toEqual([])

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(await call('getChatMenuButton')).toEqual(PRODUCTION)
    assertNoToken(result, world.token)
  })
})
