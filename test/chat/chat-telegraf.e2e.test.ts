/**
 * The chat page in chromium against a real Telegraf bot on the emulator: text both ways, MarkdownV2 (a spoiler hidden
 * until clicked), an inline button whose answer is a toast and whose edit shows in place, a poll voted in.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {browserSkipReason} from '../support/browser.js'
import {startTelegraf, type RunningBot} from './bots.js'
import {botMessage, launchChromium, openChat, startRig, type ChatRig, type} from './helpers.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/chat-telegraf.e2e.test.ts skipped: ${skip}`)

describe.skipIf(skip !== undefined)('the chat page with a Telegraf bot', () => {
  let browser: Browser
  let rig: ChatRig
  let bot: RunningBot
  let page: Page
  const problems: string[] = []

  beforeAll(async () => {
    browser = await launchChromium()
    rig = await startRig({username: 'telegraf_chat_bot'})
    bot = await startTelegraf(rig.emu.apiRoot, rig.token)
    page = await openChat(browser, `${rig.url}?user=8001&name=Tom`, problems)
  })
  afterAll(async () => {
    await page?.close()
    await browser?.close()
    await bot?.stop()
    await rig?.close()
  })
  afterEach(() => {
    expect(problems).toEqual([])
  })

  it('starts, echoes, and draws MarkdownV2 with its spoiler', async () => {
    await page.click('#start')
    await botMessage(page, 'Telegraf welcomes you').waitFor()
    await type(page, 'ping')
    await botMessage(page, 'telegraf echo: ping').waitFor()
    await type(page, 'bold')
    const m = botMessage(page, 'strong')
    await m.waitFor()
    expect(await m.locator('strong').textContent()).toBe('strong')
    expect(await m.locator('code').textContent()).toBe('code')
    await m.locator('.spoiler').click()
    expect(await m.locator('.spoiler').getAttribute('class')).toContain('revealed')
  })

  it('presses an inline button: the toast, then the edit in place', async () => {
    await type(page, 'buttons')
    await botMessage(page, 'Telegraf keyboard').locator('button:has-text("Press")').click()
    await page.waitForFunction(() => document.querySelector('#toast')!.textContent === 'Telegraf toast')
    await botMessage(page, 'Telegraf edited').waitFor()
    expect(await page.locator('.msg', {hasText: 'Telegraf keyboard'}).count()).toBe(0)
  })

  it('votes in its poll', async () => {
    await type(page, 'poll')
    const poll = botMessage(page, 'Telegraf poll?')
    await poll.waitFor()
    await poll.locator('.option[data-index="0"] button').click()
    await poll.locator('.option[data-index="0"]', {hasText: '100% ✓ yes'}).waitFor()
  })
})
