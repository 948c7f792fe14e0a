/**
 * Acceptance: the inspector page (real chromium) marks a call the bot made in its webhook answer
 * (ApiCall.webhookReply) as such, in the list and in the detail view, and does not call it "ok".
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import type {ApiCall} from '../../src/inspector/types.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/accept-browser.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('webhook-reply calls on the inspector page', () => {
  let browser: Browser
  let server: InspectorServer | undefined
  let page: Page | undefined

  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })
  afterEach(async () => {
    await page?.close()
    await server?.close()
  })

  it('tags the call "webhook reply" in the row and in the detail card', async () => {
    const history = new UpdateHistory()
    server = await startInspectorServer({
      history,
      actions: {replay: async () => Promise.reject(new Error('not here'))},
      key: 'accept-key',
    })
    page = await browser.newPage()
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(err.message))
    await page.goto(server.url)
    await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})

    const entry = history.begin(
      {update_id: 77, message: {message_id: 1, chat: {id: 5, type: 'private'}, date: 1, text: 'hi'}},
      'webhook',
    )
    const base = {ms: 0, time: new Date().toISOString(), chatId: 5}
    history.addCall(
      {
        ...base,
        method: 'sendMessage',
        ok: true,
        params: {chat_id: 5, text: 'in answer'},
        webhookReply: true,
      } as ApiCall,
      entry,
    )
    history.addCall(
      {...base, method: 'sendChatAction', ok: true, params: {chat_id: 5, action: 'typing'}} as ApiCall,
      entry,
    )
    history.finish(entry, {status: 200, body: '{"method":"sendMessage","chat_id":5,"text":"in answer"}'}, 3)

    const row = page.locator('#rows tr[data-update-id="77"]')
    await row.locator('.call.webhook-reply').waitFor({timeout: 10_000})
    expect(await row.locator('.call.webhook-reply .tag').textContent()).toBe('webhook reply')
    expect(await row.locator('.call:not(.webhook-reply)').textContent()).toBe('sendChatAction')

    await row.click()
    await page.waitForSelector('#detail:not([hidden])')
    const cards = page.locator('#detail-calls .call-card')
    expect(await cards.count()).toBe(2)
    const reply = page.locator('#detail-calls .call-card[data-method="sendMessage"]')
    expect(await reply.locator('.tag').textContent()).toBe('webhook reply')
    expect(await reply.locator('.verdict').textContent()).toBe('handed over')
    expect(await reply.textContent()).toContain('reports no result')
    const plain = page.locator('#detail-calls .call-card[data-method="sendChatAction"]')
    expect(await plain.locator('.tag').count()).toBe(0)
    expect(await plain.locator('.verdict').textContent()).toBe('ok')
    expect(problems).toEqual([])
  })
})
