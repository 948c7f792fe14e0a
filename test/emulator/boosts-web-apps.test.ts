/**
 * Boosts and Mini Apps with real grammY and Telegraf bots in both modes: a Mini App opened from a reply-keyboard
 * button sends data (web_app_data); a Mini App opened with a query is answered with answerWebAppQuery (the message
 * then sent on the user's behalf via the bot); a user boosts a supergroup (chat_boost, boost_added) and takes it back
 * (removed_chat_boost); getUserChatBoosts.
 */
import {Bot as GrammyBot, Keyboard} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const SUPERGROUP = -1009876543210
const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'

function grammyBot(token: string, apiRoot: string) {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  const boosts: string[] = []
  bot.command('shop', (ctx) =>
    ctx.reply('Pick in the shop', {
      reply_markup: new Keyboard().webApp('Open shop', 'https://example.com/shop').resized(),
    }),
  )
  bot.on('message:web_app_data', (ctx) => {
    const order = JSON.parse(ctx.message.web_app_data.data) as {item: string}
    return ctx.reply(`Order from "${ctx.message.web_app_data.button_text}": ${order.item}`)
  })
  bot.on('message:text', (ctx) => ctx.reply(`${ctx.message.via_bot ? 'via bot' : 'typed'}: ${ctx.message.text}`))
  bot.on('chat_boost', (ctx) => {
    boosts.push(`boost by ${(ctx.chatBoost.boost.source as {user: {first_name: string}}).user.first_name}`)
  })
  bot.on('removed_chat_boost', (ctx) => {
    boosts.push(`removed ${ctx.removedChatBoost.boost_id}`)
  })
  bot.on('message:boost_added', () => {
    boosts.push('service message')
  })
  return {bot, boosts}
}

async function miniApps(emu: BotApiEmulator, token: string) {
  const ada = emu.user(token, {firstName: 'Ada'})
  await ada.send('/shop')
  const replies = await ada.sendWebAppData(JSON.stringify({item: 'tea'}))
  expect(replies.map((m) => m.text)).toEqual(['Order from "Open shop": tea'])
  const data = ada.chat.find((m) => m.web_app_data)!
  expect(data).toMatchObject({from: {id: ada.id}, web_app_data: {data: '{"item":"tea"}', button_text: 'Open shop'}})
  // a Mini App opened with a query: its backend answers it through the bot
  const queryId = ada.openWebApp()
  const result = {type: 'article', id: '1', title: 'Order', input_message_content: {message_text: 'I ordered tea'}}
  const answer = await fetch(`${emu.apiRoot}/bot${token}/answerWebAppQuery`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({web_app_query_id: queryId, result}),
  }).then((r) => r.json())
  expect(answer).toEqual({ok: true, result: {}})
  await waitFor(() => ada.chat.some((m) => m.text === 'via bot: I ordered tea'), {
    what: 'the bot to see the message via itself',
  })
  const again = await fetch(`${emu.apiRoot}/bot${token}/answerWebAppQuery`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({web_app_query_id: queryId, result}),
  }).then((r) => r.json())
  expect(again).toEqual({ok: false, error_code: 400, description: QUERY_INVALID})
}

describe('Mini Apps and boosts', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: web_app_data, answerWebAppQuery, chat_boost`, async () => {
      const {emu, token} = await setup()
      const {bot, boosts} = grammyBot(token, emu.apiRoot)
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        await miniApps(emu, token)
        emu.setBotStatus(token, {chatId: SUPERGROUP, status: 'administrator', rights: ['can_manage_chat']})
        const [boost] = emu.boostChat(token, {chatId: SUPERGROUP, userId: 77, firstName: 'Bo'})
        expect(boost.chat_boost).toEqual({
          chat: {id: SUPERGROUP, title: 'Test Group', type: 'supergroup'},
          boost: {
            boost_id: expect.any(String),
            add_date: expect.any(Number),
            expiration_date: expect.any(Number),
            source: {source: 'premium', user: {id: 77, is_bot: false, first_name: 'Bo', username: 'tester'}},
          },
        })
        await waitFor(() => boosts.includes('boost by Bo') && boosts.includes('service message'), {
          what: 'the boost updates',
        })
        const mine = await bot.api.getUserChatBoosts(SUPERGROUP, 77)
        expect(mine.boosts.map((b) => b.boost_id)).toEqual([
          (boost.chat_boost as {boost: {boost_id: string}}).boost.boost_id,
        ])
        const id = mine.boosts[0].boost_id
        const removed = await control(emu, token, `/chats/${SUPERGROUP}/boosts/${id}/remove`, {})
        expect(removed.json.removed_chat_boost).toMatchObject({boost_id: id, source: {source: 'premium'}})
        await waitFor(() => boosts.includes(`removed ${id}`), {what: 'the removal'})
        expect((await bot.api.getUserChatBoosts(SUPERGROUP, 77)).boosts).toEqual([])
        // the conversation API: a member boosts their supergroup, resolved once the bot handled it
        const cy = emu.user(token, {firstName: 'Cy', chatId: SUPERGROUP})
        await cy.boost()
        expect(boosts.filter((b) => b === 'boost by Cy')).toHaveLength(1)
      } finally {
        await stop()
      }
    })

    it(`Telegraf, ${mode}: web_app_data and answerWebAppQuery`, async () => {
      const {emu, token} = await setup()
      const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
      bot.command('shop', (ctx) =>
        ctx.reply('Pick in the shop', {
          reply_markup: {
            keyboard: [[{text: 'Open shop', web_app: {url: 'https://example.com/shop'}}]],
            resize_keyboard: true,
          },
        }),
      )
      bot.on('message', (ctx) => {
        const message = ctx.message as unknown as {
          web_app_data?: {data: string; button_text: string}
          text?: string
          via_bot?: unknown
        }
        if (message.web_app_data) {
          const order = JSON.parse(message.web_app_data.data) as {item: string}
          return ctx.reply(`Order from "${message.web_app_data.button_text}": ${order.item}`)
        }
        return ctx.reply(`${message.via_bot ? 'via bot' : 'typed'}: ${message.text}`)
      })
      const stop = await runTelegraf(emu, token, bot, mode)
      try {
        await miniApps(emu, token)
      } finally {
        await stop()
      }
    })
  }

  it('no chat_boost for a bot that is no administrator; only channels and supergroups are boosted; errors', async () => {
    const {emu, token, api} = await setup()
    emu.setBotStatus(token, {chatId: SUPERGROUP, status: 'member'})
    expect(emu.boostChat(token, {chatId: SUPERGROUP}).map((u) => Object.keys(u)[1])).toEqual(['message'])
    expect(() => emu.boostChat(token, {chatId: -5})).toThrow('only channels and supergroups are boosted')
    // a chat the bot never saw, named by a user action: a supergroup (a -100 id) the bot administers
    const unseen = await control(emu, token, '/chats/-1005/boosts', {user_id: 3})
    expect(unseen.json.updates.map((u: object) => Object.keys(u)[1])).toEqual(['chat_boost', 'message'])
    emu.setBotStatus(token, {chatId: -1006, status: 'administrator', chatType: 'channel', title: 'News'})
    const boosted = await control(emu, token, '/chats/-1006/boosts', {user_id: 3})
    expect(boosted.json.updates.map((u: object) => Object.keys(u)[1])).toEqual(['chat_boost'])
    expect((await api('answerWebAppQuery', {web_app_query_id: 'x'})).json.description).toBe(
      "Bad Request: result isn't specified",
    )
    expect((await api('answerWebAppQuery', {web_app_query_id: 'x', result: '[1]'})).json.description).toBe(
      'Bad Request: inline query result must be an object',
    )
    expect((await api('answerWebAppQuery', {web_app_query_id: 'x', result: {type: 'article'}})).json.description).toBe(
      QUERY_INVALID,
    )
    const data = await control(emu, token, '/web_app_data', {user_id: 5, data: 'x'.repeat(4097), button_text: 'Go'})
    expect(data).toEqual({status: 400, json: {error: 'data is over 4096 bytes: sendData refuses it'}})
    const query = await control(emu, token, '/web_app_queries', {user_id: 5})
    expect(query.json.query_id).toMatch(/^AAH/)
  })
})
