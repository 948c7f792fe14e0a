/**
 * The inspector page in a real browser (Debian's chromium via playwright-core) against the real
 * server, a history fed by real webhook deliveries from the emulator and real sendMessage calls:
 * a new update shows within 1 s, the detail view shows its calls (a failing one in red), Replay and
 * Edit and replay re-deliver, the filters work, update text is never HTML.
 *
 * Skipped (with the reason) only when no chromium is installed and CI is not set.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import {browserSkipReason, launchChromium, startEchoSession, type EchoSession} from '../support/browser.js'
import {waitFor} from '../support/wait.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/inspector/browser.e2e.test.ts skipped: ${skip}`)

const XSS = '<img src=x onerror="window.__xss = 1">'

describe.skipIf(skip !== undefined)('the inspector page in chromium', () => {
  let browser: Browser
  let session: EchoSession
  let server: InspectorServer
  let page: Page
  const problems: string[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    session = await startEchoSession()
    server = await startInspectorServer({
      history: session.history,
      actions: session.actions,
      key: 'browser-test-key',
      secrets: [session.token],
    })
    page = await browser.newPage()
    problems.length = 0
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`)
    })
    await page.goto(server.url)
    await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})
  })

  afterEach(async () => {
    await page?.close()
    await server?.close()
    await session?.close()
  })

  function send(text: string, chatId = 4242): number {
    return session.emu.sendUserMessage(session.token, {text, chatId, userId: chatId, firstName: 'Ann'}).update_id
  }

  function rowSelector(updateId: number, extra = ''): string {
    return `#rows tr[data-update-id="${updateId}"]${extra}`
  }

  it('lists a new update as it is sent (pushed: no request from the page), with its answer and calls', async () => {
    expect(await page.locator('#empty').isVisible()).toBe(true)
    // "At once" without a stopwatch a loaded machine would beat: the row comes over the open event stream, so the page
    // asks the server for nothing between the send and the row (no poll, no reload, no reconnection).
    const asked: string[] = []
    const onRequest = (r: {url(): string}) => asked.push(r.url())
    page.on('request', onRequest)
    const id = send('hello inspector')
    await page.waitForSelector(rowSelector(id), {timeout: 30_000})
    page.off('request', onRequest)
    expect(asked).toEqual([])
    const row = page.locator(rowSelector(id))
    await waitFor(
      async () =>
        (await row.locator('td.calls').textContent()) === 'sendMessage' &&
        (await row.locator('td.answer').textContent())!.startsWith('200'),
      {what: 'the answer and the call in the row'},
    )
    expect(await row.locator('td.type').textContent()).toBe('message')
    expect(await row.locator('td.chat').textContent()).toBe('4242')
    expect(await row.locator('td.preview').textContent()).toBe('hello inspector')
    expect(await page.locator('#empty').isVisible()).toBe(false)
    expect(problems).toEqual([])
  })

  it('shows the calls in the detail view, a failed one in red with its description', async () => {
    const ok = send('fine')
    const bad = send('fail')
    const badRow = page.locator(rowSelector(bad))
    await waitFor(async () => (await badRow.locator('.call.failed').count()) === 1, {what: 'the failed call chip'})
    expect(await badRow.locator('.call.failed').textContent()).toBe('sendMessage 400')
    await page.waitForSelector(`${rowSelector(ok)} .call:not(.failed)`)
    const red = await badRow.locator('.call.failed').evaluate((n) => getComputedStyle(n).color)
    const green = await page.locator(`${rowSelector(ok)} .call`).evaluate((n) => getComputedStyle(n).color)
    expect(red).not.toBe(green)
    const [r, g] = red.match(/\d+/g)!.map(Number)
    expect(r).toBeGreaterThan(g)

    await badRow.click()
    await page.waitForSelector('#detail:not([hidden])')
    expect(await page.locator('#detail-title').textContent()).toBe(`update ${bad} · message`)
    const card = page.locator('#detail-calls .call-card')
    expect(await card.count()).toBe(1)
    expect(await card.getAttribute('class')).toBe('call-card failed')
    expect(await card.locator('.verdict').textContent()).toBe('error 400')
    expect(await card.locator('.description').textContent()).toBe(
      "Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 9",
    )
    expect(await card.locator('.explanation').textContent()).toContain('The text is not valid MarkdownV2')
    expect(JSON.parse((await card.locator('pre.params').textContent())!)).toEqual({
      chat_id: 4242,
      text: 'you said *fail',
      parse_mode: 'MarkdownV2',
    })
    expect(JSON.parse((await page.locator('#detail-update').textContent())!)).toMatchObject({
      update_id: bad,
      message: {text: 'fail'},
    })
    expect(await page.locator('#detail-answer-status').textContent()).toMatch(/^HTTP 200 in /)

    await page.locator(rowSelector(ok)).click()
    await waitFor(async () => (await page.locator('#detail-title').textContent()) === `update ${ok} · message`, {
      what: 'the detail of the other update',
    })
    expect(await page.locator('#detail-calls .call-card .verdict').textContent()).toBe('ok')
    expect(problems).toEqual([])
  })

  it('Replay re-delivers the update: the bot answers again and a new row appears', async () => {
    const id = send('say it twice')
    await page.waitForSelector(`${rowSelector(id)} .call`)
    expect(session.emu.sentMessages(session.token).filter((c) => c.params.text === 'say it twice')).toHaveLength(1)
    const before = session.handled()
    await page.locator(rowSelector(id)).click()
    await page.locator('#replay').click()
    await waitFor(() => session.handled() === before + 1, {what: 'the replay delivered'})
    await waitFor(
      () => session.emu.sentMessages(session.token).filter((c) => c.params.text === 'say it twice').length === 2,
      {what: 'the bot answered again'},
    )
    await page.waitForSelector(`#rows tr[data-update-id="${id}"] .tag`)
    expect(await page.locator(`#rows tr[data-update-id="${id}"]`).count()).toBe(2)
    expect(await page.locator('#rows tr').first().locator('.tag').textContent()).toBe(`replay of ${id}`)
    await waitFor(
      async () => (await page.locator('#action-result').textContent())!.startsWith(`Delivered again as update ${id}`),
      {what: 'the result line'},
    )
    // The detail view moved to the new delivery, with its own call.
    expect(await page.locator('#rows tr.selected .tag').textContent()).toBe(`replay of ${id}`)
    expect(await page.locator('#detail-meta').textContent()).toContain(`replay of ${id}`)
    expect(await page.locator('#detail-calls .call-card[data-method="sendMessage"] .verdict').textContent()).toBe('ok')
    expect(problems).toEqual([])
  })

  it('Edit and replay validates the JSON first, then delivers the edited update', async () => {
    const id = send('original text')
    await page.waitForSelector(`${rowSelector(id)} .call`)
    await page.locator(rowSelector(id)).click()
    await page.locator('#edit').click()
    const editor = page.locator('#editor-text')
    expect(JSON.parse(await editor.inputValue())).toMatchObject({update_id: id, message: {text: 'original text'}})
    const handled = session.handled()
    await editor.fill('{"update_id": 1, "message": ')
    await page.locator('#editor-send').click()
    expect(await page.locator('#editor-error').isVisible()).toBe(true)
    expect(await page.locator('#editor-error').textContent()).toMatch(/^Not valid JSON: /)
    await editor.fill('[1, 2]')
    await page.locator('#editor-send').click()
    expect(await page.locator('#editor-error').textContent()).toMatch(/must be a JSON object/)
    expect(session.handled()).toBe(handled)

    const update = JSON.parse((await page.locator('#detail-update').textContent())!) as {message: {text: string}}
    update.message.text = 'edited text'
    await editor.fill(JSON.stringify(update, null, 2))
    await page.locator('#editor-send').click()
    await waitFor(() => session.emu.sentMessages(session.token).some((c) => c.params.text === 'edited text'), {
      what: 'the edited update answered',
    })
    await waitFor(async () => !(await page.locator('#editor').isVisible()), {what: 'the editor closed'})
    await page.waitForSelector('#rows tr:first-child td.preview:text-is("edited text")')
    expect(problems).toEqual([])
  })

  it('opens a row from the keyboard', async () => {
    const id = send('keyboard')
    await page.waitForSelector(`${rowSelector(id)} .call`)
    await page.locator(rowSelector(id)).focus()
    await page.keyboard.press('Enter')
    await waitFor(async () => (await page.locator('#detail-title').textContent()) === `update ${id} · message`, {
      what: 'the detail view',
    })
  })

  it('filters by chat and by type', async () => {
    const a = send('from chat a', 1001)
    const b = send('from chat b', 1002)
    // A button press on the bot's answer in chat a.
    await page.waitForSelector(`${rowSelector(a)} .call`)
    const query = session.emu.sendCallbackQuery(session.token, {data: 'pressed', chatId: 1001, userId: 1001}).update_id
    for (const id of [a, b, query]) await page.waitForSelector(rowSelector(id))
    await page.locator('#filter-chat').selectOption('1002')
    expect(await page.locator('#rows tr:not([hidden])').count()).toBe(1)
    expect(await page.locator(rowSelector(b)).isVisible()).toBe(true)
    expect(await page.locator('#count').textContent()).toBe('1 of 3 updates')
    await page.locator('#filter-chat').selectOption('')
    await page.locator('#filter-type').selectOption('callback_query')
    expect(await page.locator('#rows tr:not([hidden])').count()).toBe(1)
    expect(await page.locator(rowSelector(query)).isVisible()).toBe(true)
    await page.locator('#filter-type').selectOption('')
    expect(await page.locator('#rows tr:not([hidden])').count()).toBe(3)
  })

  it('shows update text as text: an <img onerror> message stays inert', async () => {
    const id = send(XSS)
    await page.waitForSelector(`${rowSelector(id)} .call`)
    expect(await page.locator(`${rowSelector(id)} td.preview`).textContent()).toBe(XSS)
    await page.locator(rowSelector(id)).click()
    await page.waitForSelector('#detail:not([hidden])')
    expect(await page.locator('#detail-update').textContent()).toContain('<img src=x onerror=\\"window.__xss = 1\\">')
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as {__xss?: number}).__xss)).toBeUndefined()
    expect(problems).toEqual([])
  })

  it('without the key shows only where to find the URL', async () => {
    const bare = await browser.newPage()
    try {
      const response = await bare.goto(server.url.replace(/\?key=.*/, ''))
      expect(response?.status()).toBe(401)
      expect(await bare.locator('h1').textContent()).toBe('Key required')
    } finally {
      await bare.close()
    }
  })
})
