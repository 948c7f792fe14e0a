/**
 * The inspector against hostile pages in a real browser (Debian's chromium via playwright-core):
 * a DNS-rebound name (evil.test resolved to 127.0.0.1 by chromium's host resolver rules) gets 403
 * and no page; a page on another origin (another loopback port, or evil.test) that knows the key
 * cannot make the session replay through a form POST or a no-cors fetch. The inspector's own page
 * still replays.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {waitFor} from '../support/wait.js'

const KEY = 'b7c4e1a90d2f3e4a5b6c7d8e9f001122'
const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/hostile-browser.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('inspector: hostile pages in chromium', () => {
  let browser: Browser
  let server: InspectorServer
  let history: UpdateHistory
  let evil: http.Server
  let evilPort: number
  let replays: number

  beforeAll(async () => {
    browser = await launchChromium(['--host-resolver-rules=MAP evil.test 127.0.0.1'])
  })

  afterAll(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    history = new UpdateHistory()
    history.finish(
      history.begin(
        {update_id: 100, message: {message_id: 1, date: 1, chat: {id: 42, type: 'private'}, text: 'hi'}},
        'webhook',
      ),
      {status: 200, body: ''},
      1,
    )
    replays = 0
    server = await startInspectorServer({
      history,
      key: KEY,
      actions: {
        async replay(updateId) {
          replays++
          return history.begin(history.find(updateId as number)?.update, 'replay', updateId as number)
        },
      },
    })
    const target = `http://127.0.0.1:${server.port}/api/updates/100/replay?key=${KEY}`
    // The attacker's page: it knows the key (the worst case) and posts the way a page can.
    evil = http.createServer((req, res) => {
      res.writeHead(200, {'content-type': 'text/html'})
      if (req.url === '/form')
        res.end(
          `<form id=f method=POST enctype="text/plain" action="${target}"><input name='{"update_id":100,"x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`,
        )
      else
        res.end(
          `<script>window.done = fetch(${JSON.stringify(target)}, {method: 'POST', mode: 'no-cors', body: '{}'}).then(() => 'sent', (e) => 'failed: ' + e.message)</script>`,
        )
    })
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r))
    evilPort = (evil.address() as AddressInfo).port
  })

  afterEach(async () => {
    await server?.close()
    await new Promise<void>((r) => evil.close(() => r()))
  })

  it('a DNS-rebound name gets 403 and no page, for the page and the API', async () => {
    const page = await browser.newPage()
    try {
      const answer = await page.goto(`http://evil.test:${server.port}/?key=${KEY}`)
      expect(answer?.status()).toBe(403)
      expect(await page.content()).not.toContain('id="rows"')
      const api = await page.goto(`http://evil.test:${server.port}/api/updates?key=${KEY}`)
      expect(api?.status()).toBe(403)
      expect(await page.content()).not.toContain('"updateId"')
    } finally {
      await page.close()
    }
  })

  for (const origin of ['127.0.0.1', 'evil.test']) {
    it(`a page on ${origin} (another origin) with the key cannot replay: form POST and no-cors fetch are refused`, async () => {
      const page = await browser.newPage()
      try {
        const navigated = page.waitForURL(/\/api\/updates\/100\/replay/, {timeout: 30_000})
        await page.goto(`http://${origin}:${evilPort}/form`)
        await navigated
        expect(await page.content()).toContain('a request from another site is refused')
        await page.goto(`http://${origin}:${evilPort}/fetch`)
        // The answer is unreadable either way (no CORS; CORP same-origin makes the fetch fail): what counts is that nothing was replayed.
        expect(await page.evaluate('window.done')).toMatch(/^(sent|failed: )/)
        expect(replays).toBe(0)
      } finally {
        await page.close()
      }
    })
  }

  it("the inspector's own page still replays", async () => {
    const page = await browser.newPage()
    try {
      await page.goto(server.url)
      await page.waitForSelector('tr[data-update-id="100"]', {timeout: 15_000})
      await page.click('tr[data-update-id="100"]')
      await page.click('#replay')
      await waitFor(() => replays === 1, {what: 'the replay'})
      await page.waitForSelector('#action-result:not(.failed)', {timeout: 15_000})
    } finally {
      await page.close()
    }
  })
})
