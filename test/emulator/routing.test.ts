import net from 'node:net'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {setup} from './helpers.js'

/** Send raw bytes and read the whole answer (for requests fetch cannot make). */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text))
    let data = ''
    socket.on('data', (c) => (data += c.toString()))
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
}

describe('routing and envelope', () => {
  it('answers getMe with the fields in the server order, any method case, GET or POST', async () => {
    const {api, bot} = await setup()
    const a = await api('getMe')
    expect(a.status).toBe(200)
    expect(a.headers.get('content-type')).toBe('application/json')
    expect(a.text).toBe(
      `{"ok":true,"result":{"id":${bot.id},"is_bot":true,"first_name":"Test Bot","username":"test_bot","active_usernames":["test_bot"],` +
        '"can_join_groups":true,"can_read_all_group_messages":false,"supports_inline_queries":false,' +
        '"supports_guest_queries":false,"can_connect_to_business":false,"has_main_web_app":false,' +
        '"has_topics_enabled":false,"allows_users_to_create_topics":false,"can_manage_bots":false,"supports_join_request_queries":false,' +
        '"needs_inline_query_location":false,"has_topic_sidebar":false}}',
    )
    expect((await api('GETME')).text).toBe(a.text)
    expect((await api('getme', {})).text).toBe(a.text)
  })

  it('takes the method from the `method` parameter when the path has none', async () => {
    const {base, bot} = await setup()
    const viaJson = await fetch(`${base}/`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: '{"method":"getMe"}',
    })
    expect((await viaJson.json()).result.id).toBe(bot.id)
    const viaQuery = await fetch(`${base}/?method=getme`)
    expect((await viaQuery.json()).result.id).toBe(bot.id)
  })

  it('answers 404 texts for bad paths and unknown methods, 401 for unknown or revoked tokens (cloud rules)', async () => {
    // a malformed token is api.telegram.org's 404; under local rules the local server's checks answer (server-words.test.ts)
    const {emu, base, token} = await setup({local: false})
    const get = async (path: string) => {
      const res = await fetch(`${emu.apiRoot}${path}`)
      return [res.status, await res.text()]
    }
    expect(await get(`${base.slice(emu.apiRoot.length)}/noSuchMethod`)).toEqual([
      404,
      '{"ok":false,"error_code":404,"description":"Not Found: method not found"}',
    ])
    expect(await get('/foo/getMe')).toEqual([404, '{"ok":false,"error_code":404,"description":"Not Found"}'])
    expect(await get(`/bot${token}`)).toEqual([404, '{"ok":false,"error_code":404,"description":"Not Found"}'])
    expect(await get('/bot/getMe')).toEqual([404, '{"ok":false,"error_code":404,"description":"Not Found"}'])
    expect(await get('/bot123:short/getMe')).toEqual([404, '{"ok":false,"error_code":404,"description":"Not Found"}'])
    expect(await get('/botbot123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe')).toEqual([
      404,
      '{"ok":false,"error_code":404,"description":"Not Found"}',
    ])
    const unknown = '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
    expect(await get(`/bot${unknown}/getMe`)).toEqual([
      401,
      '{"ok":false,"error_code":401,"description":"Unauthorized"}',
    ])
    const fresh = emu.revokeToken(token)
    expect(await get(`/bot${token}/getMe`)).toEqual([401, '{"ok":false,"error_code":401,"description":"Unauthorized"}'])
    const [status, body] = await get(`/bot${fresh}/getMe`)
    expect(status).toBe(200)
    expect(JSON.parse(body as string).result.username).toBe('test_bot')
  })

  it('answers 404 for an absolute URI and 501 with an empty body for verbs other than GET and POST', async () => {
    const {emu, token} = await setup()
    const absolute = await rawRequest(
      emu.port,
      `GET http://x/bot${token}/getMe HTTP/1.1\r\nHost: 127.0.0.1:${emu.port}\r\nConnection: close\r\n\r\n`,
    )
    expect(absolute).toMatch(/^HTTP\/1.1 404 /)
    expect(absolute).toContain(
      '{"ok":false,"error_code":404,"description":"Not Found: absolute URI is specified in the Request-Line"}',
    )
    const put = await fetch(`${emu.apiRoot}/bot${token}/getMe`, {method: 'PUT'})
    expect(put.status).toBe(501)
    expect(await put.text()).toBe('')
  })

  it('acceptAnyToken creates a bot for any well-formed token; malformed ones stay 404 (cloud rules)', async () => {
    const emu = await BotApiEmulator.start({acceptAnyToken: true, local: false})
    try {
      const res = await fetch(`${emu.apiRoot}/bot987654:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/getMe`)
      expect((await res.json()).result.id).toBe(987654)
      expect((await fetch(`${emu.apiRoot}/bot0987:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/getMe`)).status).toBe(404)
    } finally {
      await emu.stop()
    }
  })
})

describe('parameters', () => {
  it('reads query, form, JSON and multipart; the query string wins on duplicates', async () => {
    const {emu, base, token} = await setup()
    emu.addChat(token, {id: 5, first_name: 'A', type: 'private'})
    const text = async (res: Response) => (await res.json()).result.text
    expect(await text(await fetch(`${base}/sendMessage?chat_id=5&text=q+one%21`))).toBe('q one!')
    expect(
      await text(
        await fetch(`${base}/sendMessage`, {
          method: 'POST',
          headers: {'content-type': 'application/x-www-form-urlencoded'},
          body: 'chat_id=5&text=form+text',
        }),
      ),
    ).toBe('form text')
    expect(
      await text(
        await fetch(`${base}/sendMessage`, {
          method: 'POST',
          headers: {'content-type': 'application/json; charset=utf-8'},
          body: '{"chat_id":5,"text":"json"}',
        }),
      ),
    ).toBe('json')
    const form = new FormData()
    form.set('chat_id', '5')
    form.set('text', 'multi')
    expect(await text(await fetch(`${base}/sendMessage`, {method: 'POST', body: form}))).toBe('multi')
    expect(
      await text(
        await fetch(`${base}/sendMessage?text=from+query`, {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: '{"chat_id":5,"text":"from body"}',
        }),
      ),
    ).toBe('from query')
    // gzip bodies are accepted
    expect(
      await text(
        await fetch(`${base}/sendMessage`, {
          method: 'POST',
          headers: {'content-type': 'application/json', 'content-encoding': 'gzip'},
          body: gzipSync('{"chat_id":5,"text":"zipped"}'),
        }),
      ),
    ).toBe('zipped')
  })

  it('ignores bodies of other content types, and malformed JSON (a broken setWebhook deletes the webhook)', async () => {
    const {base, api} = await setup()
    const plain = await fetch(`${base}/sendMessage`, {
      method: 'POST',
      headers: {'content-type': 'text/plain'},
      body: 'chat_id=5&text=x',
    })
    expect(await plain.text()).toBe('{"ok":false,"error_code":400,"description":"Bad Request: message text is empty"}')
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/a'})).json.description).toBe('Webhook was set')
    const broken = await fetch(`${base}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: '{"url": "http://127.0.0.1:9/b',
    })
    expect(await broken.text()).toBe('{"ok":true,"result":true,"description":"Webhook was deleted"}')
  })

  it('keeps raw JSON text for non-string JSON values: a list and its JSON string behave the same', async () => {
    const {api} = await setup()
    await api('getUpdates', {allowed_updates: ['message', 'callback_query']})
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toEqual(['message', 'callback_query'])
    await api('getUpdates', {allowed_updates: '["edited_message"]'})
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toEqual(['edited_message'])
  })

  it('reads booleans as true/yes/1 and clamps integers silently', async () => {
    const {api, emu, token} = await setup()
    for (const [value, dropped] of [
      ['yes', true],
      [' TRUE ', true],
      ['1', true],
      ['no', false],
      ['0', false],
      ['false', false],
    ] as const) {
      emu.sendUserMessage(token, {text: 'x'})
      await api('deleteWebhook', {drop_pending_updates: value})
      expect(emu.pendingUpdates(token).length === 0).toBe(dropped)
      await api('deleteWebhook', {drop_pending_updates: true})
    }
    await api('setWebhook', {url: 'http://127.0.0.1:9/a', max_connections: 1_000_000})
    expect((await api('getWebhookInfo')).json.result.max_connections).toBe(100000)
  })

  it('answers 429 with parameters.retry_after and a Retry-After header', async () => {
    const {api} = await setup({timeScale: 1})
    await api('setWebhook', {url: 'http://127.0.0.1:9/a'})
    const again = await api('setWebhook', {url: 'http://127.0.0.1:9/b'})
    expect(again.status).toBe(429)
    expect(again.text).toBe(
      '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}',
    )
    expect(again.headers.get('retry-after')).toBe('1')
  })
})
