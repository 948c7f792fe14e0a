/** The recording Bot API proxy against the real emulator (and a raw upstream where the emulator cannot show it). */
import {describe, expect, it} from 'vitest'
import {receiver, setup} from '../emulator/helpers.js'
import {deadPort, postJson, recordingProxy, sink} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

const secretOf = (token: string) => token.slice(token.indexOf(':') + 1)

function assertNoToken(records: unknown, token: string) {
  const text = JSON.stringify(records)
  expect(text).not.toContain(token)
  expect(text).not.toContain(secretOf(token))
  expect(text).not.toContain(encodeURIComponent(token))
}

describe('api proxy: calls recorded against the emulator', () => {
  it('forwards sendMessage and records its method, params, chatId, answer and time', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const rec = await recordingProxy(emu.apiRoot)
    const answer = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {
      chat_id: 42,
      text: 'hello there',
      reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]},
    })
    expect(answer.status).toBe(200)
    expect(answer.json.ok).toBe(true)
    expect(answer.json.result.text).toBe('hello there')
    expect(emu.sentMessages(token, {chatId: 42}).length).toBe(1)

    const [call] = await waitFor(() => (rec.calls.length === 1 ? rec.calls : undefined), {what: 'the call record'})
    expect(call).toMatchObject({
      method: 'sendMessage',
      ok: true,
      chatId: 42,
      params: {chat_id: 42, text: 'hello there', reply_markup: {inline_keyboard: [[{text: 'A', callback_data: 'a'}]]}},
    })
    expect(call.errorCode).toBeUndefined()
    expect(call.ms).toBeGreaterThan(0)
    expect(Date.now() - Date.parse(call.time)).toBeLessThan(60_000)
    expect(rec.proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    assertNoToken(rec.calls, token)
  })

  it('records query-string and urlencoded params, the method name as sent (any case), getMe without params', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 7, type: 'private', first_name: 'Bo'})
    const rec = await recordingProxy(emu.apiRoot)
    const viaQuery = await fetch(
      `${rec.proxy.url}/bot${token}/SENDMESSAGE?chat_id=7&text=${encodeURIComponent('from the query')}`,
    )
    expect((await viaQuery.json()).ok).toBe(true)
    const viaForm = await fetch(`${rec.proxy.url}/bot${token}/sendmessage`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({chat_id: '7', text: 'from a form', user_id: '99'}),
    })
    expect((await viaForm.json()).ok).toBe(true)
    expect((await (await fetch(`${rec.proxy.url}/bot${token}/getMe`)).json()).result.username).toBe('test_bot')

    await waitFor(() => rec.calls.length === 3, {what: 'three records'})
    const byMethod = Object.fromEntries(rec.calls.map((c) => [c.method, c]))
    expect(byMethod.SENDMESSAGE).toMatchObject({ok: true, chatId: 7, params: {chat_id: '7', text: 'from the query'}})
    expect(byMethod.sendmessage).toMatchObject({
      ok: true,
      chatId: 7,
      userId: 99,
      params: {chat_id: '7', text: 'from a form', user_id: '99'},
    })
    expect(byMethod.getMe).toMatchObject({ok: true, params: {}})
    assertNoToken(rec.calls, token)
  })

  it("records failing calls with errorCode, description and explanation: chat not found, can't parse entities", async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const rec = await recordingProxy(emu.apiRoot)
    const missing = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 31337, text: 'hi'})
    expect(missing.status).toBe(400)
    expect(missing.json).toEqual({ok: false, error_code: 400, description: 'Bad Request: chat not found'})
    const markdown = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {
      chat_id: 42,
      text: 'Price: 5.00!',
      parse_mode: 'MarkdownV2',
    })
    expect(markdown.status).toBe(400)
    expect(markdown.json.description).toMatch(/^Bad Request: can't parse entities: /)

    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    const notFound = rec.calls.find((c) => c.chatId === 31337)!
    expect(notFound).toMatchObject({
      method: 'sendMessage',
      ok: false,
      errorCode: 400,
      description: 'Bad Request: chat not found',
    })
    expect(notFound.explanation).toMatch(/does not know that chat/)
    const parse = rec.calls.find((c) => c.chatId === 42)!
    expect(parse).toMatchObject({
      ok: false,
      errorCode: 400,
      description: markdown.json.description,
      params: {parse_mode: 'MarkdownV2'},
    })
    expect(parse.explanation).toMatch(/MarkdownV2/)
    expect(parse.explanation).toMatch(/escaped with a backslash/)
  })

  it('records a 429 with retryAfter and a blocked user with its 403', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    emu.addChat(token, {id: 43, type: 'private', first_name: 'Cy'})
    emu.failNext(token, 'sendMessage', {errorCode: 429, description: 'Too Many Requests: retry after 7', retryAfter: 7})
    emu.blockBot(token, 43)
    const rec = await recordingProxy(emu.apiRoot)
    const flood = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 42, text: 'one'})
    expect(flood.status).toBe(429)
    const blocked = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 43, text: 'two'})
    expect(blocked.status).toBe(403)
    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    const flooded = rec.calls.find((c) => c.chatId === 42)!
    expect(flooded).toMatchObject({ok: false, errorCode: 429, retryAfter: 7})
    expect(flooded.explanation).toMatch(/wait 7 s/)
    const refused = rec.calls.find((c) => c.chatId === 43)!
    expect(refused).toMatchObject({ok: false, errorCode: 403, description: 'Forbidden: bot was blocked by the user'})
    expect(refused.explanation).toMatch(/blocked the bot/)
  })

  it('records a multipart sendDocument with the file as {file, size}; the token and secrets appear in no record', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const hookSecret = 'hook-secret-9f8e7d6c5b'
    const rec = await recordingProxy(emu.apiRoot, {secrets: [hookSecret]})
    const content = Buffer.alloc(12_345, 'x')
    const form = new FormData()
    form.set('chat_id', '42')
    form.set('caption', `see ${token} and ${hookSecret} and ${'long '.repeat(100)}`)
    form.set('document', new Blob([content], {type: 'text/plain'}), 'notes.txt')
    const res = await fetch(`${rec.proxy.url}/bot${token}/sendDocument`, {method: 'POST', body: form})
    const json = await res.json()
    expect(json.ok).toBe(true)
    expect(json.result.document.file_size).toBe(12_345)

    // A call whose URL-like parameter carries the token, and one whose path token is percent-encoded.
    await postJson(`${rec.proxy.url}/bot${token}/setWebhook`, {url: `https://example.com/${hookSecret}/${token}`})
    await postJson(`${rec.proxy.url}/bot${encodeURIComponent(token)}/getMe`, {})

    await waitFor(() => rec.calls.length === 3, {what: 'three records'})
    const doc = rec.calls.find((c) => c.method === 'sendDocument')!
    expect(doc).toMatchObject({
      ok: true,
      chatId: 42,
      params: {chat_id: '42', document: {file: 'notes.txt', size: 12_345}},
    })
    const caption = doc.params.caption as string
    expect(caption).toContain('<token>')
    expect(caption.length).toBeLessThanOrEqual(201)
    const hook = rec.calls.find((c) => c.method === 'setWebhook')!
    expect(String(hook.params.url)).toBe('https://example.com/<token>/<token>')
    assertNoToken(rec.calls, token)
    expect(JSON.stringify(rec.calls)).not.toContain(hookSecret)
  })

  it('a JSON body over 64 KiB is forwarded whole and recorded as {truncated: true} with its chat_id', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const rec = await recordingProxy(emu.apiRoot)
    const answer = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 42, text: 'y'.repeat(70_000)})
    expect(answer.status).toBe(400)
    expect(answer.json.description).toMatch(/is too long/)
    await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    expect(rec.calls[0]).toMatchObject({
      method: 'sendMessage',
      ok: false,
      errorCode: 400,
      chatId: 42,
      params: {chat_id: 42, truncated: true},
    })
    expect(rec.calls[0].explanation).toMatch(/4096/)
    expect(JSON.stringify(rec.calls[0]).length).toBeLessThan(2000)
  })

  it('passes getUpdates results to onUpdates while the bot long-polls', async () => {
    const {emu, token} = await setup({timeScale: 1})
    const rec = await recordingProxy(emu.apiRoot)
    const poll = postJson(`${rec.proxy.url}/bot${token}/getUpdates`, {timeout: 20, offset: 0})
    await waitFor(() => emu.isLongPolling(token), {what: 'the long poll to wait in the emulator', timeout: 10_000})
    const sent = emu.sendUserMessage(token, {text: 'ping', userId: 5150})
    const answer = await poll
    expect(answer.json.ok).toBe(true)
    expect(answer.json.result.map((u: {update_id: number}) => u.update_id)).toEqual([sent.update_id])

    await waitFor(() => rec.calls.length === 1, {what: 'the getUpdates record'})
    expect(rec.updates).toEqual([answer.json.result])
    expect(rec.calls[0]).toMatchObject({method: 'getUpdates', ok: true, params: {timeout: 20, offset: 0}})
    expect(rec.calls[0].ms).toBeGreaterThan(0)
  })

  it('does not pass a failed getUpdates (409) to onUpdates', async () => {
    const {emu, token} = await setup()
    const rec = await recordingProxy(emu.apiRoot)
    const hook = await receiver()
    const set = await postJson(`${rec.proxy.url}/bot${token}/setWebhook`, {url: hook.url})
    expect(set.json.ok).toBe(true)
    const conflict = await postJson(`${rec.proxy.url}/bot${token}/getUpdates`, {})
    expect(conflict.status).toBe(409)
    await waitFor(() => rec.calls.length === 2, {what: 'two records'})
    expect(rec.updates).toEqual([])
    expect(rec.calls.find((c) => c.method === 'getUpdates')!.explanation).toMatch(/webhook is set/)
  })

  it('a throwing onCall or onUpdates changes nothing for the bot', async () => {
    const {emu, token} = await setup()
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    let seen = 0
    const rec = await recordingProxy(emu.apiRoot, {
      onCall: () => {
        seen += 1
        throw new Error('listener bug')
      },
      onUpdates: () => {
        throw new Error('listener bug')
      },
    })
    for (let i = 0; i < 5; i++) {
      const answer = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 42, text: `n${i}`})
      expect(answer.json.ok).toBe(true)
    }
    emu.sendUserMessage(token, {text: 'x', userId: 42})
    const updates = await postJson(`${rec.proxy.url}/bot${token}/getUpdates`, {})
    expect(updates.json.result).toHaveLength(1)
    await waitFor(() => seen === 6, {what: 'six listener calls'})
    expect(emu.sentMessages(token, {chatId: 42}).map((m) => m.params.text)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4'])
  })
})

describe('api proxy: upstream failures', () => {
  it('answers 502 with a JSON envelope naming the host (no token) when the upstream is down, and records it', async () => {
    const port = await deadPort()
    const rec = await recordingProxy(`http://127.0.0.1:${port}`)
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
    const answer = await postJson(`${rec.proxy.url}/bot${token}/sendMessage`, {chat_id: 1, text: 'x'})
    expect(answer.status).toBe(502)
    expect(answer.json).toEqual({
      ok: false,
      error_code: 502,
      description: `Bad Gateway: bot dev could not reach 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    })
    expect(answer.text).not.toContain(secretOf(token))
    await waitFor(() => rec.calls.length === 1, {what: 'the record'})
    expect(rec.calls[0]).toMatchObject({method: 'sendMessage', ok: false, errorCode: 502, chatId: 1})
    expect(rec.calls[0].description).toMatch(/^Bad Gateway: bot dev could not reach/)
    expect(rec.calls[0].explanation).toMatch(/could not reach/)
    assertNoToken(rec.calls, token)
  })

  it('rejects a non-http upstream', async () => {
    await expect(recordingProxy('ftp://127.0.0.1:21')).rejects.toThrow(/http:\/\/ or https:\/\//)
  })
})
