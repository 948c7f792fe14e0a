/**
 * The bot's handlers against the Bot API emulator from bot-cli: no token, no network. The bot
 * runs in this process with long polling; a fake user sends messages and presses buttons, and the
 * test checks what the bot sent. `npm test` runs it.
 */
import {BotApiEmulator} from 'bot-cli/emulator'
import {afterAll, beforeAll, expect, it} from 'vitest'

import {createBot} from '../src/bot.js'
import {close, createWebhookServer, listen} from '../src/http.js'
import {serveWebApp} from '../src/web-app.js'

let emu: BotApiEmulator
let token: string
let bot: ReturnType<typeof createBot>
const errors: unknown[] = []
/** The Mini App's public URL as the bot is told it (WEB_APP_URL); this test serves the app on loopback. */
const APP_URL = 'https://bot.example/app/'

beforeAll(async () => {
  // Delays sped up 100×, but the bot keeps Telegram's 10 s to answer a pre-checkout query (a busy machine).
  emu = await BotApiEmulator.start({timeScale: 0.01, preCheckoutWindowMs: 10_000}) // 127.0.0.1, a free port
  token = emu.createBot({username: 'test_bot'}).token
  bot = createBot({
    token,
    apiRoot: emu.apiRoot,
    onError: (err) => errors.push(err),
    webAppUrl: APP_URL,
    testCommands: true,
  })
  await bot.start() // long polling against the emulator, in the background until stop()
})

afterAll(async () => {
  await bot?.stop()
  await emu?.stop()
})

it('greets the user by name on /start', async () => {
  emu.sendUserMessage(token, {text: '/start', firstName: 'Ada', chatId: 1})
  const reply = await emu.waitForBotMessage(token, {chatId: 1})
  expect(reply.method).toBe('sendMessage')
  expect(String(reply.params.text)).toContain('Hello, Ada!')
})

it('echoes text', async () => {
  emu.sendUserMessage(token, {text: 'hello there', chatId: 2})
  const reply = await emu.waitForBotMessage(token, {chatId: 2})
  expect(reply.params.text).toBe('hello there')
})

it('/count counts per chat in the session, and the Reset button starts again', async () => {
  for (const n of [1, 2, 3]) {
    emu.sendUserMessage(token, {text: '/count', chatId: 3})
    const reply = await emu.waitForBotMessage(token, {chatId: 3})
    expect(reply.params.text).toBe(`Count: ${n}`)
  }
  emu.sendUserMessage(token, {text: '/count', chatId: 4}) // another chat has its own count
  expect((await emu.waitForBotMessage(token, {chatId: 4})).params.text).toBe('Count: 1')

  emu.sendCallbackQuery(token, {data: 'count:reset', chatId: 3}) // a press on the last message's button
  // answerCallbackQuery names no chat: look for it by method.
  const answer = await emu.waitForBotMessage(token, {predicate: (call) => call.method === 'answerCallbackQuery'})
  expect(answer).toMatchObject({method: 'answerCallbackQuery', params: {text: 'Count reset'}})
  const edit = await emu.waitForBotMessage(token, {chatId: 3})
  expect(edit).toMatchObject({method: 'editMessageText', params: {text: 'Count: 0 (reset)'}})

  emu.sendUserMessage(token, {text: '/count', chatId: 3})
  expect((await emu.waitForBotMessage(token, {chatId: 3})).params.text).toBe('Count: 1')
})

it('a handler that throws is logged, and the chat goes on', async () => {
  emu.sendUserMessage(token, {text: '/fail', chatId: 5})
  await expect.poll(() => errors.length, {timeout: 5000}).toBe(1)
  expect(String(errors[0])).toContain('deliberate failure')
  emu.sendUserMessage(token, {text: 'still here?', chatId: 5})
  expect((await emu.waitForBotMessage(token, {chatId: 5})).params.text).toBe('still here?')
  await expect.poll(() => emu.pendingUpdates(token).length, {timeout: 5000}).toBe(0)
})

/**
 * The next message of the bot to `chatId` made with `method` (and with this text, if given). GramIO confirms an
 * update as soon as it fetches it, before its handler runs, so what user.send() gathers may come short on a busy
 * machine: a test waits for each reply by what it is.
 */
function reply(chatId: number, method: string, text?: string) {
  return emu.waitForBotMessage(token, {
    chatId,
    timeoutMs: 20_000,
    predicate: (call) => call.method === method && (text === undefined || call.params.text === text),
  })
}

it('/buy sends a Stars invoice; paying it is thanked, and the charge kept for /refund', async () => {
  const ada = emu.user(token, {firstName: 'Ada'})
  await ada.send('/buy')
  const invoice = (await reply(ada.chatId, 'sendInvoice')).result as {invoice?: unknown}
  expect(invoice.invoice).toMatchObject({title: 'Supporter pass', currency: 'XTR', total_amount: 1})
  // The emulator runs the payment as Telegram does: pre_checkout_query (answered ok within 10 s), then
  // the successful_payment message; no real Star moves.
  const {payment} = await ada.pay()
  expect(payment.status).toBe('paid')
  await reply(
    ada.chatId,
    'sendMessage',
    'Thank you for your support! Your supporter pass is active. (/refund gives your Star back.)',
  )
  // The charge id was kept in the chat's session: /refund refunds that very payment.
  await ada.send('/refund')
  await reply(ada.chatId, 'sendMessage', 'Refunded: your Star is back.')
  const refund = emu.calls(token).find((call) => call.method === 'refundStarPayment')
  expect(refund?.params.telegram_payment_charge_id).toBe(payment.chargeId)
  expect(refund?.error).toBeUndefined()
}, 60_000)

it('/app sends the Mini App button; the app opened through the emulator is accepted by the bot’s check, a tampered copy refused', async () => {
  const ada = emu.user(token, {firstName: 'Ada'})
  await ada.send('/app')
  const message = (await reply(ada.chatId, 'sendMessage')).result
  expect(message).toMatchObject({reply_markup: {inline_keyboard: [[{text: 'Open the app', web_app: {url: APP_URL}}]]}})
  // The emulator opens it as Telegram's web client does: the launch parameters in the URL's hash,
  // initData signed with the bot's token.
  const launch = ada.launchWebApp({url: APP_URL})
  expect(new URLSearchParams(new URL(launch.url).hash.slice(1)).get('tgWebAppData')).toBe(launch.initData)

  // The bot's own HTTP server (src/http.ts, as main.ts runs it in webhook mode) with the Mini App's routes.
  const server = createWebhookServer(
    {port: 0, path: '/webhook', secret: 'unused'},
    (_req, res) => void res.writeHead(404).end(),
    (err) => errors.push(err),
    undefined,
    (req, res) => serveWebApp(req, res, token),
  )
  const port = await listen(server, 0)
  try {
    const app = `http://127.0.0.1:${port}/app/`
    const page = await fetch(app)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('https://telegram.org/js/telegram-web-app.js')

    const check = (initData: string) => fetch(`${app}check`, {method: 'POST', body: initData})
    const accepted = await check(launch.initData)
    expect(accepted.status).toBe(200)
    expect(await accepted.json()).toMatchObject({ok: true, user: {first_name: 'Ada'}})
    // Someone edits the user in the data (Ada → Eve): the hash no longer matches.
    const tampered = launch.initData.replace('Ada', 'Eve')
    expect(tampered).not.toBe(launch.initData)
    expect((await check(tampered)).status).toBe(401)
    // Signed with another token (another bot's data): refused as well.
    const other = emu.createBot({username: 'other_bot'}).token
    const foreign = emu.user(other, {firstName: 'Ada'}).launchWebApp({url: APP_URL}).initData
    expect((await check(foreign)).status).toBe(401)
  } finally {
    await close(server)
  }
})
