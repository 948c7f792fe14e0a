import {describe, expect, it} from 'vitest'

import {checkTriggerRequest, checkUpdateObject, commandEntity, syntheticUpdate} from '../../src/control/synthetic.js'

const NOW = 1_700_000_000_123

describe('syntheticUpdate: message', () => {
  it('is a private message from user 1111 by default, fields in the order Telegram emits them', () => {
    const u = syntheticUpdate({kind: 'message', text: 'hello'}, {updateId: 500, now: NOW})
    expect(Object.keys(u)).toEqual(['update_id', 'message'])
    expect(u.update_id).toBe(500)
    const m = u.message as Record<string, any>
    expect(Object.keys(m)).toEqual(['message_id', 'from', 'chat', 'date', 'text'])
    expect(m.from).toEqual({
      id: 1111,
      is_bot: false,
      first_name: 'Test',
      last_name: 'User',
      username: 'user1111',
      language_code: 'en',
    })
    expect(m.chat).toMatchObject({id: 1111, type: 'private', first_name: 'Test'})
    expect(Object.keys(m.chat).at(-1)).toBe('type')
    expect(m.date).toBe(1_700_000_000)
    expect(m.text).toBe('hello')
    expect(m.entities).toBeUndefined()
    expect(Number.isInteger(m.message_id) && m.message_id > 0).toBe(true)
  })

  it('marks a leading /command with a bot_command entity (with @botname too)', () => {
    const start = syntheticUpdate({kind: 'message', text: '/start'}, {updateId: 1, now: NOW}).message as any
    expect(start.entities).toEqual([{offset: 0, length: 6, type: 'bot_command'}])
    const named = syntheticUpdate({kind: 'message', text: '/help@my_bot topics'}, {updateId: 2, now: NOW})
      .message as any
    expect(named.entities).toEqual([{offset: 0, length: 12, type: 'bot_command'}])
    expect(commandEntity('/start/x')).toBeUndefined()
    expect(commandEntity('hello /start')).toBeUndefined()
    expect(commandEntity('/')).toBeUndefined()
  })

  it('a negative chat is a group (or a supergroup for -100…), the sender the given user', () => {
    const g = syntheticUpdate({kind: 'message', text: 'hi', chatId: -4567, userId: 42}, {updateId: 3, now: NOW})
      .message as any
    expect(g.chat).toEqual({id: -4567, title: 'Test group', type: 'group'})
    expect(g.from.id).toBe(42)
    const s = syntheticUpdate({kind: 'message', text: 'hi', chatId: -1_001_234_567_890}, {updateId: 4, now: NOW})
      .message as any
    expect(s.chat.type).toBe('supergroup')
    expect(s.from.id).toBe(1111)
  })

  it("a positive chat without a user is that user's private chat", () => {
    const m = syntheticUpdate({kind: 'message', text: 'hi', chatId: 777}, {updateId: 5, now: NOW}).message as any
    expect(m.from.id).toBe(777)
    expect(m.chat).toMatchObject({id: 777, type: 'private'})
  })

  it('takes a message_id when given', () => {
    expect(
      (syntheticUpdate({kind: 'message', text: 'x'}, {updateId: 9, now: NOW, messageId: 31}).message as any).message_id,
    ).toBe(31)
  })
})

describe('syntheticUpdate: callback_query', () => {
  it("is a press of a button under the bot's message, with id, from, message, chat_instance, data", () => {
    const u = syntheticUpdate(
      {kind: 'callback', data: 'like:42', messageId: 7},
      {updateId: 600, now: NOW, bot: {id: 99, username: 'x_bot'}},
    )
    const q = u.callback_query as Record<string, any>
    expect(Object.keys(q)).toEqual(['id', 'from', 'message', 'chat_instance', 'data'])
    expect(q.id).toMatch(/^\d+$/)
    expect(q.from.id).toBe(1111)
    expect(q.data).toBe('like:42')
    expect(q.chat_instance).toMatch(/^-?\d+$/)
    expect(q.message).toEqual({
      message_id: 7,
      from: {id: 99, is_bot: true, first_name: 'Bot', username: 'x_bot'},
      chat: {id: 1111, first_name: 'Test', last_name: 'User', username: 'user1111', type: 'private'},
      date: 1_700_000_000,
    })
    // Same chat, same chat_instance; another chat, another one.
    const again = syntheticUpdate({kind: 'callback', data: 'x', messageId: 8}, {updateId: 601, now: NOW})
      .callback_query as any
    const other = syntheticUpdate({kind: 'callback', data: 'x', messageId: 8, chatId: -5}, {updateId: 602, now: NOW})
      .callback_query as any
    expect(again.chat_instance).toBe(q.chat_instance)
    expect(other.chat_instance).not.toBe(q.chat_instance)
    expect(again.id).not.toBe(q.id)
    expect(again.message.from).toBeUndefined()
  })
})

describe('syntheticUpdate: update', () => {
  it('passes the object through with the given update_id first', () => {
    const u = syntheticUpdate(
      {kind: 'update', update: {edited_message: {message_id: 3, text: 'x'}, update_id: 1}},
      {updateId: 700},
    )
    expect(u).toEqual({update_id: 700, edited_message: {message_id: 3, text: 'x'}})
    expect(Object.keys(u)[0]).toBe('update_id')
  })

  it('throws for a request that checkTriggerRequest refuses', () => {
    expect(() => syntheticUpdate({kind: 'message', text: ''}, {updateId: 1})).toThrow(/empty/)
  })
})

describe('checks', () => {
  it.each([
    [{}, /no update type field/],
    [{update_id: 5}, /no update type field/],
    [{message: {}, callback_query: {}}, /2 fields besides update_id/],
    [{mesage: {}}, /"mesage", which is not an update type/],
    [{message: 'hi'}, /"message" .* is not an object/],
    [[], /not a JSON object/],
    [null, /not a JSON object/],
  ])('refuses the update %j', (update, pattern) => {
    expect(checkUpdateObject(update)?.error).toMatch(pattern)
  })

  it('accepts a valid update', () => {
    expect(checkUpdateObject({update_id: 1, message: {message_id: 1}})).toBeUndefined()
    expect(checkUpdateObject({my_chat_member: {}})).toBeUndefined()
  })

  it.each([
    [{kind: 'message', text: '   '}, /text is empty/],
    [{kind: 'message', text: 'x'.repeat(4097)}, /4097 characters/],
    [{kind: 'message', text: 'x', userId: -3}, /user id -3/],
    [{kind: 'message', text: 'x', userId: 1.5}, /user id 1.5/],
    [{kind: 'message', text: 'x', chatId: 0}, /chat id 0/],
    [{kind: 'message', text: 'x', chatId: 5, userId: 6}, /private chat/],
    [{kind: 'callback', data: '', messageId: 1}, /data is empty/],
    [{kind: 'callback', data: 'é'.repeat(33), messageId: 1}, /66 bytes/],
    [{kind: 'callback', data: 'x', messageId: 'seven'}, /message id "seven"/],
    [{kind: 'fixture', type: 'nope'}, /Unknown trigger type "nope"/],
    [{kind: 'fixture', type: 'reaction', sets: [{path: ['a b'], value: 1}]}, /--set list/],
    [{kind: 'fixture', type: 'reaction', file: {base64: 'AAAA'}}, /A file goes with a photo/],
    [{kind: 'fixture', type: 'photo', file: {base64: '!!'}}, /not base64/],
    [{kind: 'callback', data: 'x', messageId: 0}, /message id 0/],
    [{kind: 'update', update: {}}, /no update type/],
    [{kind: 'poke'}, /Unknown trigger kind "poke"/],
    ['message', /not a JSON object/],
  ])('refuses the trigger request %j with one message and a fix', (request, pattern) => {
    const r = checkTriggerRequest(request)
    expect('error' in r && r.error).toMatch(pattern)
    expect('fix' in r && r.fix.length > 0).toBe(true)
  })

  it('accepts valid requests and drops unknown fields', () => {
    expect(checkTriggerRequest({kind: 'message', text: 'hi', chatId: -5, userId: 3, extra: 1})).toEqual({
      request: {kind: 'message', text: 'hi', chatId: -5, userId: 3},
    })
    expect(checkTriggerRequest({kind: 'callback', data: 'x'.repeat(64), messageId: 2})).toMatchObject({
      request: {kind: 'callback', messageId: 2},
    })
  })
})
