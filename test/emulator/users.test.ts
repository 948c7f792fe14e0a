/**
 * A user is one person. The profile a user first wrote with (or the control API set) is the one
 * every later update carries, a button press included; `chat_instance` is one per chat, as Telegram keeps it.
 */
import {Markup, Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

describe('the user behind a button', () => {
  it('Telegraf sees the same Ada in her message and in her button presses; chat_instance is stable per chat', async () => {
    const {emu, token} = await setup()
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    const seen: Array<{name?: string; instance?: string}> = []
    bot.command('menu', (ctx) => ctx.reply('Pick', Markup.inlineKeyboard([Markup.button.callback('Yes', 'yes')])))
    bot.action('yes', async (ctx) => {
      seen.push({name: ctx.from?.first_name, instance: ctx.callbackQuery.chat_instance})
      await ctx.answerCbQuery()
    })
    let launched = false
    const running = bot.launch(() => {
      launched = true
    })
    try {
      await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
      const ada = emu.user(token, {id: 501, firstName: 'Ada', username: 'ada'})
      await ada.send('/menu')
      await ada.click('Yes')
      await ada.click('Yes')
      // the same user through the library API without a name: still Ada
      emu.sendCallbackQuery(token, {data: 'yes', userId: 501})
      await waitFor(() => seen.length === 3, {what: 'the third press'})
      const grace = emu.user(token, {id: 502, firstName: 'Grace'})
      await grace.send('/menu')
      await grace.click('Yes')
      expect(seen.map((s) => s.name)).toEqual(['Ada', 'Ada', 'Ada', 'Grace'])
      expect(new Set(seen.slice(0, 3).map((s) => s.instance)).size).toBe(1)
      expect(seen[3].instance).not.toBe(seen[0].instance)
    } finally {
      bot.stop('test over')
      await running
    }
  })

  it('the control API sets a profile once; messages and presses carry it', async () => {
    const {emu, token, api} = await setup()
    const control = `${emu.controlApiRoot}/bots/${token}`
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${control}${path}`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(body),
      })
      return {status: res.status, json: (await res.json()) as any}
    }
    const set = await post('/users/42', {
      first_name: 'Grace',
      last_name: 'Hopper',
      username: 'grace',
      language_code: 'en',
    })
    expect(set).toEqual({
      status: 200,
      json: {
        user: {id: 42, is_bot: false, first_name: 'Grace', last_name: 'Hopper', username: 'grace', language_code: 'en'},
      },
    })
    const message = (await post('/messages', {text: 'hi', user_id: 42})).json.message
    expect(message.from).toEqual(set.json.user)
    expect(message.chat).toEqual({id: 42, first_name: 'Grace', last_name: 'Hopper', username: 'grace', type: 'private'})
    const sent = (
      await api('sendMessage', {
        chat_id: 42,
        text: 'q',
        reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]},
      })
    ).json.result
    const press = (await post('/callback_queries', {data: 'a', message_id: sent.message_id, user_id: 42})).json
    expect(press.callback_query.from).toEqual(set.json.user)
    const again = (await post('/callback_queries', {data: 'a', message_id: sent.message_id, user_id: 42})).json
    expect(again.callback_query.chat_instance).toBe(press.callback_query.chat_instance)
    // a message that names the user otherwise renames them from then on
    expect((await post('/messages', {text: 'x', user_id: 42, first_name: 'G.'})).json.message.from.first_name).toBe(
      'G.',
    )
    const read = await fetch(`${control}/users/42`)
    expect(((await read.json()) as any).user.first_name).toBe('G.')
    expect((await post('/users/0', {})).status).toBe(400)
    expect((await post('/users/7', {nick: 'x'})).json.error).toMatch(/unknown field "nick"/)
    expect((await fetch(`${control}/users/999`)).status).toBe(404)
    expect(emu.setUser(token, 43, {firstName: 'Lin'})).toMatchObject({id: 43, first_name: 'Lin'})
    expect(emu.sendUserMessage(token, {text: 'hey', userId: 43}).message).toMatchObject({from: {first_name: 'Lin'}})
  })
})
