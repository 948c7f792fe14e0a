/**
 * How to test a bot with the emulator: the echo bot (../echo-bot) runs in this process against a
 * BotApiEmulator, a fake user talks to it, and the test asserts on what the bot sent.
 *
 * In your own project: `npm i -D bot-cli vitest`, then import {BotApiEmulator} from 'bot-cli/emulator'.
 * (This repository imports its own package by name too: run `npm run build` first.)
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {BotApiEmulator} from 'bot-cli/emulator'
import {webhookCallback, type Bot} from 'grammy'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createEchoBot} from '../echo-bot/src/bot.js'

describe('echo bot, long polling', () => {
  let emu: BotApiEmulator
  let token: string
  let bot: Bot

  beforeAll(async () => {
    emu = await BotApiEmulator.start() // 127.0.0.1, a free port
    token = emu.createBot({username: 'echo_test_bot'}).token
    bot = createEchoBot(token, {apiRoot: emu.apiRoot})
    void bot.start() // long polling against the emulator; resolves when stopped
  })

  afterAll(async () => {
    await bot.stop()
    await emu.stop()
  })

  it('greets the user by name on /start', async () => {
    emu.sendUserMessage(token, {text: '/start', firstName: 'Ada'})
    const reply = await emu.waitForBotMessage(token)
    expect(reply.method).toBe('sendMessage')
    expect(reply.params.text).toBe('Hi Ada! I echo what you send. /help lists what I can do.')
  })

  it('echoes text back in the same chat', async () => {
    emu.sendUserMessage(token, {text: 'hello there', chatId: 5150, userId: 5150})
    const reply = await emu.waitForBotMessage(token, {chatId: 5150})
    // params are what the bot sent, scalars as text (as the server reads them); result is the Message it got back.
    expect(reply.params).toMatchObject({chat_id: '5150', text: 'hello there'})
    expect(reply.result).toMatchObject({chat: {id: 5150, type: 'private'}, text: 'hello there', from: {is_bot: true}})
  })

  it('asks with buttons, and a press is answered and edits the question', async () => {
    emu.sendUserMessage(token, {text: '/ask'})
    const question = await emu.waitForBotMessage(token)
    expect(question.params.reply_markup).toEqual({
      inline_keyboard: [
        [
          {text: 'Yes', callback_data: 'like:yes'},
          {text: 'No', callback_data: 'like:no'},
        ],
      ],
    })
    const messageId = (question.result as {message_id: number}).message_id

    emu.sendCallbackQuery(token, {data: 'like:yes', messageId})
    const answer = await emu.waitForBotMessage(token)
    expect(answer).toMatchObject({method: 'answerCallbackQuery', params: {text: 'Thanks!'}})
    const edit = await emu.waitForBotMessage(token)
    expect(edit).toMatchObject({
      method: 'editMessageText',
      params: {message_id: String(messageId), text: 'You like it. 🎉'},
    })
  })
})

describe('echo bot, webhook (the same code as in production)', () => {
  let emu: BotApiEmulator
  let token: string
  let server: Server

  beforeAll(async () => {
    emu = await BotApiEmulator.start() // local mode: http webhooks on any port are allowed
    token = emu.createBot().token
    const bot = createEchoBot(token, {apiRoot: emu.apiRoot})
    const handle = webhookCallback(bot, 'http', {secretToken: 'test-secret'})
    server = createServer((req, res) => void handle(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`
    const res = await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url, secret_token: 'test-secret'}),
    })
    expect(await res.json()).toEqual({ok: true, result: true, description: 'Webhook was set'})
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    await emu.stop()
  })

  it('replies to an update delivered to the webhook, and acknowledges it', async () => {
    const update = emu.sendUserMessage(token, {text: '/help'})
    const reply = await emu.waitForBotMessage(token)
    expect(reply.params.text).toContain('/ask – a question with buttons')
    await expect.poll(() => emu.pendingUpdates(token).some((u) => u.update_id === update.update_id)).toBe(false)
    expect(emu.getWebhookInfo(token)).toMatchObject({pending_update_count: 0})
    expect(emu.getWebhookInfo(token).last_error_message).toBeUndefined()
  })
})

describe('echo bot, the conversation API (a user who talks to it)', () => {
  let emu: BotApiEmulator
  let token: string
  let bot: Bot

  beforeAll(async () => {
    emu = await BotApiEmulator.start()
    token = emu.createBot().token
    bot = createEchoBot(token, {apiRoot: emu.apiRoot})
    void bot.start()
  })

  afterAll(async () => {
    await bot.stop()
    await emu.stop()
  })

  it('greets, echoes, and edits the question when a button is pressed', async () => {
    const ada = emu.user(token, {firstName: 'Ada'})
    // send() resolves once the bot has handled the message, with what it sent in the chat
    const [hello] = await ada.send('/start')
    expect(hello.text).toBe('Hi Ada! I echo what you send. /help lists what I can do.')
    expect((await ada.send('hello there')).map((m) => m.text)).toEqual(['hello there'])

    await ada.send('/ask')
    const [edited] = await ada.click('Yes') // the inline button labelled "Yes" on the last message that has it
    expect(edited.text).toBe('You like it. 🎉')
    // the chat as Ada sees it: the question was edited in place
    expect(ada.chat.map((m) => m.text)).toEqual([
      '/start',
      'Hi Ada! I echo what you send. /help lists what I can do.',
      'hello there',
      'hello there',
      '/ask',
      'You like it. 🎉',
    ])
  })

  it("a failed send is the bot's problem to survive: the user blocked it", async () => {
    const bo = emu.user(token, {firstName: 'Bo'})
    emu.failNext(token, 'sendMessage', {errorCode: 403, description: 'Forbidden: bot was blocked by the user'})
    expect(await bo.send('anyone there?')).toEqual([]) // the reply failed, the bot went on
    expect((await bo.send('and now?')).map((m) => m.text)).toEqual(['and now?'])
  })
})
