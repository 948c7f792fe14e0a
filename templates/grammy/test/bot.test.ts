/**
 * The bot's handlers against the Bot API emulator from bot-cli: no token, no network. The bot
 * runs in this process with long polling; a fake user sends messages and presses buttons, and the
 * test checks what the bot sent. `npm test` runs it.
 */
import {BotApiEmulator} from 'bot-cli/emulator'
import {afterAll, beforeAll, expect, it} from 'vitest'

import {createBot} from '../src/bot.js'

let emu: BotApiEmulator
let token: string
let bot: ReturnType<typeof createBot>
const errors: unknown[] = []

beforeAll(async () => {
  // Delays sped up 100×, but the bot keeps Telegram's 10 s to answer a pre-checkout query (a busy machine).
  emu = await BotApiEmulator.start({timeScale: 0.01, preCheckoutWindowMs: 10_000}) // 127.0.0.1, a free port
  token = emu.createBot({username: 'test_bot'}).token
  bot = createBot({token, apiRoot: emu.apiRoot, onError: (err) => errors.push(err), testCommands: true})
  void bot.start() // long polling against the emulator; resolves when stopped
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

it('/buy sends a Stars invoice; paying it is thanked, and the charge kept for /refund', async () => {
  // A user of the conversation API: send() and pay() resolve once the bot has handled the update.
  const ada = emu.user(token, {firstName: 'Ada', settleMs: 50})
  const [invoice] = await ada.send('/buy')
  expect(invoice.invoice).toMatchObject({title: 'Supporter pass', currency: 'XTR', total_amount: 1})
  // The emulator runs the payment as Telegram does: pre_checkout_query (answered ok within 10 s), then
  // the successful_payment message; no real Star moves.
  const {payment, replies} = await ada.pay()
  expect(payment.status).toBe('paid')
  expect(replies.map((m) => m.text)).toEqual([
    'Thank you for your support! Your supporter pass is active. (/refund gives your Star back.)',
  ])
  // The charge id was kept in the chat's session: /refund refunds that very payment.
  expect((await ada.send('/refund')).map((m) => m.text)).toEqual(['Refunded: your Star is back.'])
  const refund = emu.calls(token).find((call) => call.method === 'refundStarPayment')
  expect(refund?.params.telegram_payment_charge_id).toBe(payment.chargeId)
  expect(refund?.error).toBeUndefined()
})
