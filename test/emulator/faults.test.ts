/** Failure injection: failNext, blockBot, migrateChat, deactivateUser, over real HTTP. */
import {Bot as GrammyBot, GrammyError} from 'grammy'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

describe('failNext', () => {
  it('answers the next `times` calls of the method with the error, then runs it again', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 42})
    emu.failNext(token, 'sendMessage', {
      errorCode: 429,
      description: 'Too Many Requests: retry after 5',
      retryAfter: 5,
      times: 2,
    })
    for (let i = 0; i < 2; i++) {
      const res = await api('sendMessage', {chat_id: 42, text: 'x'})
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('5')
      expect(res.text).toBe(
        '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5","parameters":{"retry_after":5}}',
      )
    }
    const ok = await api('sendMessage', {chat_id: 42, text: 'x'})
    expect(ok.json).toMatchObject({ok: true, result: {text: 'x'}})
    const recorded = emu.calls(token).filter((c) => c.method === 'sendMessage')
    expect(recorded.map((c) => c.error?.code ?? 'ok')).toEqual([429, 429, 'ok'])
    expect(recorded.map((c) => c.seq)).toEqual([...recorded.map((c) => c.seq)].sort((a, b) => a - b))
  })

  it('matches the method name case-insensitively and fires before the handler (even for a call that would fail)', async () => {
    const {emu, token, api} = await setup()
    emu.failNext(token, 'SENDMESSAGE', {
      errorCode: 400,
      description: 'Bad Request: migrated',
      migrateToChatId: -1001234567890,
    })
    const res = await api('sendMessage', {chat_id: 999, text: 'x'}) // chat 999 is unknown: would be "chat not found"
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: migrated',
      parameters: {migrate_to_chat_id: -1001234567890},
    })
    expect(res.headers.get('retry-after')).toBeNull()
    const after = await api('sendMessage', {chat_id: 999, text: 'x'})
    expect(after.json.description).toBe('Bad Request: chat not found')
    const me = await api('getMe')
    expect(me.json.ok).toBe(true) // other methods untouched
  })

  it('rejects a bad fault with a message naming the field', async () => {
    const {emu, token} = await setup()
    expect(() => emu.failNext(token, 'sendMessage', {errorCode: 200, description: 'x'})).toThrow(
      /errorCode 200 must be an HTTP error status/,
    )
    expect(() => emu.failNext(token, 'sendMessage', {errorCode: 429, description: 'x', retryAfter: 0})).toThrow(
      /retryAfter 0/,
    )
    expect(() => emu.failNext(token, 'send message', {errorCode: 400, description: 'x'})).toThrow(
      /method "send message"/,
    )
  })

  it('grammY sees the injected 429 as a GrammyError with parameters.retry_after', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 7, type: 'private', first_name: 'U'})
    const bot = new GrammyBot(token, {
      client: {apiRoot: emu.apiRoot},
      botInfo: {id: 1, is_bot: true, first_name: 'B', username: 'b_bot'} as never,
    })
    emu.failNext(token, 'sendMessage', {errorCode: 429, description: 'Too Many Requests: retry after 3', retryAfter: 3})
    const error = await bot.api.sendMessage(7, 'hello').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GrammyError)
    expect((error as GrammyError).error_code).toBe(429)
    expect((error as GrammyError).parameters.retry_after).toBe(3)
    await expect(bot.api.sendMessage(7, 'hello')).resolves.toMatchObject({text: 'hello'})
  })
})

describe('blockBot', () => {
  it('sends to the chat get 403 "bot was blocked by the user" and a my_chat_member (member → kicked) is queued', async () => {
    const {emu, token, api, bot} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 42, firstName: 'Ada', username: 'ada'})
    await api('getUpdates', {offset: -1})
    const {update_id: last} = emu.pendingUpdates(token).at(-1)!
    await api('getUpdates', {offset: last + 1})

    const update = emu.blockBot(token, 42)
    const res = await api('sendMessage', {chat_id: 42, text: 'still there?'})
    expect(res.status).toBe(403)
    expect(res.text).toBe('{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}')
    const action = await api('sendChatAction', {chat_id: 42, action: 'typing'})
    expect(action.status).toBe(403)
    await expect(api('sendMessage', {chat_id: '@ada', text: 'x'})).resolves.toMatchObject({status: 403})

    const polled = await api('getUpdates', {offset: last + 1})
    expect(polled.json.result).toEqual([update])
    const change = polled.json.result[0].my_chat_member
    expect(Object.keys(polled.json.result[0])).toEqual(['update_id', 'my_chat_member'])
    expect(change).toEqual({
      chat: {id: 42, first_name: 'Ada', username: 'ada', type: 'private'},
      from: {id: 42, is_bot: false, first_name: 'Ada', username: 'ada'},
      date: expect.any(Number),
      old_chat_member: {
        user: {id: bot.id, is_bot: true, first_name: 'Test Bot', username: 'test_bot'},
        status: 'member',
      },
      new_chat_member: {
        user: {id: bot.id, is_bot: true, first_name: 'Test Bot', username: 'test_bot'},
        status: 'kicked',
        until_date: 0,
      },
    })

    emu.unblockBot(token, 42)
    await expect(api('sendMessage', {chat_id: 42, text: 'welcome back'})).resolves.toMatchObject({status: 200})
    expect(() => emu.blockBot(token, -5)).toThrow(/must be a private chat/)
  })

  it('other chats are not affected', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'a', userId: 1})
    emu.sendUserMessage(token, {text: 'b', userId: 2})
    emu.blockBot(token, 1)
    expect((await api('sendMessage', {chat_id: 2, text: 'x'})).status).toBe(200)
    expect((await api('sendMessage', {chat_id: 1, text: 'x'})).status).toBe(403)
  })
})

describe('migrateChat and deactivateUser', () => {
  it('a migrated group answers 400 with migrate_to_chat_id; the supergroup works', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi all', userId: 5, chatId: -123, chatTitle: 'Team'})
    const to = emu.migrateChat(token, -123)
    expect(to).toBe(-1000000000123)
    const res = await api('sendMessage', {chat_id: -123, text: 'x'})
    expect(res.status).toBe(400)
    expect(res.text).toBe(
      '{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1000000000123}}',
    )
    const moved = await api('sendMessage', {chat_id: to, text: 'x'})
    expect(moved.json.result.chat).toEqual({id: -1000000000123, title: 'Team', type: 'supergroup'})
    expect(() => emu.migrateChat(token, 5)).toThrow(/must be a group/)
  })

  it('a deactivated user answers 403 "user is deactivated"', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'bye', userId: 77})
    emu.deactivateUser(token, 77)
    const res = await api('sendMessage', {chat_id: 77, text: 'x'})
    expect(res.status).toBe(403)
    expect(res.text).toBe('{"ok":false,"error_code":403,"description":"Forbidden: user is deactivated"}')
  })

  it('reset() clears faults and chat states', async () => {
    const {emu, token, api} = await setup()
    emu.failNext(token, 'getMe', {errorCode: 500, description: 'Internal Server Error: x', times: 3})
    emu.reset()
    expect((await api('getMe')).status).toBe(200)
  })
})

describe('recorded calls stay bounded', () => {
  it('keeps the newest calls (seq goes on) once there are more than MAX_RECORDED_CALLS', async () => {
    const {MAX_RECORDED_CALLS} = await import('../../src/emulator/methods/dispatch.js')
    const {emu, token, api} = await setup()
    const bot = (emu as unknown as {bots: Map<string, {calls: unknown[]; callSeq: number}>}).bots.get(token)!
    // pretend a long session already recorded the maximum, then make one more call over HTTP
    bot.calls.push(
      ...Array.from({length: MAX_RECORDED_CALLS}, (_, i) => ({
        seq: i + 1,
        method: 'getMe',
        params: {},
        at: 0,
        source: 'http',
      })),
    )
    bot.callSeq = MAX_RECORDED_CALLS
    await api('getMe')
    const calls = emu.calls(token)
    expect(calls.length).toBe(MAX_RECORDED_CALLS + 1 - MAX_RECORDED_CALLS / 10)
    expect(calls.at(-1)!.seq).toBe(MAX_RECORDED_CALLS + 1)
  })
})
