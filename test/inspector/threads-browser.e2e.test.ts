/**
 * Issue 23 item 8 in a real browser (Debian's chromium via playwright-core): the inspector tags each
 * update by kind (a filter too), and shows a payment — the update that sent the invoice, the
 * pre-checkout query with the bot's answer, the successful payment, the refund — as one thread in
 * the detail view, each step a link to its update; a call shows its result and when the api proxy
 * answered it itself. The history is a real UpdateHistory fed the updates and calls of a purchase.
 *
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import type {ApiCall} from '../../src/inspector/types.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {waitFor} from '../support/wait.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/threads-browser.e2e.test.ts skipped: ${skip}`)

const ada = {id: 4242, is_bot: false, first_name: 'Ada'}
const chat = {id: 4242, type: 'private', first_name: 'Ada'}
const now = Math.floor(Date.now() / 1000)
const call = (method: string, params: Record<string, unknown>, extra: Partial<ApiCall> = {}): ApiCall => ({
  method,
  ok: true,
  ms: 3,
  params,
  time: new Date().toISOString(),
  ...extra,
})

/** A purchase as a session records it, and a reaction beside it. */
function purchase(history: UpdateHistory): Record<string, number> {
  const step = (update: Record<string, unknown>, calls: ApiCall[] = []) => {
    const entry = history.begin(update, 'webhook')
    for (const c of calls) history.addCall(c, entry)
    history.finish(entry, {status: 200, body: ''}, 5)
    return entry.updateId
  }
  return {
    buy: step({update_id: 1, message: {message_id: 1, from: ada, chat, date: now, text: '/buy'}}, [
      call(
        'sendInvoice',
        {chat_id: 4242, title: 'Premium', payload: 'premium', currency: 'XTR'},
        {result: {message_id: 2, chat: {id: 4242, type: 'private'}, date: now}},
      ),
    ]),
    reaction: step({
      update_id: 2,
      message_reaction: {chat, message_id: 2, user: ada, date: now, old_reaction: [], new_reaction: []},
    }),
    query: step(
      {
        update_id: 3,
        pre_checkout_query: {id: '77', from: ada, currency: 'XTR', total_amount: 5, invoice_payload: 'premium'},
      },
      [call('answerPreCheckoutQuery', {pre_checkout_query_id: '77', ok: true}, {answeredLocally: true, result: true})],
    ),
    paid: step({
      update_id: 4,
      message: {
        message_id: 3,
        from: ada,
        chat,
        date: now,
        successful_payment: {
          currency: 'XTR',
          total_amount: 5,
          invoice_payload: 'premium',
          telegram_payment_charge_id: 'stxCHARGE',
          provider_payment_charge_id: '',
        },
      },
    }),
    refund: step({update_id: 5, message: {message_id: 4, from: ada, chat, date: now, text: '/refund'}}, [
      call('refundStarPayment', {user_id: 4242, telegram_payment_charge_id: 'stxCHARGE'}, {result: true}),
    ]),
  }
}

describe('the inspector shows kinds and payment threads', () => {
  it('tags and threads in the JSON API (GET /api/updates?tag=, GET /api/threads/{id})', async () => {
    const history = new UpdateHistory()
    const ids = purchase(history)
    const server = await startInspectorServer({history, actions: {replay: async () => history.last()!}, key: 'k'})
    try {
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {headers: {'x-bot-dev-key': 'k'}})
        return {status: res.status, json: (await res.json()) as any}
      }
      const byTag = await get('/api/updates?tag=payment')
      expect(byTag.json.map((e: any) => e.updateId)).toEqual([ids.refund, ids.paid, ids.query, ids.buy])
      expect((await get('/api/updates?tag=reaction')).json.map((e: any) => e.updateId)).toEqual([ids.reaction])
      const threadId = byTag.json[0].thread.id
      const thread = await get(`/api/threads/${threadId}`)
      expect(thread.status).toBe(200)
      expect(thread.json.kind).toBe('payment')
      expect(thread.json.entries.map((e: any) => [e.updateId, e.thread.step])).toEqual([
        [ids.buy, 'invoice'],
        [ids.query, 'pre_checkout'],
        [ids.paid, 'payment'],
        [ids.refund, 'refund'],
      ])
      expect(thread.json.entries[0].tags).toEqual(['command', 'payment'])
      expect((await get('/api/threads/pay-999')).status).toBe(404)
    } finally {
      await server.close()
    }
  })

  describe.skipIf(skip !== undefined)('in chromium', () => {
    let browser: Browser
    let server: InspectorServer
    let page: Page
    let ids: Record<string, number>
    const problems: string[] = []

    beforeAll(async () => {
      browser = await launchChromium()
      const history = new UpdateHistory()
      ids = purchase(history)
      server = await startInspectorServer({
        history,
        actions: {replay: async () => history.last()!},
        key: 'threads-key',
      })
      page = await browser.newPage()
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`)
      })
      await page.goto(server.url)
      await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})
    }, 60_000)

    afterAll(async () => {
      await page?.close()
      await server?.close()
      await browser?.close()
    })

    const row = (updateId: number) => page.locator(`#rows tr[data-update-id="${updateId}"]`)

    it('each row shows its kinds and its step; the kind filter keeps one kind', async () => {
      await page.waitForSelector(`#rows tr[data-update-id="${ids.refund}"]`)
      expect(await row(ids.query).locator('td.kinds .kind').allTextContents()).toEqual([
        'payment',
        'the pre-checkout query',
      ])
      expect(await row(ids.reaction).locator('td.kinds .kind').allTextContents()).toEqual(['reaction'])
      expect(await row(ids.query).locator('td.calls').textContent()).toBe('answerPreCheckoutQuerylocal')
      await page.selectOption('#filter-tag', 'payment')
      await waitFor(async () => (await row(ids.reaction).isHidden()) && (await row(ids.paid).isVisible()), {
        what: 'only payments shown',
      })
      expect(await page.locator('#count').textContent()).toBe('4 of 5 updates')
      await page.selectOption('#filter-tag', '')
      expect(problems).toEqual([])
    })

    it('the detail view shows the whole purchase as one thread; a step opens its update', async () => {
      await row(ids.query).click()
      await page.waitForSelector('#detail-thread:not([hidden])')
      const steps = page.locator('#detail-thread-steps li')
      expect(await steps.evaluateAll((items) => items.map((i) => (i as HTMLElement).dataset.step))).toEqual([
        'invoice',
        'pre_checkout',
        'payment',
        'refund',
      ])
      expect(await steps.nth(0).textContent()).toContain('sendInvoice')
      expect(await steps.nth(1).getAttribute('class')).toBe('current')
      expect(await steps.nth(1).textContent()).toContain('answerPreCheckoutQuery')
      expect(await steps.nth(2).textContent()).toContain('5 XTR · stxCHARGE')
      // The pre-checkout answer came from the api proxy: the card says so.
      const card = page.locator('#detail-calls .call-card[data-method="answerPreCheckoutQuery"]')
      expect(await card.locator('.title').textContent()).toContain('answered locally')
      // A step is a link to its update.
      await steps.nth(0).locator('button').click()
      await waitFor(async () => (await page.locator('#detail-title').textContent()) === `update ${ids.buy} · message`, {
        what: 'the invoice update opened',
      })
      const invoice = page.locator('#detail-calls .call-card[data-method="sendInvoice"]')
      expect(await invoice.locator('.result').textContent()).toContain('result: message 2')
      // An update outside any thread shows none.
      await row(ids.reaction).click()
      await waitFor(async () => await page.locator('#detail-thread').isHidden(), {what: 'no thread'})
      expect(problems).toEqual([])
    })
  })
})
