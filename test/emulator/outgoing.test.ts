import {describe, expect, it} from 'vitest'
import type {RecordedCall} from '../../src/emulator/index.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'
import {png} from './media-fixtures.js'

const bad = (description: string) => `{"ok":false,"error_code":400,"description":"${description}"}`

describe('outgoing methods', () => {
  it('sendMessage validates chat_id, the text and the chat; answers a Message in the server order', async () => {
    const {api, emu, token, bot} = await setup()
    expect((await api('sendMessage', {text: 'x'})).text).toBe(bad('Bad Request: chat_id is empty'))
    expect((await api('sendMessage', {chat_id: 42, text: 'x'})).text).toBe(bad('Bad Request: chat not found'))
    emu.sendUserMessage(token, {text: 'hi', userId: 42, firstName: 'Ann', username: 'ann'})
    expect((await api('sendMessage', {chat_id: 42, text: '  '})).text).toBe(bad('Bad Request: text must be non-empty'))
    expect((await api('sendMessage', {chat_id: 42})).text).toBe(bad('Bad Request: message text is empty'))
    const r = await api('sendMessage', {
      chat_id: 42,
      text: 'hello *you*',
      entities: [{type: 'bold', offset: 6, length: 5}],
      reply_markup: {inline_keyboard: [[{text: 'Go', callback_data: 'go'}]]},
    })
    expect(r.status).toBe(200)
    const m = r.json.result
    expect(Object.keys(m)).toEqual(['message_id', 'from', 'chat', 'date', 'text', 'entities', 'reply_markup'])
    expect(m).toMatchObject({
      message_id: 2,
      from: {id: bot.id, is_bot: true, first_name: 'Test Bot', username: 'test_bot'},
      chat: {id: 42, first_name: 'Ann', username: 'ann', type: 'private'},
      text: 'hello *you*',
    })
    expect(Math.abs(m.date - Date.now() / 1000)).toBeLessThan(5)
    expect((await api('sendMessage', {chat_id: '@ann', text: 'by username'})).json.result.message_id).toBe(3)
    expect(emu.sendUserMessage(token, {text: 'again', userId: 42}).message).toMatchObject({message_id: 4})
  })

  it('edits, deletes and answers callback queries with the server texts', async () => {
    const {api, emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const sent = (
      await api('sendMessage', {
        chat_id: 1111,
        text: 'v1',
        reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]},
      })
    ).json.result
    const edit = (p: object) => api('editMessageText', {chat_id: 1111, message_id: sent.message_id, ...p})
    const edited = (await edit({text: 'v2', reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]}})).json
      .result
    expect(edited).toMatchObject({message_id: sent.message_id, text: 'v2'})
    expect(typeof edited.edit_date).toBe('number')
    expect((await edit({text: 'v2', reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]}})).text).toBe(
      bad(
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      ),
    )
    expect((await api('editMessageText', {chat_id: 1111, message_id: 999, text: 'x'})).text).toBe(
      bad('Bad Request: message to edit not found'),
    )
    expect(
      (await api('editMessageReplyMarkup', {chat_id: 1111, message_id: sent.message_id})).json.result.reply_markup,
    ).toBeUndefined()
    expect((await api('editMessageText', {inline_message_id: 'abc', text: 'x'})).text).toBe(
      bad('Bad Request: invalid inline message identifier specified'),
    )

    const press = emu.sendCallbackQuery(token, {data: 'a'})
    const query = press.callback_query as any
    expect(query).toMatchObject({from: {id: 1111, is_bot: false}, data: 'a', message: {message_id: sent.message_id}})
    expect((await api('answerCallbackQuery', {callback_query_id: query.id, text: 'ok'})).text).toBe(
      '{"ok":true,"result":true}',
    )
    expect((await api('answerCallbackQuery', {callback_query_id: query.id})).text).toBe(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )

    expect((await api('deleteMessage', {chat_id: 1111, message_id: sent.message_id})).text).toBe(
      '{"ok":true,"result":true}',
    )
    expect((await api('deleteMessage', {chat_id: 1111, message_id: sent.message_id})).text).toBe(
      bad('Bad Request: message to delete not found'),
    )
  })

  it('handles media uploads, chat actions, commands and a generic fallback; unknown methods are 404', async () => {
    const {api, emu, token, base} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const form = new FormData()
    form.set('chat_id', '1111')
    form.set('caption', 'a cat')
    const image = png(1000, 750)
    form.set('photo', new Blob([new Uint8Array(image)], {type: 'image/png'}), 'cat.png')
    const photo = await (await fetch(`${base}/sendPhoto`, {method: 'POST', body: form})).json()
    expect(photo.result.caption).toBe('a cat')
    expect(photo.result.photo.map((p: any) => [p.width, p.height])).toEqual([
      [90, 68],
      [320, 240],
      [800, 600],
      [1000, 750],
    ])
    expect(emu.calls(token).at(-1)?.params.photo).toEqual({
      filename: 'cat.png',
      mimeType: 'image/png',
      size: image.length,
    })
    expect((await api('sendPhoto', {chat_id: 1111})).text).toBe(bad('Bad Request: there is no photo in the request'))
    expect(
      (await api('sendDocument', {chat_id: 1111, document: 'https://example.org/a.pdf'})).json.result.document,
    ).toMatchObject({file_name: 'a.pdf', mime_type: 'application/pdf', file_id: expect.stringMatching(/^BQAC/)})
    expect((await api('sendChatAction', {chat_id: 1111, action: 'typing'})).text).toBe('{"ok":true,"result":true}')
    expect((await api('sendChatAction', {chat_id: 1111, action: 'dancing'})).text).toBe(
      bad('Bad Request: wrong parameter action in request'),
    )
    const commands = [{command: 'start', description: 'Start'}]
    expect((await api('setMyCommands', {commands})).json.result).toBe(true)
    expect((await api('getMyCommands')).json.result).toEqual(commands)
    expect((await api('sendLocation', {chat_id: 1111, latitude: 1.5, longitude: 2})).json.result.location).toEqual({
      latitude: 1.5,
      longitude: 2,
    })
    expect((await api('setChatMenuButton', {})).json.result).toBe(true)
    expect((await api('answerInlineQuery', {inline_query_id: '1', results: []})).text).toBe(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
    expect((await api('sendFooBar', {chat_id: 1111})).text).toBe(
      '{"ok":false,"error_code":404,"description":"Not Found: method not found"}',
    )
  })

  it('logOut clears the queue, then every call gets 400 Logged out; close answers true', async () => {
    const {api, emu, token} = await setup()
    expect((await api('close')).text).toBe('{"ok":true,"result":true}')
    // closing (500 restart) for a moment, then closed: the next call launches the bot again
    await waitFor(async () => (await api('getMe')).status === 200, {what: 'the closed bot to launch again'})
    emu.sendUserMessage(token, {text: 'x'})
    expect((await api('logOut')).text).toBe('{"ok":true,"result":true}')
    expect(emu.pendingUpdates(token)).toHaveLength(0)
    expect((await api('getMe')).text).toBe(bad('Logged out'))
    emu.reset()
    expect((await api('getMe')).status).toBe(200)
  })
})

describe('programmatic API', () => {
  it('records calls, lists sent messages per chat, and waits for the next bot message', async () => {
    const {api, emu, token} = await setup()
    const seen: RecordedCall[] = []
    emu.on('call', (c) => seen.push(c))
    emu.sendUserMessage(token, {text: '/start', userId: 1})
    emu.sendUserMessage(token, {text: 'hi', userId: 2})
    await api('getUpdates')
    await api('sendMessage', {chat_id: 1, text: 'one'})
    await api('sendMessage', {chat_id: 2, text: 'two'})
    await api('sendMessage', {chat_id: 3, text: 'fails'})
    expect(emu.calls(token).map((c) => c.method)).toEqual(['getUpdates', 'sendMessage', 'sendMessage', 'sendMessage'])
    expect(seen).toHaveLength(4)
    expect(emu.calls(token)[0]).toMatchObject({source: 'http', params: {}})
    expect(emu.sentMessages(token).map((c) => c.params.text)).toEqual(['one', 'two', 'fails'])
    expect(emu.sentMessages(token, {chatId: 2}).map((c) => c.params.text)).toEqual(['two'])
    expect(emu.sentMessages(token).at(-1)?.error).toEqual({code: 400, description: 'Bad Request: chat not found'})

    expect((await emu.waitForBotMessage(token, {chatId: 2})).params.text).toBe('two')
    expect((await emu.waitForBotMessage(token)).params.text).toBe('one')
    const later = emu.waitForBotMessage(token, {predicate: (c) => c.params.text === 'three'})
    await api('sendMessage', {chat_id: 1, text: 'not it'})
    await api('sendMessage', {chat_id: 1, text: 'three'})
    expect((await later).params.text).toBe('three')
    await expect(emu.waitForBotMessage(token, {chatId: 2, timeoutMs: 30})).rejects.toThrow(
      'no message from the bot in chat 2 within 30 ms',
    )
  })

  it('builds user messages with bot_command entities, group chats and replies', async () => {
    const {emu, token} = await setup()
    const u = emu.sendUserMessage(token, {
      text: '/start@test_bot now /help',
      userId: 5,
      firstName: 'Bo',
      username: 'bo',
    })
    expect(u.message).toEqual({
      message_id: 1,
      from: {id: 5, is_bot: false, first_name: 'Bo', username: 'bo'},
      chat: {id: 5, first_name: 'Bo', username: 'bo', type: 'private'},
      date: (u.message as any).date,
      text: '/start@test_bot now /help',
      entities: [
        {offset: 0, length: 15, type: 'bot_command'},
        {offset: 20, length: 5, type: 'bot_command'},
      ],
    })
    const g = emu.sendUserMessage(token, {text: 'in a group', chatId: -100, userId: 5, replyToMessageId: undefined})
    expect((g.message as any).chat).toEqual({id: -100, title: 'Test Group', type: 'group'})
    const r = emu.sendUserMessage(token, {text: 'reply', userId: 5, replyToMessageId: 1})
    expect((r.message as any).reply_to_message.text).toBe('/start@test_bot now /help')
  })

  it('createBot with a given token, reset(), and stop() closing keep-alive sockets', async () => {
    const {emu} = await setup()
    const given = emu.createBot({token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', username: 'given_bot'})
    expect(given).toEqual({token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', id: 123456, username: 'given_bot'})
    expect(() => emu.createBot({token: 'nope'})).toThrow('createBot: the token must look like')
    expect(() => emu.createBot({token: given.token})).toThrow('already registered')
    emu.sendUserMessage(given.token, {text: 'x'})
    emu.reset()
    expect(emu.pendingUpdates(given.token)).toEqual([])
    expect(emu.calls(given.token)).toEqual([])
    expect(() => emu.pendingUpdates('1:unknownunknownunknownunknown')).toThrow('unknown token')
  })
})

describe('more methods', () => {
  it('forwards and copies messages, closes polls, answers chat members and files', async () => {
    const {api, emu, token, bot} = await setup()
    emu.sendUserMessage(token, {text: 'original', userId: 1})
    emu.sendUserMessage(token, {text: 'hi', userId: 2})
    const fwd = (await api('forwardMessage', {chat_id: 2, from_chat_id: 1, message_id: 1})).json.result
    expect(fwd).toMatchObject({chat: {id: 2}, text: 'original', forward_origin: {type: 'user', sender_user: {id: 1}}})
    expect((await api('copyMessage', {chat_id: 2, from_chat_id: 1, message_id: 1})).text).toBe(
      `{"ok":true,"result":{"message_id":${fwd.message_id + 1}}}`,
    )
    expect((await api('forwardMessage', {chat_id: 2, from_chat_id: 1, message_id: 99})).json.description).toBe(
      'Bad Request: message to forward not found',
    )
    const poll = (await api('sendPoll', {chat_id: 2, question: 'Q?', options: ['a', 'b']})).json.result
    expect((await api('stopPoll', {chat_id: 2, message_id: poll.message_id})).json.result).toMatchObject({
      question: 'Q?',
      is_closed: true,
    })
    expect((await api('getChatMember', {chat_id: 2, user_id: 2})).json.result).toMatchObject({
      status: 'member',
      user: {id: 2},
    })
    expect((await api('getChatMember', {chat_id: 2, user_id: bot.id})).json.result.user.is_bot).toBe(true)
    expect((await api('getFile', {file_id: 'abc'})).json.description).toBe('Bad Request: invalid file_id')
    expect((await api('pinChatMessage', {chat_id: 2, message_id: 1})).json.result).toBe(true)
    // td DialogParticipantManager.cpp ban_dialog_participant
    expect((await api('banChatMember', {chat_id: 2, user_id: 2})).json.description).toBe(
      "Bad Request: can't ban members in private chats",
    )
  })
})
