/**
 * For the chat page's tests: the emulator with the chat page mounted at / of its own port (as `bot emulator` does),
 * a real grammY or Telegraf bot polling it in this process, and Debian's chromium (playwright-core) on the page.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, beforeEach, expect} from 'vitest'

import {createChatPage, type ChatPage} from '../../src/chat/server.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {launchChromium} from '../support/browser.js'
import type {RunningBot} from './bots.js'

/** A 2×2 PNG (red), as a bot or a user sends a photo. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
)

export interface ChatRig {
  emu: BotApiEmulator
  token: string
  page: ChatPage
  url: string
  close(): Promise<void>
}

/** The emulator, its bot (inline mode on), and the chat page at `/` of the emulator's port. */
export async function startRig(o: {username?: string} = {}): Promise<ChatRig> {
  const emu = await BotApiEmulator.start({timeScale: 1})
  const {token} = emu.createBot({username: o.username ?? 'chat_test_bot', supportsInlineQueries: true})
  const page = await createChatPage({emulator: emu, token, base: '/', exposeToken: true, heartbeatMs: 60_000})
  emu.servePage((req, res, path, search) => page.handle(req, res, path, search))
  return {
    emu,
    token,
    page,
    url: `${emu.apiRoot}/`,
    async close() {
      page.close()
      await emu.stop()
    },
  }
}

/** A page of the browser on the chat, once it has loaded (its problems collected: page errors, console errors). */
export async function openChat(browser: Browser, url: string, problems: string[]): Promise<Page> {
  // (a test opens the page as a user of its own: `?user=ID`, so its private chat starts empty)
  const page = await browser.newPage({viewport: {width: 1100, height: 800}})
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`)
  })
  await page.goto(url)
  await page.waitForSelector('body[data-ready="true"]', {timeout: 15_000})
  await page.waitForSelector('#status[data-state="live"]', {timeout: 15_000})
  return page
}

export {launchChromium}

/** Type a message into the composer and send it. */
export async function type(page: Page, text: string): Promise<void> {
  await page.fill('#input', text)
  await page.press('#input', 'Enter')
}

/** The bot's message whose text contains `text` (waits for it). */
export function botMessage(page: Page, text: string) {
  return page.locator('.msg[data-from="bot"]', {hasText: text}).last()
}

/** What a suite of the chat page's tests shares: chromium, the rig, its bot, and the page of the current test. */
export interface ChatSuite {
  browser: Browser
  rig: ChatRig
  bot: RunningBot
  /** The page of the running test, opened as a user of its own (`userId`) in their private chat with the bot. */
  page: Page
  userId: number
  /** Page errors and console errors of the running test (it fails when there are any). */
  problems: string[]
}

/**
 * The set-up every chat page suite repeats, as vitest hooks: chromium, the rig and `startBot` once; for each test a
 * new user (ids from `firstUserId` on, named `name`) opening the page, closed after it, with no page or console
 * error allowed. Call it inside the suite's describe; read the fields in the tests.
 */
export function useChatPage(o: {
  firstUserId: number
  name: string
  startBot: (apiRoot: string, token: string) => Promise<RunningBot>
  username?: string
}): ChatSuite {
  const suite = {userId: o.firstUserId, problems: [] as string[]} as ChatSuite
  beforeAll(async () => {
    suite.browser = await launchChromium()
    suite.rig = await startRig({username: o.username})
    suite.bot = await o.startBot(suite.rig.emu.apiRoot, suite.rig.token)
  })
  afterAll(async () => {
    await suite.browser?.close()
    await suite.bot?.stop()
    await suite.rig?.close()
  })
  beforeEach(async () => {
    suite.problems.length = 0
    suite.userId += 1
    suite.page = await openChat(suite.browser, `${suite.rig.url}?user=${suite.userId}&name=${o.name}`, suite.problems)
  })
  afterEach(async () => {
    await suite.page?.close()
    expect(suite.problems).toEqual([])
  })
  return suite
}
