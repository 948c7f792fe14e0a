/**
 * Issue 31 item 15: the templates' payment tests failed at load 7 (grammY's /buy: status
 * 'timeout' instead of 'paid'): a sped-up emulator (timeScale 0.01) gave the bot 10 s × 0.01 =
 * 100 ms to answer the pre-checkout query. preCheckoutWindowMs keeps Telegram's 10 s while every
 * other delay stays sped up. (Polls answered at stop, the other half of item 15: polling.test.ts.)
 */
import {Bot} from 'grammy'
import {afterEach, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'

let emu: BotApiEmulator | undefined
afterEach(async () => {
  await emu?.stop()
  emu = undefined
})

it('preCheckoutWindowMs keeps a sped-up payment window at the time given', async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01, preCheckoutWindowMs: 10_000})
  const {token} = emu.createBot({username: 'window_bot'})
  const bot = new Bot(token, {client: {apiRoot: emu.apiRoot}})
  // The answer comes after 300 ms: past 10 s × 0.01 = 100 ms, well within the 10 s given.
  bot.on('pre_checkout_query', async (ctx) => {
    await new Promise((r) => setTimeout(r, 300))
    await ctx.answerPreCheckoutQuery(true)
  })
  void bot.start()
  try {
    const link = await bot.api.createInvoiceLink('T', 'D', 'p', '', 'XTR', [{label: 'x', amount: 1}])
    const {payment} = await emu.user(token, {firstName: 'Ada'}).pay(link)
    expect(payment.status).toBe('paid')
  } finally {
    await bot.stop()
  }
})
