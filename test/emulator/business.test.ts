/**
 * Business connections with real grammY and Telegraf bots in both modes: a business account connects the bot
 * (business_connection), a customer writes (business_message) and the bot answers in the account's name
 * (business_connection_id, sender_business_bot), edits and deletions arrive (edited_business_message,
 * deleted_business_messages), getBusinessConnection; the errors of an unknown or restricted connection.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

function grammyShop(token: string, apiRoot: string) {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  const seen: string[] = []
  bot.on('business_connection', (ctx) => {
    seen.push(`connection ${ctx.businessConnection.is_enabled ? 'on' : 'off'}`)
  })
  bot.on('business_message', async (ctx) => {
    // grammY passes business_connection_id itself in a business context
    const sent = await ctx.reply(`Hello ${ctx.from?.first_name}, this is the shop.`)
    if (ctx.businessMessage.text === 'edit please')
      await ctx.api.editMessageText(ctx.chat.id, sent.message_id, 'Edited by the shop.', {
        business_connection_id: ctx.businessConnectionId,
      })
  })
  bot.on('edited_business_message', (ctx) => ctx.reply(`You changed it to: ${ctx.editedBusinessMessage.text}`))
  bot.on('deleted_business_messages', (ctx) => {
    seen.push(`deleted ${ctx.deletedBusinessMessages.message_ids.join(',')}`)
  })
  return {bot, seen}
}

async function shopping(emu: BotApiEmulator, token: string, seen: string[]) {
  const {connection} = emu.connectBusiness(token, {userId: 2222, firstName: 'Shop', rights: ['can_reply']})
  expect(connection).toEqual({
    id: expect.any(String),
    user: {id: 2222, is_bot: false, first_name: 'Shop', username: 'tester'},
    user_chat_id: 2222,
    date: expect.any(Number),
    is_enabled: true,
    can_reply: true,
    rights: {can_reply: true},
  })
  await waitFor(() => seen.includes('connection on'), {what: 'the business_connection update'})
  const cleo = emu.user(token, {id: 3001, firstName: 'Cleo', businessConnectionId: connection.id as string})
  const [reply] = await cleo.send('Do you have tea?')
  expect(reply).toMatchObject({
    business_connection_id: connection.id,
    sender_business_bot: expect.objectContaining({id: Number(token.split(':')[0]), is_bot: true}),
    from: {id: 2222, is_bot: false, first_name: 'Shop', username: 'tester'},
    chat: {id: 3001, type: 'private'},
    text: 'Hello Cleo, this is the shop.',
  })
  expect(Object.keys(reply).slice(0, 4)).toEqual([
    'business_connection_id',
    'sender_business_bot',
    'message_id',
    'from',
  ])
  // the chat as the account sees it: Cleo's message and the shop's answer, numbered in that chat
  expect(cleo.chat.map((m) => [m.message_id, m.text])).toEqual([
    [1, 'Do you have tea?'],
    [2, 'Hello Cleo, this is the shop.'],
  ])
  // an edit in the business chat
  const edited = await cleo.send('edit please')
  expect(edited.map((m) => m.text)).toEqual(['Hello Cleo, this is the shop.', 'Edited by the shop.'])
  expect(cleo.chat.at(-1)).toMatchObject({message_id: 4, text: 'Edited by the shop.', edit_date: expect.any(Number)})
  // the customer edits and deletes, through the control API
  const path = `/business_connections/${connection.id}/messages`
  const edit = await control(emu, token, `${path}/1/edit`, {chat_id: 3001, text: 'Do you have coffee?'})
  expect(edit.json.edited_business_message).toMatchObject({
    business_connection_id: connection.id,
    message_id: 1,
    text: 'Do you have coffee?',
  })
  await waitFor(() => cleo.chat.some((m) => m.text === 'You changed it to: Do you have coffee?'), {
    what: 'the reply to the edit',
  })
  const deleted = await control(emu, token, `${path}/delete`, {chat_id: 3001, message_ids: [1]})
  expect(deleted.json.deleted_business_messages).toEqual({
    business_connection_id: connection.id,
    chat: expect.objectContaining({id: 3001}),
    message_ids: [1],
  })
  await waitFor(() => seen.includes('deleted 1'), {what: 'the deletion update'})
  // the bot's own chat with Cleo is another chat: she never wrote to the bot
  const own = await fetch(`${emu.apiRoot}/bot${token}/sendMessage`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({chat_id: 3001, text: 'psst'}),
  }).then((r) => r.json())
  expect(own).toEqual({ok: false, error_code: 400, description: 'Bad Request: chat not found'})
  return connection
}

describe('a business account and its customers', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}`, async () => {
      const {emu, token} = await setup()
      const {bot, seen} = grammyShop(token, emu.apiRoot)
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        const connection = await shopping(emu, token, seen)
        expect((await bot.api.getBusinessConnection(connection.id as string)).user.id).toBe(2222)
        // disabled: an update, and the bot can no longer answer in the account's name
        emu.editBusinessConnection(token, connection.id as string, {isEnabled: false})
        await waitFor(() => seen.includes('connection off'), {what: 'the disabling update'})
        await expect(
          bot.api.sendMessage(3001, 'still there?', {business_connection_id: connection.id as string}),
        ).rejects.toThrow('BUSINESS_PEER_INVALID')
      } finally {
        await stop()
      }
    })

    it(`Telegraf, ${mode} (business updates read raw, as Telegraf 4.16 predates them)`, async () => {
      const {emu, token} = await setup()
      const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
      const seen: string[] = []
      bot.use(async (ctx) => {
        const update = ctx.update as unknown as Record<string, any>
        if (update.business_connection) seen.push(`connection ${update.business_connection.is_enabled ? 'on' : 'off'}`)
        if (update.deleted_business_messages)
          seen.push(`deleted ${update.deleted_business_messages.message_ids.join(',')}`)
        const message = update.business_message ?? update.edited_business_message
        if (!message) return
        const text = update.business_message
          ? `Hello ${message.from.first_name}, this is the shop.`
          : `You changed it to: ${message.text}`
        const extra = {business_connection_id: message.business_connection_id}
        const sent = await ctx.telegram.sendMessage(message.chat.id, text, extra as never)
        if (message.text === 'edit please')
          await ctx.telegram.callApi('editMessageText', {
            chat_id: message.chat.id,
            message_id: sent.message_id,
            text: 'Edited by the shop.',
            ...extra,
          } as never)
      })
      const stop = await runTelegraf(emu, token, bot, mode)
      try {
        await shopping(emu, token, seen)
      } finally {
        await stop()
      }
    })
  }
})

describe('business errors', () => {
  it('unknown connection, no reply right, a customer who never wrote, bad chat ids', async () => {
    const {emu, token, api} = await setup()
    const err = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})
    expect((await api('getBusinessConnection', {business_connection_id: 'nope'})).json).toEqual(
      err('business connection not found'),
    )
    expect((await api('sendMessage', {business_connection_id: 'nope', chat_id: 1, text: 'x'})).json).toEqual(
      err('business connection not found'),
    )
    const readOnly = emu.connectBusiness(token, {rights: ['can_read_messages']}).connection.id as string
    emu.sendBusinessMessage(token, {connectionId: readOnly, text: 'hi', customerId: 4000})
    expect((await api('sendMessage', {business_connection_id: readOnly, chat_id: 4000, text: 'x'})).json).toEqual(
      err('BUSINESS_PEER_INVALID'),
    )
    const full = emu.connectBusiness(token).connection.id as string
    expect((await api('sendMessage', {business_connection_id: full, chat_id: 4001, text: 'x'})).json).toEqual(
      err('BUSINESS_PEER_USAGE_MISSING'),
    )
    expect((await api('sendMessage', {business_connection_id: full, chat_id: '@cleo', text: 'x'})).json).toEqual(
      err('chat identifier must be a valid Integer'),
    )
    expect((await api('deleteBusinessMessages', {business_connection_id: full, message_ids: []})).json.result).toBe(
      true,
    )
    expect((await api('deleteBusinessMessages', {business_connection_id: full})).json).toEqual(
      err('message identifiers are not specified'),
    )
    const bad = await control(emu, token, '/business_connections', {rights: ['can_fly']})
    expect(bad).toEqual({
      status: 400,
      json: {error: expect.stringContaining('rights must be a list of BusinessBotRights names')},
    })
    const none = await control(emu, token, '/business_connections/nope/messages', {text: 'hi'})
    expect(none).toEqual({status: 400, json: {error: 'there is no business connection "nope" (connect the bot first)'}})
  })
})
