import {describe, expect, it} from 'vitest'
import type {DeliveryEvent} from '../../src/emulator/index.js'
import {receiver, setup, textMessage} from './helpers.js'
import {waitFor} from '../support/wait.js'

describe('webhook delivery', () => {
  it('POSTs the update as JSON with the secret header; 2xx acknowledges it', async () => {
    const {api, emu, token} = await setup()
    const hook = await receiver()
    await api('setWebhook', {url: hook.url, secret_token: 'S3cret_-x'})
    const u = emu.sendUserMessage(token, {text: 'hi'})
    await waitFor(() => hook.received.length === 1 && emu.pendingUpdates(token).length === 0, {what: 'the delivery'})
    const got = hook.received[0]
    expect(got.body).toEqual(u)
    expect(got.raw.startsWith(`{"update_id":${u.update_id},\n"message":{`)).toBe(true)
    expect(got.headers['x-telegram-bot-api-secret-token']).toBe('S3cret_-x')
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers.host).toBe(`127.0.0.1:${hook.port}`)
    expect(emu.getWebhookInfo(token)).toEqual({
      url: hook.url,
      has_custom_certificate: false,
      pending_update_count: 0,
      max_connections: 100,
      ip_address: '127.0.0.1',
    })
  })

  it('records a wrong status in last_error_*, retries at once, then keeps the error after success', async () => {
    // × 100: a retry after the 2 s pause would come after 200 s, which only a hang reaches: the second attempt
    // arriving at all shows it came at once.
    const {api, emu, token} = await setup({timeScale: 100})
    const hook = await receiver((_r, i) => ({status: i === 0 ? 500 : 200}))
    const events: DeliveryEvent[] = []
    emu.on('delivery', (e) => events.push(e))
    await api('setWebhook', {url: hook.url})
    const u = emu.sendUserMessage(token, {text: 'hi'})
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the second attempt'})
    expect(hook.received.map((r) => r.body.update_id)).toEqual([u.update_id, u.update_id])
    const info = (await api('getWebhookInfo')).json.result
    expect(info.last_error_message).toBe('Wrong response from the webhook: 500 Internal Server Error')
    expect(Math.abs(info.last_error_date - Date.now() / 1000)).toBeLessThan(5)
    expect(events.map((e) => [e.updateId, e.ok, e.status])).toEqual([
      [u.update_id, false, 500],
      [u.update_id, true, 200],
    ])
    expect(events[0].error).toBe('Wrong response from the webhook: 500 Internal Server Error')
  })

  it('backs off 0, 2, 4, 8 s (scaled) and honours Retry-After', async () => {
    const {api, emu, token} = await setup({timeScale: 0.1}) // 2 s → 200 ms
    const hook = await receiver((_r, i) => (i < 4 ? {status: 502} : {status: 200}))
    await api('setWebhook', {url: hook.url})
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the fifth attempt'})
    const gaps = hook.received.slice(1).map((r, i) => r.at - hook.received[i].at)
    // gaps[0], the retry at once, is the test above's (at timeScale 1, against the real 2 s): against a backoff
    // scaled to 200 ms it was a stopwatch a loaded machine beat (368 ms at load 31). Lower bounds hold at any load.
    expect(gaps[1]).toBeGreaterThanOrEqual(190)
    expect(gaps[2]).toBeGreaterThanOrEqual(390)
    expect(gaps[3]).toBeGreaterThanOrEqual(790)
    expect(emu.getWebhookInfo(token).last_error_message).toBe('Wrong response from the webhook: 502 Bad Gateway')

    const {api: api2, emu: emu2, token: token2} = await setup({timeScale: 0.1})
    const limited = await receiver((_r, i) => (i === 0 ? {status: 429, headers: {'Retry-After': '5'}} : {status: 200}))
    await api2('setWebhook', {url: limited.url})
    emu2.sendUserMessage(token2, {text: 'x'})
    await waitFor(() => limited.received.length === 2, {what: 'the retry'})
    expect(limited.received[1].at - limited.received[0].at).toBeGreaterThanOrEqual(490) // 5 s scaled, not "at once"
    expect(emu2.getWebhookInfo(token2).last_error_message).toBe(
      'Wrong response from the webhook: 429 Too Many Requests',
    )
  })

  it('reports Connection refused, redirects and Read timeout expired', async () => {
    const closed = await receiver()
    const closedUrl = closed.url
    await closed.stop()
    const {api, emu, token} = await setup()
    await api('setWebhook', {url: closedUrl})
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => emu.getWebhookInfo(token).last_error_message === 'Connection refused', {
      what: 'Connection refused',
    })

    const {api: api2, emu: emu2, token: token2} = await setup()
    const redirect = await receiver(() => ({status: 302, headers: {Location: '/elsewhere'}}))
    await api2('setWebhook', {url: redirect.url})
    emu2.sendUserMessage(token2, {text: 'x'})
    await waitFor(
      () => emu2.getWebhookInfo(token2).last_error_message === 'Wrong response from the webhook: 302 Found',
      {what: 'a 302 error'},
    )

    // 1 s scaled: the first answer (3 s) is past it, the retry's (at once) within it at any load, where a 50 ms
    // timeout also cut the retry on a loaded machine (three attempts).
    const {api: api3, emu: emu3, token: token3} = await setup({webhookReadTimeoutMs: 100_000})
    const slow = await receiver((_r, i) => ({status: 200, delayMs: i === 0 ? 3000 : 0}))
    await api3('setWebhook', {url: slow.url})
    emu3.sendUserMessage(token3, {text: 'x'})
    await waitFor(() => emu3.pendingUpdates(token3).length === 0, {what: 'the retry after the timeout'})
    expect(emu3.getWebhookInfo(token3).last_error_message).toBe('Read timeout expired')
    expect(slow.received.length).toBe(2)
  })

  it('timeScale 0 removes delays but leaves the webhook time to answer (no read timeout, one delivery)', async () => {
    const {api, emu, token} = await setup({timeScale: 0})
    const slow = await receiver(() => ({status: 200, delayMs: 50}))
    await api('setWebhook', {url: slow.url})
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the delivery'})
    expect(slow.received.length).toBe(1)
    expect(emu.getWebhookInfo(token).last_error_message).toBeUndefined()
  })

  it('keeps one update in flight per chat, in order, and delivers chats in parallel', async () => {
    const {api, emu, token} = await setup()
    const spans: Record<number, Array<[number, number, number]>> = {}
    // Every delivery is held until both chats have one in flight: in parallel, shown by the two arriving together
    // (deliveries one at a time would never release it), not by overlapping 30 ms holds.
    const inFlight = new Set<number>()
    let bothIn!: () => void
    const both = new Promise<void>((resolve) => {
      bothIn = resolve
    })
    const hook = await receiver(async (r) => {
      const chat = r.body.message.chat.id as number
      const start = Date.now()
      inFlight.add(chat)
      if (inFlight.size === 2) bothIn()
      await both
      ;(spans[chat] ??= []).push([r.body.update_id, start, Date.now()])
      return {status: 200}
    })
    await api('setWebhook', {url: hook.url})
    const sent: Record<number, number[]> = {1: [], 2: []}
    for (let i = 0; i < 3; i++)
      for (const chat of [1, 2]) sent[chat].push(emu.injectUpdate(token, textMessage(chat, `m${i}`, i + 1)).update_id)
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'all deliveries', timeout: 10000})
    for (const chat of [1, 2]) {
      expect(spans[chat].map((s) => s[0])).toEqual(sent[chat])
      for (let i = 1; i < spans[chat].length; i++)
        expect(spans[chat][i][1]).toBeGreaterThanOrEqual(spans[chat][i - 1][2])
    }
    expect(hook.maxActive).toBe(2)
  })

  it('a failing chat blocks only itself', async () => {
    const {api, emu, token} = await setup({timeScale: 1})
    const hook = await receiver((r) => ({status: r.body.message?.chat.id === 1 ? 500 : 200}))
    await api('setWebhook', {url: hook.url})
    emu.injectUpdate(token, textMessage(1, 'a', 1))
    emu.injectUpdate(token, textMessage(1, 'b', 2))
    const other = emu.injectUpdate(token, textMessage(2, 'c', 1))
    await waitFor(() => hook.received.some((r) => r.body.update_id === other.update_id), {what: 'chat 2 delivered'})
    await waitFor(() => hook.received.filter((r) => r.body.message.chat.id === 1).length >= 2, {
      what: 'the immediate retry',
    })
    expect(hook.received.filter((r) => r.body.message?.text === 'b')).toHaveLength(0)
    expect(emu.pendingUpdates(token)).toHaveLength(2)
  })

  it('queues callback queries by the user who pressed, whatever the chat', async () => {
    const {api, emu, token} = await setup({timeScale: 1})
    const hook = await receiver((r) => ({status: r.body.callback_query?.data === 'fail' ? 500 : 200}))
    await api('setWebhook', {url: hook.url})
    emu.sendCallbackQuery(token, {data: 'fail', userId: 7, chatId: 1})
    emu.sendCallbackQuery(token, {data: 'blocked', userId: 7, chatId: 2})
    const free = emu.sendCallbackQuery(token, {data: 'free', userId: 8, chatId: 1})
    await waitFor(() => hook.received.some((r) => r.body.update_id === free.update_id), {what: 'user 8 delivered'})
    await waitFor(() => hook.received.filter((r) => r.body.callback_query.data === 'fail').length >= 2, {
      what: 'the retry',
    })
    expect(hook.received.filter((r) => r.body.callback_query.data === 'blocked')).toHaveLength(0)
  })

  it('uses at most max_connections in parallel', async () => {
    const {api, emu, token} = await setup()
    const hook = await receiver(async () => ({status: 200, delayMs: 40}))
    await api('setWebhook', {url: hook.url, max_connections: 3})
    for (let chat = 1; chat <= 9; chat++) emu.injectUpdate(token, textMessage(chat, 'x'))
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'all deliveries', timeout: 10000})
    expect(hook.received).toHaveLength(9)
    expect(hook.maxActive).toBe(3)
  })

  it('executes a method returned in the webhook response and records it as a webhook reply', async () => {
    const {api, emu, token} = await setup()
    const hook = await receiver((r, i) => {
      const chat_id = r.body.message.chat.id
      if (i === 0)
        return {
          status: 200,
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({method: 'sendMessage', chat_id, text: 'pong'}),
        }
      if (i === 1)
        return {
          status: 200,
          headers: {'Content-Type': 'application/x-www-form-urlencoded'},
          body: `method=SENDMESSAGE&chat_id=${chat_id}&text=form+pong`,
        }
      if (i === 2)
        return {
          status: 200,
          headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({method: 'deleteWebhook'}),
        }
      return {status: 200, headers: {'Content-Type': 'application/json'}, body: JSON.stringify({method: 'getMe'})}
    })
    await api('setWebhook', {url: hook.url})
    for (const text of ['ping', 'ping2', 'ping3', 'ping4']) emu.sendUserMessage(token, {text})
    const first = await emu.waitForBotMessage(token)
    expect(first).toMatchObject({
      method: 'sendMessage',
      source: 'webhook-reply',
      params: {chat_id: '1111', text: 'pong'},
    })
    expect((first.result as any).text).toBe('pong')
    const second = await emu.waitForBotMessage(token)
    expect(second).toMatchObject({method: 'SENDMESSAGE', source: 'webhook-reply', params: {text: 'form pong'}})
    await waitFor(() => hook.received.length === 4 && emu.pendingUpdates(token).length === 0, {what: 'all deliveries'})
    expect(
      emu
        .calls(token)
        .filter((c) => c.source === 'webhook-reply')
        .map((c) => c.method),
    ).toEqual(['sendMessage', 'SENDMESSAGE'])
    expect(emu.webhook(token)?.url).toBe(hook.url) // deleteWebhook in a reply is not run
  })

  it('keeps pending updates across mode switches', async () => {
    const {api, emu, token} = await setup({timeScale: 0.2})
    const failing = await receiver(() => ({status: 500}))
    await api('setWebhook', {url: failing.url})
    const a = emu.sendUserMessage(token, {text: 'a'})
    await waitFor(() => failing.received.length >= 2, {what: 'two failed attempts'})
    await api('deleteWebhook')
    const b = emu.sendUserMessage(token, {text: 'b'})
    expect((await api('getUpdates')).json.result.map((u: any) => u.update_id)).toEqual([a.update_id, b.update_id])
    const working = await receiver()
    // a second setWebhook within 1 s gets 429: retry until the limit passes
    await waitFor(async () => (await api('setWebhook', {url: working.url})).status === 200, {
      what: 'setWebhook past the rate limit',
    })
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'delivery after the switch back'})
    expect(working.received.map((r) => r.body.update_id)).toEqual([a.update_id, b.update_id])
    expect(emu.getWebhookInfo(token).last_error_date).toBeUndefined() // cleared by the new webhook
  })
})
