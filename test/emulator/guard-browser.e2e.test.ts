/**
 * The emulator against hostile pages in a real browser (Debian's chromium via playwright-core; issue 20 item 2). The
 * default token is public and fixed, so a page knows it. A page on another loopback origin (another port) or another
 * site tries what needs no preflight: a text/plain form POST to /_emulator/reset, no-cors fetches that inject a user
 * message and log the bot out, a GET setWebhook through an <img>, and reading /calls. A DNS-rebound name
 * (rebind.test mapped to 127.0.0.1 by chromium's host resolver rules) tries to read the webhook's secret and path.
 * Nothing happens and nothing is read; the emulator goes on serving its bot.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'

const TOKEN = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
const SECRET = 'S3CRET_webhook_value'
const skip = browserSkipReason()
if (skip) console.warn(`test/emulator/guard-browser.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('the emulator against hostile pages in chromium', () => {
  let browser: Browser
  let emu: BotApiEmulator
  let evil: http.Server
  let evilPort: number
  let hook: http.Server
  let hookUrl: string

  beforeAll(async () => {
    browser = await launchChromium(['--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP attacker.test 127.0.0.1'])
  })

  afterAll(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    emu = await BotApiEmulator.start({timeScale: 0.01})
    emu.createBot({token: TOKEN, username: 'offline_dev_bot'})
    hook = http.createServer((req, res) => {
      req.resume()
      res.writeHead(500) // keeps the update queued: a reset would be seen
      res.end()
    })
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/webhook/SECRET-PATH`
    const set = await fetch(`${emu.apiRoot}/bot${TOKEN}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url: hookUrl, secret_token: SECRET}),
    })
    expect(set.status).toBe(200)
    emu.sendUserMessage(TOKEN, {text: 'queued before the attack'})

    const e = emu.apiRoot
    const t = TOKEN
    evil = http.createServer((req, res) => {
      res.writeHead(200, {'content-type': 'text/html'})
      if (req.url === '/form')
        res.end(
          `<form id=f method=POST enctype="text/plain" action="${e}/_emulator/reset"><input name='{"a":"' value='"}'></form><script>document.getElementById('f').submit()</script>`,
        )
      else
        res.end(`<script>
          const settle = (p) => p.then(() => 'sent', (err) => 'failed: ' + err.message)
          window.done = Promise.all([
            settle(fetch('${e}/_emulator/reset', {method: 'POST', mode: 'no-cors', headers: {'content-type': 'text/plain'}, body: '{}'})),
            settle(fetch('${e}/_emulator/bots/${t}/messages', {method: 'POST', mode: 'no-cors', headers: {'content-type': 'text/plain'}, body: '{"text":"injected"}'})),
            settle(fetch('${e}/bot${t}/logOut', {method: 'POST', mode: 'no-cors'})),
            new Promise((resolve) => { const img = new Image(); img.onload = img.onerror = () => resolve('img'); img.src = '${e}/bot${t}/setWebhook?url=http://127.0.0.1:9/steal' }),
            fetch('${e}/_emulator/bots/${t}/calls').then((r) => r.text()).then((text) => 'read: ' + text, () => 'unreadable'),
          ])
        </script>`)
    })
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r))
    evilPort = (evil.address() as AddressInfo).port
  })

  afterEach(async () => {
    await emu?.stop()
    await new Promise<void>((r) => evil.close(() => r()))
    await new Promise<void>((r) => {
      hook.closeAllConnections()
      hook.close(() => r())
    })
  })

  /** Nothing the attack tried happened: same webhook, same queue, no call but the test's own setWebhook. */
  function untouched(): void {
    expect(emu.webhook(TOKEN)).toMatchObject({url: hookUrl, secretToken: SECRET})
    expect(emu.pendingUpdates(TOKEN).map((u) => (u.message as {text?: string} | undefined)?.text)).toEqual([
      'queued before the attack',
    ])
    expect(emu.calls(TOKEN).map((c) => c.method)).toEqual(['setWebhook'])
  }

  for (const origin of ['127.0.0.1', 'attacker.test']) {
    it(`a page on ${origin}:<another port> can neither reset, inject, log out, set the webhook nor read /calls`, async () => {
      const page = await browser.newPage()
      try {
        const navigated = page.waitForURL(/\/_emulator\/reset/, {timeout: 30_000})
        const answer = page.waitForResponse(/\/_emulator\/reset/, {timeout: 30_000})
        await page.goto(`http://${origin}:${evilPort}/form`)
        await navigated
        expect((await answer).status()).toBe(403)
        expect(await page.content()).toContain('a request from a web page of another site is refused')
        untouched()

        await page.goto(`http://${origin}:${evilPort}/fetch`)
        const results = (await page.evaluate('window.done')) as string[]
        expect(results.at(-1)).toBe('unreadable')
        for (const r of results.slice(0, 3)) expect(r).toMatch(/^(sent|failed: )/)
        untouched()
      } finally {
        await page.close()
      }
      // the emulator goes on serving the bot
      expect((await fetch(`${emu.apiRoot}/bot${TOKEN}/getMe`)).status).toBe(200)
    })
  }

  it("a DNS-rebound name reads neither /calls nor the webhook's secret and path", async () => {
    const page = await browser.newPage()
    try {
      const calls = await page.goto(`http://rebind.test:${emu.port}/_emulator/bots/${TOKEN}/calls`)
      expect(calls?.status()).toBe(403)
      const text = await page.content()
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain('SECRET-PATH')
      // from the rebound page itself, a same-origin fetch is just as refused
      const same = (await page.evaluate(
        `Promise.all(['/bot${TOKEN}/getWebhookInfo', '/_emulator/bots/${TOKEN}/state'].map((p) => fetch(p).then(async (r) => r.status + ' ' + (await r.text()))))`,
      )) as string[]
      for (const answer of same) {
        expect(answer).toMatch(/^403 /)
        expect(answer).not.toContain('SECRET-PATH')
        expect(answer).not.toContain(SECRET)
      }
      const reset = (await page.evaluate(
        `fetch('/_emulator/reset', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'}).then((r) => r.status)`,
      )) as number
      expect(reset).toBe(403)
      untouched()
    } finally {
      await page.close()
    }
  })
})
