/**
 * Reactions with real grammY and Telegraf bots in both modes: a user's reaction reaches the bot as message_reaction
 * only when its allowed_updates ask for it (off by default, as on Telegram); old and new reactions; a channel's
 * anonymous totals as message_reaction_count; setMessageReaction with the server's parsing and Telegram's rules;
 * Bot API 10.0's deleteMessageReaction.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const THUMBS = {type: 'emoji', emoji: '👍'}
const FIRE = {type: 'emoji', emoji: '🔥'}

function grammyBot(token: string, apiRoot: string) {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  bot.on('message_reaction', async (ctx) => {
    const {emojiAdded, emojiRemoved} = ctx.reactions()
    await ctx.reply(`added ${emojiAdded.join('') || '-'} removed ${emojiRemoved.join('') || '-'}`)
  })
  return bot
}

function telegrafBot(token: string, apiRoot: string) {
  const bot = new Telegraf(token, {telegram: {apiRoot}})
  bot.on('text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  bot.on('message_reaction', (ctx) => {
    const update = ctx.messageReaction
    const emoji = (list: Array<{type: string; emoji?: string}>) => list.map((r) => r.emoji).join('') || '-'
    return ctx.telegram.sendMessage(
      update.chat.id,
      `now ${emoji(update.new_reaction)} was ${emoji(update.old_reaction)}`,
    )
  })
  return bot
}

describe('a user reacts: message_reaction, opt-in', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: not delivered by default; asked for, it carries old and new reactions`, async () => {
      const {emu, token} = await setup()
      let stop = await runGrammy(emu, token, grammyBot(token, emu.apiRoot), mode)
      try {
        const ada = emu.user(token, {firstName: 'Ada'})
        await ada.send('hi')
        await expect(ada.react('👍')).rejects.toThrow(
          'user.react("👍"): Telegram would send no update: the bot\'s allowed_updates leave out message_reaction (it is off unless asked for, as on Telegram)',
        )
        // through the control API: update_id 0 and the reason
        const echo = ada.chat.at(-1)!
        const dropped = await control(emu, token, `/chats/${ada.chatId}/messages/${echo.message_id}/reactions`, {
          user_id: ada.id,
          reaction: ['🔥'],
        })
        expect(dropped.json).toEqual({update_id: 0, reason: expect.stringContaining('leave out message_reaction')})
        await stop()
        stop = await runGrammy(emu, token, grammyBot(token, emu.apiRoot), mode, ['message', 'message_reaction'])
        expect((await ada.react('👍', echo.message_id)).map((m) => m.text)).toEqual(['added 👍 removed 🔥'])
        expect((await ada.react([], echo.message_id)).map((m) => m.text)).toEqual(['added - removed 👍'])
        const sent = await control(emu, token, `/chats/${ada.chatId}/messages/${echo.message_id}/reactions`, {
          user_id: ada.id,
          reaction: [FIRE],
        })
        expect(sent.json).toEqual({
          update_id: expect.any(Number),
          message_reaction: {
            chat: expect.objectContaining({id: ada.chatId, type: 'private'}),
            message_id: echo.message_id,
            user: {id: ada.id, is_bot: false, first_name: 'Ada', username: 'tester'},
            date: expect.any(Number),
            old_reaction: [],
            new_reaction: [FIRE],
          },
        })
        await waitFor(() => ada.chat.some((m) => m.text === 'added 🔥 removed -'), {what: 'the bot to handle it'})
      } finally {
        await stop()
      }
    })

    it(`Telegraf, ${mode}: the update in a group, where the bot is an administrator`, async () => {
      const {emu, token} = await setup()
      const stop = await runTelegraf(emu, token, telegrafBot(token, emu.apiRoot), mode, ['message', 'message_reaction'])
      try {
        const bob = emu.user(token, {firstName: 'Bob', chatId: -500})
        const [echo] = await bob.send('hello group')
        const replies = await bob.react(['👍', '🔥'], echo.message_id)
        expect(replies.map((m) => m.text)).toEqual(['now 👍🔥 was -'])
        expect((await bob.react('🔥', echo.message_id)).map((m) => m.text)).toEqual(['now 🔥 was 👍🔥'])
      } finally {
        await stop()
      }
    })
  }

  it('a channel has anonymous reactions: message_reaction_count with the totals', async () => {
    const {emu, token, api} = await setup()
    emu.addChat(token, {id: -1001234, type: 'channel', title: 'News'})
    const post = (await api('sendMessage', {chat_id: -1001234, text: 'big news'})).json.result
    const path = `/chats/-1001234/messages/${post.message_id}/reactions`
    // asked for: the bot polls with allowed_updates (no bot runs here: the queue shows what it would get)
    await api('getUpdates', {allowed_updates: ['message_reaction_count'], timeout: 0})
    await control(emu, token, path, {user_id: 1, reaction: ['👍']})
    await control(emu, token, path, {user_id: 2, reaction: ['👍', '🔥']})
    const last = await control(emu, token, path, {user_id: 3, reaction: [{type: 'paid'}]})
    expect(last.json.message_reaction_count).toEqual({
      chat: {id: -1001234, type: 'channel', title: 'News'},
      message_id: post.message_id,
      date: expect.any(Number),
      reactions: [
        {type: THUMBS, total_count: 2},
        {type: FIRE, total_count: 1},
        {type: {type: 'paid'}, total_count: 1},
      ],
    })
    const queued = emu.pendingUpdates(token).map((u) => Object.keys(u)[1])
    expect(queued).toEqual(['message_reaction_count', 'message_reaction_count', 'message_reaction_count'])
  })

  it('a bot that is no administrator of the group gets no reaction updates', async () => {
    const {emu, token, api} = await setup()
    await api('getUpdates', {allowed_updates: ['message', 'message_reaction'], offset: -1})
    emu.setBotStatus(token, {chatId: -900, status: 'member'})
    emu.sendUserMessage(token, {text: 'hello', userId: 7, chatId: -900})
    const last = emu.pendingUpdates(token).at(-1)!.message as {message_id: number}
    const made = emu.react(token, {chatId: -900, messageId: last.message_id, userId: 7, reaction: ['👍']})
    expect(made).toEqual({update_id: 0, reason: expect.stringContaining('the bot is not an administrator of the chat')})
    emu.setBotStatus(token, {chatId: -900, status: 'administrator', rights: ['can_delete_messages']})
    const now = emu.react(token, {chatId: -900, messageId: last.message_id, userId: 7, reaction: ['🔥']})
    expect(now.message_reaction).toMatchObject({old_reaction: [THUMBS], new_reaction: [FIRE]})
  })

  it('bad input to the control API is a 400 naming it', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 7})
    const cases: Array<[string, unknown, string]> = [
      ['/chats/7/messages/1/reactions', {reaction: ['🦆']}, '"🦆" is not one of the reaction emoji Telegram allows'],
      ['/chats/7/messages/1/reactions', {}, 'reaction is required'],
      ['/chats/7/messages/99/reactions', {reaction: []}, 'there is no message 99 in chat 7'],
      ['/chats/7/messages/x/reactions', {reaction: []}, 'message_id "x" in the path must be an integer ≥ 1'],
    ]
    for (const [path, body, error] of cases) {
      const res = await control(emu, token, path, body)
      expect(res.status).toBe(400)
      expect(res.json.error).toContain(error)
    }
  })
})

describe('setMessageReaction (the server parses, Telegram checks)', () => {
  it('its texts, one reaction for a bot, custom emoji only when on the message; no update for the bot', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 7})
    await api('getUpdates', {allowed_updates: ['message', 'message_reaction'], offset: -1})
    const set = (reaction: unknown, extra: Record<string, unknown> = {}) =>
      api('setMessageReaction', {chat_id: 7, message_id: 1, reaction, ...extra}).then((r) => r.json)
    const error = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})
    expect(await set('[{')).toEqual(error("can't parse reaction types JSON object"))
    expect(await set({type: 'emoji'})).toEqual(error('expected an Array of ReactionType'))
    expect(await set([1])).toEqual(error("can't parse ReactionType: expected an Object"))
    expect(await set([{emoji: '👍'}])).toEqual(error('can\'t parse ReactionType: Can\'t find field "type"'))
    expect(await set([{type: 'paid'}])).toEqual(error("can't parse ReactionType: invalid reaction type specified"))
    expect(await set([{type: 'emoji'}])).toEqual(error('can\'t parse ReactionType: Can\'t find field "emoji"'))
    expect(await set([THUMBS], {message_id: 99})).toEqual(error('message to react not found'))
    expect(await set([THUMBS], {chat_id: 8})).toEqual(error('chat not found'))
    expect(await set([THUMBS, FIRE])).toEqual(error('REACTIONS_TOO_MANY'))
    expect(await set([{type: 'emoji', emoji: '🦆'}])).toEqual(error('REACTION_INVALID'))
    const custom = {type: 'custom_emoji', custom_emoji_id: '5368324170671202286'}
    expect(await set([custom])).toEqual(error('REACTION_INVALID'))
    expect(await set([THUMBS])).toEqual({ok: true, result: true})
    expect(await set([])).toEqual({ok: true, result: true})
    expect(await set(undefined)).toEqual({ok: true, result: true})
    // a custom emoji a user already put on the message can be used
    emu.react(token, {chatId: 7, messageId: 1, userId: 7, reaction: [custom]})
    expect(await set([custom])).toEqual({ok: true, result: true})
    // the bot's own reactions made no update; the user's did
    expect(emu.pendingUpdates(token).filter((u) => u.message_reaction)).toHaveLength(1)
  })

  it("deleteMessageReaction (10.0) takes a user's reaction back: their next reaction starts from none", async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi group', userId: 7, chatId: -600})
    await api('getUpdates', {allowed_updates: ['message', 'message_reaction'], offset: -1})
    emu.react(token, {chatId: -600, messageId: 1, userId: 7, reaction: ['👍']})
    const removed = await api('deleteMessageReaction', {chat_id: -600, message_id: 1, user_id: 7})
    expect(removed.json).toEqual({ok: true, result: true})
    const next = emu.react(token, {chatId: -600, messageId: 1, userId: 7, reaction: ['🔥']})
    expect((next.message_reaction as {old_reaction: unknown}).old_reaction).toEqual([])
    emu.react(token, {chatId: -600, messageId: 1, userId: 7, reaction: ['👍']})
    expect((await api('deleteAllMessageReactions', {chat_id: -600, user_id: 7})).json.result).toBe(true)
    const after = emu.react(token, {chatId: -600, messageId: 1, userId: 7, reaction: ['🔥']})
    expect((after.message_reaction as {old_reaction: unknown}).old_reaction).toEqual([])
    expect((await api('deleteMessageReaction', {chat_id: -600, message_id: 9, user_id: 7})).json.description).toBe(
      'Bad Request: message to delete reactions not found',
    )
    expect((await api('deleteMessageReaction', {chat_id: -600, message_id: 1, user_id: 0})).json.description).toBe(
      'Bad Request: invalid user_id specified',
    )
  })
})
