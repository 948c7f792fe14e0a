/**
 * The chat page's Mini App host in a real chromium: a Mini App written with telegram-web-app.js (loaded from
 * telegram.org, served offline by the proxy from @twa-dev/sdk) opened from a real grammY bot's reply keyboard
 * web_app button, and one written with @telegram-apps/sdk opened from a real Telegraf bot's: each sees its user,
 * its main button is drawn by the frame and pressed, the data reaches the bot as web_app_data and the app closes;
 * an invoice link is paid through the payment sheet (invoice_closed "paid", the bot gets successful_payment);
 * CloudStorage keeps a value; a popup, the back button and expand answer; initData is checked by
 * @telegram-apps/init-data-node with the bot's token as a third party would, and a tampered copy is refused.
 *
 * The apps are served over https with a self-signed certificate on 127.0.0.1 (web_app buttons take https only);
 * the chat page is mounted on the emulator's port as `bot emulator` does (./helpers.ts), the user types /start and
 * presses the reply keyboard's web_app button. Skipped (with the reason) only when no chromium is installed and CI
 * is not set.
 */
import {readFileSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:https'
import {mkdtempSync, rmSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createRequire} from 'node:module'
import {isValid} from '@telegram-apps/init-data-node'
import {Bot as GrammyBot} from 'grammy'
import type {Browser, Frame, FrameLocator, Page} from 'playwright-core'
import {Markup, Telegraf} from 'telegraf'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import type {BotApiEmulator} from '../../src/emulator/index.js'
import {runGrammy, runTelegraf} from '../emulator/bots.js'
import {browserSkipReason, launchChromium} from '../support/browser.js'
import {selfSignedCert} from '../support/tls.js'
import {waitFor} from '../support/wait.js'
import {type ChatRig, openChat, startRig, type} from './helpers.js'

const skip = browserSkipReason()
if (skip) console.warn(`test/chat/mini-apps.e2e.test.ts skipped: ${skip}`)

const FIXTURES = new URL('../fixtures/mini-apps/', import.meta.url)
const SDK_IIFE = createRequire(import.meta.url)
  .resolve('@telegram-apps/sdk')
  .replace(/index\.(c?js)$/, 'index.iife.js')

/** The apps' own server: https on 127.0.0.1 with a self-signed certificate, as a dev server with basic-ssl. */
async function startAppServer(dir: string): Promise<{base: string; server: Server}> {
  const {keyFile, certFile} = selfSignedCert(dir, {cn: '127.0.0.1', san: 'IP:127.0.0.1'})
  const server = createServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, async (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname
    try {
      if (path === '/sdk.iife.js') {
        res.writeHead(200, {'content-type': 'text/javascript'})
        res.end(await readFile(SDK_IIFE))
      } else if (path === '/twa.html' || path === '/sdk.html') {
        res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY'})
        res.end(await readFile(new URL(path.slice(1), FIXTURES)))
      } else {
        res.writeHead(404)
        res.end()
      }
    } catch {
      res.writeHead(500)
      res.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, server}
}

/** The first button of the reply keyboard the bot sent last (its sendMessage call, as recorded). */
function keyboardButton(emu: BotApiEmulator, token: string): {text: string; web_app: {url: string}} {
  const calls = emu.calls(token)
  for (let i = calls.length - 1; i >= 0; i--) {
    const markup = calls[i].params.reply_markup as {keyboard?: Array<Array<{text: string; web_app: {url: string}}>>}
    if (markup?.keyboard) return markup.keyboard[0][0]
  }
  throw new Error('the bot sent no reply keyboard')
}

/** The same initData with the user's first name changed, its hash kept. */
function tampered(initData: string): string {
  const params = new URLSearchParams(initData)
  const user = JSON.parse(params.get('user') ?? '{}') as Record<string, unknown>
  params.set('user', JSON.stringify({...user, first_name: 'Mallory'}))
  return params.toString()
}

describe.skipIf(skip !== undefined)('Mini Apps in the chat page, in chromium', () => {
  let browser: Browser
  let dir: string
  let app: {base: string; server: Server}
  let rig: ChatRig
  let emu: BotApiEmulator
  let token: string
  let page: Page
  let stopBot: (() => Promise<void>) | undefined
  const problems: string[] = []

  beforeAll(async () => {
    browser = await launchChromium()
    dir = mkdtempSync(join(tmpdir(), 'mini-app-'))
    app = await startAppServer(dir)
  })

  afterAll(async () => {
    await browser?.close()
    app?.server.closeAllConnections()
    await new Promise((r) => app?.server.close(r))
    rmSync(dir, {recursive: true, force: true})
  })

  beforeEach(async () => {
    rig = await startRig({username: 'shop_bot'})
    emu = rig.emu
    token = rig.token
    problems.length = 0
  })

  afterEach(async () => {
    await page?.close()
    await stopBot?.()
    stopBot = undefined
    await rig?.close()
  })

  /** The chat page, once the bot runs. */
  async function openPage(): Promise<void> {
    page = await openChat(browser, rig.url, problems)
    await page.waitForFunction(() => document.documentElement.dataset.miniapps === 'ready', undefined, {
      timeout: 10_000,
    })
  }

  /** The user sends /start in the page and presses the web_app button of the bot's reply keyboard. */
  async function pressKeyboardButton(text: string): Promise<FrameLocator> {
    await type(page, '/start')
    await page.locator('#reply-keyboard button', {hasText: text}).click({timeout: 15_000})
    await page.waitForSelector('.bc-miniapp[data-state="ready"]', {timeout: 15_000})
    return page.frameLocator('.bc-miniapp iframe')
  }

  async function pageUser(): Promise<{id: number; first_name: string}> {
    return (await page.evaluate(() => fetch('/api/config').then((r) => r.json()))).user
  }

  /** What the chat page does on a web_app button press (its event, sent by hand). */
  async function open(detail: Record<string, unknown>): Promise<FrameLocator> {
    await page.evaluate((d) => window.dispatchEvent(new CustomEvent('bot-chat:open-web-app', {detail: d})), detail)
    await page.waitForSelector('.bc-miniapp[data-state="ready"]', {timeout: 15_000})
    return page.frameLocator('.bc-miniapp iframe')
  }

  async function appFrame(): Promise<Frame> {
    const handle = await page.waitForSelector('.bc-miniapp iframe', {timeout: 10_000})
    const frame = await handle.contentFrame()
    if (!frame) throw new Error('no frame')
    return frame
  }

  async function logOf(frame: FrameLocator): Promise<string> {
    return (await frame.locator('#log').textContent()) ?? ''
  }

  async function payThroughSheet(frame: FrameLocator): Promise<void> {
    await frame.locator('#pay').click()
    await page.locator('[data-testid="miniapp-invoice"] button[data-id="pay"]').click({timeout: 10_000})
    await waitFor(async () => (await logOf(frame)).includes('invoice:paid'), {
      what: 'invoice_closed "paid" in the app',
      timeout: 15_000,
    })
  }

  it('a telegram-web-app.js app from a grammY reply keyboard: user, main button → web_app_data, invoice, storage', async () => {
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    const link = (await bot.api.raw.createInvoiceLink({
      title: 'Coffee',
      description: 'One cup',
      payload: 'cup-1',
      currency: 'XTR',
      prices: [{label: 'Cup', amount: 5}],
    })) as string
    const received: Array<{data: string; button_text: string}> = []
    const payments: string[] = []
    const url = `${app.base}/twa.html?invoice=${encodeURIComponent(link)}`
    bot.command('start', (ctx) =>
      ctx.reply('Open the shop', {
        reply_markup: {keyboard: [[{text: 'Open shop', web_app: {url}}]], resize_keyboard: true},
      }),
    )
    bot.on('message:web_app_data', (ctx) => {
      received.push(ctx.message.web_app_data)
    })
    bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
    bot.on('message:successful_payment', (ctx) => {
      payments.push(ctx.message.successful_payment.invoice_payload)
    })
    stopBot = await runGrammy(emu, token, bot, 'polling')

    await openPage()
    let frame = await pressKeyboardButton('Open shop')
    const button = keyboardButton(emu, token)
    const user = await pageUser()
    const detail = {
      token,
      url: button.web_app.url,
      chatId: user.id,
      userId: user.id,
      source: 'keyboard',
      buttonText: button.text,
    }
    await expect.poll(() => frame.locator('#hello').textContent(), {timeout: 10_000}).toBe(`Hello, ${user.first_name}`)
    // the launch parameters reached the app: its platform, the version, the theme
    expect(await frame.locator('#platform').textContent()).toMatch(/^weba \d+\.\d+ #3390ec$/)
    const initData = (await frame.locator('#init-data').textContent()) ?? ''
    expect(isValid(initData, token)).toBe(true)
    expect(isValid(tampered(initData), token)).toBe(false)
    expect(isValid(initData, `${token}x`)).toBe(false)
    // telegram-web-app.js came from the proxy, not telegram.org
    expect(await (await appFrame()).evaluate(() => document.querySelector('script[src]')?.getAttribute('src'))).toBe(
      '/__bot/telegram-web-app.js',
    )

    // expand → viewport_changed; back button drawn by the frame → back_button_pressed
    await waitFor(async () => (await logOf(frame)).includes('viewport:true'), {what: 'viewport_changed'})
    await page.locator('.bc-miniapp .bc-back').click()
    await waitFor(async () => (await logOf(frame)).includes('back'), {what: 'back_button_pressed'})
    // showConfirm: a popup the frame draws; OK → true
    await frame.locator('#confirm').click()
    await page.locator('[data-testid="miniapp-popup"] button', {hasText: 'OK'}).click({timeout: 10_000})
    await waitFor(async () => (await logOf(frame)).includes('confirmed:true'), {what: 'popup_closed'})
    // CloudStorage kept by the emulator per bot and user
    await frame.locator('#store').click()
    await waitFor(async () => (await logOf(frame)).includes('stored:blue'), {what: 'CloudStorage round trip'})
    const kept = await fetch(`${emu.controlApiRoot}/bots/${token}/web_apps/cloud_storage`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({user_id: user.id, method: 'getStorageValues', params: {keys: ['color']}}),
    })
    expect(await kept.json()).toEqual({result: {color: 'blue'}})
    // the invoice: the sheet, the bot's pre-checkout answer, invoice_closed "paid"
    await payThroughSheet(frame)
    await waitFor(() => payments.includes('cup-1'), {what: 'successful_payment at the bot'})

    // the main button drawn by the frame; pressing it sends the data and the app closes
    const main = page.locator('.bc-miniapp .bc-main')
    await expect.poll(() => main.textContent(), {timeout: 10_000}).toBe('Send data')
    await main.click()
    await waitFor(() => received.length === 1, {what: 'web_app_data at the bot', timeout: 15_000})
    expect(received[0]).toEqual({data: JSON.stringify({from: 'twa', user: user.id}), button_text: 'Open shop'})
    await page.waitForSelector('.bc-miniapp', {state: 'detached', timeout: 10_000})

    // opened again from an inline button: sendData is not for it (Telegram allows it from a reply keyboard only)
    frame = await open({...detail, source: 'inline'})
    await page.locator('.bc-miniapp .bc-main').click()
    await page.waitForSelector('.bc-note', {timeout: 10_000})
    expect(received.length).toBe(1)
    expect(problems).toEqual([])
  })

  it('an @telegram-apps/sdk app from a Telegraf reply keyboard: user, main button → web_app_data, invoice, storage', async () => {
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    const link = (await bot.telegram.callApi('createInvoiceLink', {
      title: 'Tea',
      description: 'One pot',
      payload: 'pot-1',
      currency: 'XTR',
      prices: [{label: 'Pot', amount: 3}],
    } as never)) as unknown as string
    const received: Array<{data: string; button_text: string}> = []
    const payments: string[] = []
    const url = `${app.base}/sdk.html?invoice=${encodeURIComponent(link)}`
    bot.start((ctx) => ctx.reply('Open the tea shop', Markup.keyboard([Markup.button.webApp('Tea shop', url)])))
    bot.on('message', (ctx, next) => {
      const message = ctx.message as {
        web_app_data?: {data: string; button_text: string}
        successful_payment?: {invoice_payload: string}
      }
      if (message.web_app_data) received.push(message.web_app_data)
      if (message.successful_payment) payments.push(message.successful_payment.invoice_payload)
      return next()
    })
    bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
    stopBot = await runTelegraf(emu, token, bot, 'polling')

    await openPage()
    const frame = await pressKeyboardButton('Tea shop')
    const user = await pageUser()
    await expect.poll(() => frame.locator('#hello').textContent(), {timeout: 10_000}).toBe(`Hello, ${user.first_name}`)
    const initData = (await frame.locator('#init-data').textContent()) ?? ''
    expect(isValid(initData, token)).toBe(true)
    expect(isValid(tampered(initData), token)).toBe(false)

    await frame.locator('#store').click()
    await waitFor(async () => (await logOf(frame)).includes('stored:green'), {what: 'CloudStorage through the sdk'})
    await payThroughSheet(frame)
    await waitFor(() => payments.includes('pot-1'), {what: 'successful_payment at the bot'})

    const main = page.locator('.bc-miniapp .bc-main')
    await expect.poll(() => main.textContent(), {timeout: 10_000}).toBe('Send data')
    await main.click()
    await waitFor(() => received.length === 1, {what: 'web_app_data at the bot', timeout: 15_000})
    expect(received[0]).toEqual({data: JSON.stringify({from: 'sdk', user: user.id}), button_text: 'Tea shop'})
    await page.waitForSelector('.bc-miniapp', {state: 'detached', timeout: 10_000})
    expect(problems).toEqual([])
  })
})
