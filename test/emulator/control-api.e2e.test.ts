/** The control API (/_emulator/…): the user side over HTTP, as a test in another language drives it. */
import {Bot as GrammyBot} from 'grammy'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

async function control(root: string, method: 'GET' | 'POST', path: string, body?: unknown, raw?: string) {
  const res = await fetch(`${root}${path}`, {
    method,
    ...(body !== undefined || raw !== undefined
      ? {headers: {'content-type': 'application/json'}, body: raw ?? JSON.stringify(body)}
      : {}),
  })
  return {status: res.status, json: (await res.json()) as any}
}

async function started() {
  const s = await setup()
  const root = s.emu.controlApiRoot
  const bot = `/bots/${s.token}`
  return {
    ...s,
    root,
    path: bot,
    c: (method: 'GET' | 'POST', path: string, body?: unknown, raw?: string) => control(root, method, path, body, raw),
  }
}

describe('control API', () => {
  it('is served beside the Bot API: controlApiRoot = apiRoot + /_emulator', async () => {
    const {emu} = await setup()
    expect(emu.controlApiRoot).toBe(`${emu.apiRoot}/_emulator`)
  })

  it('POST messages queues a user message and answers {update_id, message}; the bot reads it with getUpdates', async () => {
    const {c, path, api} = await started()
    const date = Math.floor(Date.now() / 1000) - 60
    const sent = await c('POST', `${path}/messages`, {text: '/start hi', user_id: 42, first_name: 'Ada', date})
    expect(sent.status).toBe(200)
    expect(Object.keys(sent.json)).toEqual(['update_id', 'message'])
    expect(sent.json.message).toMatchObject({
      message_id: 1,
      date,
      text: '/start hi',
      from: {id: 42, is_bot: false, first_name: 'Ada'},
      chat: {id: 42, type: 'private', first_name: 'Ada'},
      entities: [{offset: 0, length: 6, type: 'bot_command'}],
    })
    const polled = await api('getUpdates', {})
    expect(polled.json.result).toEqual([{update_id: sent.json.update_id, message: sent.json.message}])

    const reply = await c('POST', `${path}/messages`, {text: 'again', user_id: 42, reply_to_message_id: 1})
    expect(reply.json.message.reply_to_message).toMatchObject({message_id: 1, text: '/start hi'})
    const group = await c('POST', `${path}/messages`, {text: 'hello group', user_id: 42, chat_id: -100})
    expect(group.json.message.chat).toMatchObject({id: -100, type: 'group'})
  })

  it("GET calls returns the bot's calls with seq and next; method filters; wait long-polls until a call comes", async () => {
    const {c, path, api, emu} = await started()
    await c('POST', `${path}/messages`, {text: 'hi', user_id: 7})
    await api('getMe')
    const ok = await api('sendMessage', {chat_id: 7, text: 'hello'})
    await api('sendMessage', {chat_id: 8, text: 'nobody'})

    const all = await c('GET', `${path}/calls`)
    expect(all.json.calls.map((x: any) => [x.seq, x.method, x.ok])).toEqual([
      [1, 'getMe', true],
      [2, 'sendMessage', true],
      [3, 'sendMessage', false],
    ])
    expect(all.json.next).toBe(3)
    expect(all.json.calls[1]).toEqual({
      seq: 2,
      method: 'sendMessage',
      params: {chat_id: '7', text: 'hello'},
      ok: true,
      result: ok.json.result,
    })
    expect(all.json.calls[2]).toEqual({
      seq: 3,
      method: 'sendMessage',
      params: {chat_id: '8', text: 'nobody'},
      ok: false,
      error_code: 400,
      description: 'Bad Request: chat not found',
    })

    const filtered = await c('GET', `${path}/calls?since=1&method=sendmessage`)
    expect(filtered.json.calls.map((x: any) => x.seq)).toEqual([2, 3])
    const none = await c('GET', `${path}/calls?since=3`)
    expect(none.json).toEqual({calls: [], next: 3})

    // long poll: answered by the next matching call, not by a non-matching one. Answered as that call is recorded:
    // a wait that ran its time out (50 s) would also list the call sent after it.
    const listening = emu.listenerCount('call')
    const waiting = c('GET', `${path}/calls?since=3&wait=50&method=sendMessage`)
    await waitFor(() => emu.listenerCount('call') > listening, {what: 'the long poll to wait'})
    await api('getMe')
    await api('sendMessage', {chat_id: 7, text: 'later'})
    await api('sendMessage', {chat_id: 7, text: 'after the answer'})
    const woke = await waiting
    expect(woke.json.calls.map((x: any) => [x.method, x.params.text])).toEqual([['sendMessage', 'later']])
    expect(woke.json.next).toBe(5)
  })

  it('GET calls with wait answers [] when the time is up', async () => {
    const {c, path} = await started()
    const res = await c('GET', `${path}/calls?since=0&wait=0.2`)
    expect(res.json).toEqual({calls: [], next: 0})
  })

  it("POST callback_queries presses a button of the bot's message", async () => {
    const {c, path, api, emu, token} = await started()
    await c('POST', `${path}/messages`, {text: '/ask', user_id: 9})
    const asked = await api('sendMessage', {
      chat_id: 9,
      text: 'Like it?',
      reply_markup: {inline_keyboard: [[{text: 'Yes', callback_data: 'yes'}]]},
    })
    const messageId = asked.json.result.message_id
    const pressed = await c('POST', `${path}/callback_queries`, {data: 'yes', message_id: messageId, user_id: 9})
    expect(pressed.status).toBe(200)
    expect(Object.keys(pressed.json)).toEqual(['update_id', 'callback_query'])
    expect(pressed.json.callback_query).toMatchObject({
      from: {id: 9},
      data: 'yes',
      message: {message_id: messageId, text: 'Like it?'},
    })
    const answered = await api('answerCallbackQuery', {callback_query_id: pressed.json.callback_query.id})
    expect(answered.json).toEqual({ok: true, result: true})
    expect(emu.pendingUpdates(token).at(-1)).toMatchObject({update_id: pressed.json.update_id})

    const missing = await c('POST', `${path}/callback_queries`, {data: 'yes', message_id: 999, user_id: 9})
    expect(missing).toEqual({
      status: 400,
      json: {error: "message_id 999: there is no message 999 in chat 9 (pass the chat_id of the bot's message)"},
    })
  })

  it('POST updates queues any update without update_id', async () => {
    const {c, path, emu, token} = await started()
    const date = Math.floor(Date.now() / 1000)
    const res = await c('POST', `${path}/updates`, {
      edited_message: {message_id: 3, date, chat: {id: 5, type: 'private'}, text: 'x'},
    })
    expect(res.status).toBe(200)
    expect(emu.pendingUpdates(token)).toEqual([
      {update_id: res.json.update_id, edited_message: {message_id: 3, date, chat: {id: 5, type: 'private'}, text: 'x'}},
    ])
    // a message more than a day old is never queued, as on Telegram
    expect((await c('POST', `${path}/messages`, {text: 'old', date: date - 90_000})).json.update_id).toBe(0)
    expect((await c('POST', `${path}/updates`, {update_id: 5, message: {}})).json.error).toMatch(/leave update_id out/)
    expect((await c('POST', `${path}/updates`, {mesage: {}})).json.error).toMatch(/"mesage" is not an update type/)
    expect((await c('POST', `${path}/updates`, {message: {}, poll: {}})).status).toBe(400)
  })

  it('POST faults and chats/{id}/block inject failures; state shows queue, webhook and chats; reset clears', async () => {
    const {c, path, api} = await started()
    await c('POST', `${path}/messages`, {text: 'hi', user_id: 11, first_name: 'Bo'})
    const fault = await c('POST', `${path}/faults`, {
      method: 'sendMessage',
      error_code: 429,
      description: 'Too Many Requests: retry after 2',
      retry_after: 2,
    })
    expect(fault).toEqual({status: 200, json: {ok: true}})
    const limited = await api('sendMessage', {chat_id: 11, text: 'x'})
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('2')
    expect(limited.json.parameters).toEqual({retry_after: 2})

    const blocked = await c('POST', `${path}/chats/11/block`)
    expect(blocked.status).toBe(200)
    expect(typeof blocked.json.update_id).toBe('number')
    expect((await api('sendMessage', {chat_id: 11, text: 'x'})).json.description).toBe(
      'Forbidden: bot was blocked by the user',
    )

    const state = await c('GET', `${path}/state`)
    expect(state.json.webhook).toBeNull()
    expect(state.json.queue.map((u: any) => Object.keys(u)[1])).toEqual(['message', 'my_chat_member'])
    expect(state.json.chats).toEqual([
      {
        chat: {id: 11, first_name: 'Bo', username: 'tester', type: 'private'},
        messages: [expect.objectContaining({text: 'hi'})],
        blocked: true,
      },
    ])

    expect((await c('POST', '/reset')).json).toEqual({ok: true})
    const after = await c('GET', `${path}/state`)
    expect(after.json).toMatchObject({queue: [], webhook: null, chats: []})
  })

  it('state shows the webhook as getWebhookInfo does (no secret)', async () => {
    const {c, path, api} = await started()
    await api('setWebhook', {url: 'http://127.0.0.1:9/hook', secret_token: 'shh-secret'})
    const state = await c('GET', `${path}/state`)
    expect(state.json.webhook).toMatchObject({url: 'http://127.0.0.1:9/hook', has_custom_certificate: false})
    expect(JSON.stringify(state.json)).not.toContain('shh-secret')
  })

  it('bad input: 400 with a message; unknown token 404 (not echoed); unknown path 404; wrong verb 405', async () => {
    const {c, path, emu} = await started()
    expect(await c('POST', `${path}/messages`, {})).toEqual({
      status: 400,
      json: {error: 'text is required (a non-empty string)'},
    })
    expect(await c('POST', `${path}/messages`, {text: 'x', user_id: 'abc'})).toEqual({
      status: 400,
      json: {error: 'user_id "abc" must be an integer'},
    })
    expect((await c('POST', `${path}/messages`, {text: 'x', txt: 1})).json.error).toMatch(
      /^unknown field "txt"; the fields are text, chat_id/,
    )
    expect(await c('POST', `${path}/messages`, undefined, '{not json')).toEqual({
      status: 400,
      json: {error: 'the body is not valid JSON (send a JSON object with Content-Type: application/json)'},
    })
    expect(
      (await c('POST', `${path}/faults`, {method: 'sendMessage', error_code: 200, description: 'x'})).json.error,
    ).toMatch(/errorCode 200 must be an HTTP error status/)
    expect((await c('GET', `${path}/calls?wait=-1`)).status).toBe(400)
    expect((await c('POST', `${path}/chats/abc/block`)).json.error).toBe(
      'chat_id "abc" in the path must be a non-zero integer',
    )

    const stranger = '999999:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
    const unknown = await c('POST', `/bots/${stranger}/messages`, {text: 'x'})
    expect(unknown.status).toBe(404)
    expect(JSON.stringify(unknown.json)).not.toContain(stranger)
    const nowhere = await c('GET', `${path}/nowhere`)
    expect(nowhere.status).toBe(404)
    expect(nowhere.json.error).toBe(
      'no control endpoint GET /_emulator/bots/{token}/nowhere; see docs/emulator.md for the list',
    )
    expect((await c('GET', `${path}/messages`)).status).toBe(405)
    expect((await c('GET', '/reset')).status).toBe(405)
    await emu.stop()
  })

  it('a long-polling GET calls is answered when the emulator stops', async () => {
    const {c, path, emu} = await started()
    const waiting = c('GET', `${path}/calls?wait=30`).catch(() => 'closed')
    await waitFor(() => emu.listenerCount('call') > 0, {what: 'the long poll to register'})
    await emu.stop()
    const res = await waiting
    expect(res === 'closed' || (res as any).json.calls.length === 0).toBe(true)
  })

  it('drives a real grammY bot in long polling: message in, reply read back through calls', async () => {
    const {c, path, emu, token} = await started()
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    const running = bot.start()
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      await c('POST', `${path}/messages`, {text: 'ping', user_id: 31})
      const res = await c('GET', `${path}/calls?since=0&wait=20&method=sendMessage`)
      expect(res.json.calls).toHaveLength(1)
      expect(res.json.calls[0]).toMatchObject({
        method: 'sendMessage',
        ok: true,
        params: {chat_id: '31', text: 'echo: ping'},
      })
    } finally {
      await bot.stop()
      await running
    }
  })
})

describe('bot emulator prints the control API base', () => {
  it('as a "control" line, and it answers there (needs npm run build)', async () => {
    const {startCli} = await import('../support/cli.js')
    const p = startCli(['emulator', '--port', '0'], {timeoutMs: 90_000})
    try {
      const out = await p.waitForOutput(/Ctrl-C stops the emulator/, {stream: 'stdout', timeoutMs: 20_000})
      const line =
        /^ {2}control (http:\/\/127\.0\.0\.1:\d+\/_emulator) {2}\(the user side over HTTP: \/\S+\/docs\/emulator\.md\)$/m.exec(
          out,
        )
      expect(line, out).not.toBeNull()
      const token = '1234567890:OFFLINE-DEV-TOKEN-NOT-A-REAL-SECRET'
      const sent = await control(line![1], 'POST', `/bots/${token}/messages`, {text: 'hi'})
      expect(sent.status).toBe(200)
      expect(sent.json.message.text).toBe('hi')
    } finally {
      p.kill('SIGINT')
      await p.exited
    }
  })
})
