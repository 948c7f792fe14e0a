/** Smoke tests: the three frameworks the templates use, polling the emulator: /start gets its reply. */
import {Bot as GrammyBot} from 'grammy'
import {Bot as GramioBot} from 'gramio'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

describe('real frameworks in polling mode against the emulator', () => {
  it('grammY', async () => {
    const {emu, token} = await setup()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.command('start', (ctx) => ctx.reply(`Hello from grammY, ${ctx.from?.first_name}`))
    const running = bot.start({drop_pending_updates: false})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      emu.sendUserMessage(token, {text: '/start', userId: 77, firstName: 'Kim'})
      const reply = await emu.waitForBotMessage(token, {chatId: 77})
      expect(reply).toMatchObject({method: 'sendMessage', params: {chat_id: '77', text: 'Hello from grammY, Kim'}})
      expect(emu.calls(token).map((c) => c.method)).toContain('deleteWebhook')
    } finally {
      await bot.stop()
      await running
    }
    expect(emu.pendingUpdates(token)).toEqual([]) // grammY confirms the last offset on stop
  })

  it('Telegraf', async () => {
    const {emu, token} = await setup()
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    bot.start((ctx) => ctx.reply(`Hello from Telegraf, ${ctx.from.first_name}`))
    let launched = false
    const running = bot.launch(() => {
      launched = true
    })
    try {
      await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
      emu.sendUserMessage(token, {text: '/start', userId: 78, firstName: 'Lee'})
      const reply = await emu.waitForBotMessage(token, {chatId: 78})
      expect(reply).toMatchObject({method: 'sendMessage', params: {chat_id: '78', text: 'Hello from Telegraf, Lee'}})
    } finally {
      bot.stop('test over')
      await running
    }
  })

  it('GramIO', async () => {
    const {emu, token} = await setup()
    const bot = new GramioBot(token, {api: {baseURL: `${emu.apiRoot}/bot`}})
    bot.command('start', (ctx) => ctx.send(`Hello from GramIO, ${ctx.from?.firstName}`))
    await bot.start({longPolling: {timeout: 1}})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'GramIO to poll'})
      emu.sendUserMessage(token, {text: '/start', userId: 79, firstName: 'Max'})
      const reply = await emu.waitForBotMessage(token, {chatId: 79})
      expect(reply).toMatchObject({method: 'sendMessage', params: {chat_id: '79', text: 'Hello from GramIO, Max'}})
    } finally {
      await waitFor(() => emu.isLongPolling(token), {what: 'GramIO to poll again'})
      await bot.stop()
      // GramIO lets its last getUpdates (timeout 1 s) finish instead of aborting it
      await waitFor(() => !emu.isLongPolling(token), {what: 'GramIO to leave its last poll'})
    }
  })
})
