/**
 * The conversation API (emu.user(token).send / click / chat) with real grammY and Telegraf bots, in long polling
 * and in webhook mode: send resolves once the bot has handled the update, with the messages it sent.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {Bot as GrammyBot, InlineKeyboard, Keyboard, webhookCallback} from 'grammy'
import {Markup, Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

function grammyBot(token: string, apiRoot: string): GrammyBot {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  bot.command('start', (ctx) => ctx.reply(`Hi ${ctx.from?.first_name}!`))
  bot.command('ask', (ctx) =>
    ctx.reply('Like it?', {
      reply_markup: new InlineKeyboard().text('Yes', 'yes').text('No', 'no').url('Docs', 'https://example.com'),
    }),
  )
  bot.command('menu', (ctx) => ctx.reply('Pick one', {reply_markup: new Keyboard().text('Tea').text('Coffee')}))
  bot.command('two', async (ctx) => {
    await ctx.reply('one')
    await new Promise((r) => setTimeout(r, 30)) // the handler is not done after its first call
    await ctx.reply('two')
  })
  bot.command('gone', async (ctx) => {
    const temp = await ctx.reply('temp')
    await ctx.api.deleteMessage(ctx.chat.id, temp.message_id)
    await ctx.reply('done')
  })
  bot.command('silent', () => undefined)
  bot.callbackQuery('yes', async (ctx) => {
    await ctx.answerCallbackQuery('Thanks!')
    await ctx.editMessageText('You like it.')
  })
  bot.callbackQuery('no', (ctx) => ctx.answerCallbackQuery())
  bot.hears(/^(Tea|Coffee)$/, (ctx) => ctx.reply(`${ctx.message?.text} it is`, {reply_markup: {remove_keyboard: true}}))
  bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
  return bot
}

function telegrafBot(token: string, apiRoot: string): Telegraf {
  const bot = new Telegraf(token, {telegram: {apiRoot}})
  bot.start((ctx) => ctx.reply(`Hi ${ctx.from.first_name}!`))
  bot.command('ask', (ctx) =>
    ctx.reply(
      'Like it?',
      Markup.inlineKeyboard([Markup.button.callback('Yes', 'yes'), Markup.button.callback('No', 'no')]),
    ),
  )
  bot.action('yes', async (ctx) => {
    await ctx.answerCbQuery('Thanks!')
    await ctx.editMessageText('You like it.')
  })
  bot.on('text', (ctx) => ctx.reply(ctx.message.text))
  return bot
}

/** A loopback HTTP server for a webhook handler, with setWebhook done; stopped by the returned function. */
async function serveWebhook(
  emu: BotApiEmulator,
  token: string,
  handler: http.RequestListener,
): Promise<() => Promise<void>> {
  const server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const res = await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url}),
  })
  expect(((await res.json()) as {ok: boolean}).ok).toBe(true)
  return async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

async function conversation(emu: BotApiEmulator, token: string) {
  const ada = emu.user(token, {firstName: 'Ada'})
  expect((await ada.send('/start')).map((m) => m.text)).toEqual(['Hi Ada!'])
  expect((await ada.send('hello')).map((m) => m.text)).toEqual(['hello'])
  const asked = await ada.send('/ask')
  expect(asked).toHaveLength(1)
  const clicked = await ada.click('Yes')
  expect(clicked).toEqual([
    expect.objectContaining({message_id: asked[0].message_id, text: 'You like it.', edit_date: expect.any(Number)}),
  ])
  expect(emu.sentMessages(token).at(-2)).toMatchObject({method: 'answerCallbackQuery', params: {text: 'Thanks!'}})
  // the chat as Ada sees it: her messages and the bot's, the question edited in place
  expect(ada.chat.map((m) => `${(m.from as {is_bot: boolean}).is_bot ? 'bot' : 'ada'}: ${String(m.text)}`)).toEqual([
    'ada: /start',
    'bot: Hi Ada!',
    'ada: hello',
    'bot: hello',
    'ada: /ask',
    'bot: You like it.',
  ])
  return ada
}

describe('conversation API, grammY', () => {
  it("long polling: send resolves with the replies once handled; click presses a button; chat is the user's view", async () => {
    const {emu, token} = await setup()
    const bot = grammyBot(token, emu.apiRoot)
    const running = bot.start()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      const ada = await conversation(emu, token)
      // a handler that keeps going after its first call: both replies, in order
      expect((await ada.send('/two')).map((m) => m.text)).toEqual(['one', 'two'])
      // a deleted message is gone from the chat; the replies are what the bot sent
      expect((await ada.send('/gone')).map((m) => m.text)).toEqual(['temp', 'done'])
      expect(ada.chat.map((m) => m.text)).not.toContain('temp')
      expect(await ada.send('/silent')).toEqual([])
      // a reply keyboard: click sends the button's text
      await ada.send('/menu')
      expect((await ada.click('Coffee')).map((m) => m.text)).toEqual(['Coffee it is'])
      await expect(ada.click('Tea')).rejects.toThrow('user.click("Tea"): no message in chat')
    } finally {
      await bot.stop()
      await running
    }
  })

  it('webhook: send resolves when the webhook was answered', async () => {
    const {emu, token} = await setup()
    const bot = grammyBot(token, emu.apiRoot)
    await bot.init()
    const stop = await serveWebhook(emu, token, webhookCallback(bot, 'http'))
    try {
      const ada = await conversation(emu, token)
      expect((await ada.send('/two')).map((m) => m.text)).toEqual(['one', 'two'])
    } finally {
      await stop()
    }
  })

  it("two users in their own chats do not see each other's replies", async () => {
    const {emu, token} = await setup()
    const bot = grammyBot(token, emu.apiRoot)
    const running = bot.start()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      const a = emu.user(token, {firstName: 'A'})
      const b = emu.user(token, {firstName: 'B'})
      expect(a.id).not.toBe(b.id)
      const [ra, rb] = await Promise.all([a.send('/start'), b.send('/start')])
      expect(ra.map((m) => m.text)).toEqual(['Hi A!'])
      expect(rb.map((m) => m.text)).toEqual(['Hi B!'])
    } finally {
      await bot.stop()
      await running
    }
  })
})

describe('conversation API, Telegraf', () => {
  it('long polling', async () => {
    const {emu, token} = await setup()
    const bot = telegrafBot(token, emu.apiRoot)
    let launched = false
    const running = bot.launch(() => {
      launched = true
    })
    try {
      await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
      await conversation(emu, token)
    } finally {
      bot.stop('test over')
      await running
    }
  })

  it('webhook', async () => {
    const {emu, token} = await setup()
    const bot = telegrafBot(token, emu.apiRoot)
    const stop = await serveWebhook(emu, token, bot.webhookCallback('/hook') as http.RequestListener)
    try {
      await conversation(emu, token)
    } finally {
      await stop()
    }
  })
})

describe('conversation API failures name what was expected and what the bot sent', () => {
  it('no bot running: send rejects at its deadline, saying where the update is', async () => {
    const {emu, token} = await setup()
    const user = emu.user(token, {firstName: 'Ada', timeoutMs: 300})
    await expect(user.send('/start')).rejects.toThrow(
      /^user\.send\("\/start"\): the bot did not finish handling update \d+ within 300 ms \(still queued: no webhook is set and no getUpdates is waiting \(is the bot running\?\)\); the bot made no calls$/,
    )
  })

  it("a webhook that fails: the error says so and lists the bot's calls", async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 500, type: 'private', first_name: 'Ada'})
    const stop = await serveWebhook(emu, token, (req, res) => {
      req.resume()
      void fetch(`${emu.apiRoot}/bot${token}/sendMessage`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({chat_id: 500, text: 'working on it'}),
      }).then(() => {
        res.writeHead(500)
        res.end()
      })
    })
    try {
      const user = emu.user(token, {id: 500, firstName: 'Ada', timeoutMs: 400})
      const error = await user.send('hi').catch((e: Error) => e)
      expect(error).toBeInstanceOf(Error)
      expect((error as Error).message).toMatch(
        /^user\.send\("hi"\): the bot did not finish handling update \d+ within 400 ms \(still queued for the webhook; last delivery error: Wrong response from the webhook: 500 Internal Server Error\); the bot's calls: sendMessage "working on it"/,
      )
    } finally {
      await stop()
    }
  })

  it('click on a button that is not there lists the buttons; a URL button cannot be pressed', async () => {
    const {emu, token} = await setup()
    const bot = grammyBot(token, emu.apiRoot)
    const running = bot.start()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      const user = emu.user(token, {firstName: 'Ada'})
      await user.send('/ask')
      await expect(user.click('Maybe')).rejects.toThrow(
        `user.click("Maybe"): no message in chat ${user.chatId} has a button "Maybe"; the buttons there: [Yes] [No] [Docs]; the chat: user: "/ask", bot: "Like it?"`,
      )
      await expect(user.click('Docs')).rejects.toThrow(
        /the button "Docs" of message \d+ is a url button, not a callback button/,
      )
      await expect(user.send('')).rejects.toThrow('user.send: the text must be a non-empty string')
    } finally {
      await bot.stop()
      await running
    }
  })

  it('a pending send rejects when the emulator stops', async () => {
    const {emu, token} = await setup()
    const pending = emu.user(token).send('hello')
    await emu.stop()
    await expect(pending).rejects.toThrow('user.send("hello"): the emulator was stopped')
  })
})
