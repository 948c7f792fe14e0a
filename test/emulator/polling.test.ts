import {once} from 'node:events'
import {connect} from 'node:net'

import {describe, expect, it} from 'vitest'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {setup, textMessage} from './helpers.js'
import {waitFor} from '../support/wait.js'

const ids = (r: {json: any}) => (r.json.result as Array<{update_id: number}>).map((u) => u.update_id)

describe('the update queue', () => {
  it('numbers updates +1 from a random 9-digit start, or from firstUpdateId', async () => {
    const {emu, token} = await setup()
    const a = emu.injectUpdate(token, textMessage(1, 'a'))
    const b = emu.injectUpdate(token, textMessage(1, 'b'))
    expect(String(a.update_id)).toMatch(/^[1-9]\d{8}$/)
    expect(b.update_id).toBe(a.update_id + 1)
    expect(Object.keys(a)).toEqual(['update_id', 'message'])
    const fixed = await setup({firstUpdateId: 500})
    expect(fixed.emu.injectUpdate(fixed.token, textMessage(1, 'a')).update_id).toBe(500)
  })

  it('offset confirms every update below it; 0 starts at the head; the update equal to offset is returned', async () => {
    const {emu, token, api} = await setup({firstUpdateId: 100})
    for (let i = 0; i < 5; i++) emu.injectUpdate(token, textMessage(1, `m${i}`))
    expect(ids(await api('getUpdates'))).toEqual([100, 101, 102, 103, 104])
    expect(ids(await api('getUpdates', {offset: 102}))).toEqual([102, 103, 104])
    expect(emu.pendingUpdates(token).map((u) => u.update_id)).toEqual([102, 103, 104])
    expect(ids(await api('getUpdates', {offset: 0, limit: 1}))).toEqual([102])
  })

  it('a negative offset keeps only the last -offset updates', async () => {
    const {emu, token, api} = await setup({firstUpdateId: 100})
    for (let i = 0; i < 5; i++) emu.injectUpdate(token, textMessage(1, `m${i}`))
    expect(ids(await api('getUpdates', {offset: -2}))).toEqual([103, 104])
    expect(emu.pendingUpdates(token)).toHaveLength(2)
  })

  it('an offset beyond tail+10 falls back to the head; one in (tail, tail+10] confirms everything', async () => {
    const {emu, token, api} = await setup({firstUpdateId: 100})
    for (let i = 0; i < 3; i++) emu.injectUpdate(token, textMessage(1, `m${i}`))
    // tail (next id) is 103
    expect(ids(await api('getUpdates', {offset: 114}))).toEqual([100, 101, 102])
    expect(emu.pendingUpdates(token)).toHaveLength(3)
    expect(ids(await api('getUpdates', {offset: 113}))).toEqual([])
    expect(emu.pendingUpdates(token)).toHaveLength(0)
  })

  it('clamps limit to 1..100 and timeout to 0..50', async () => {
    const {emu, token, api} = await setup({firstUpdateId: 1})
    for (let i = 0; i < 120; i++) emu.injectUpdate(token, textMessage(i + 1, 'x'))
    expect(ids(await api('getUpdates', {limit: 1000}))).toHaveLength(100)
    expect(ids(await api('getUpdates', {limit: 0, offset: 2}))).toEqual([2])
    expect(ids(await api('getUpdates', {limit: -5, offset: 3}))).toEqual([3])
    // timeout below 0 is 0: an empty queue answers at once, without ever holding the poll (a held poll shows as
    // isLongPolling before it is answered)
    await api('getUpdates', {offset: 200})
    let answered = false
    const poll = api('getUpdates', {offset: 121, timeout: -10}).finally(() => {
      answered = true
    })
    await waitFor(() => answered || emu.isLongPolling(token), {what: 'the poll answered or held'})
    expect(emu.isLongPolling(token)).toBe(false)
    expect((await poll).json.result).toEqual([])
  })

  it('a long poll waits and answers as soon as an update arrives', async () => {
    const {emu, token, api} = await setup()
    // 50 s, longer than the test may run: only the update can end this poll.
    const poll = api('getUpdates', {timeout: 50})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    const u = emu.sendUserMessage(token, {text: 'hello'})
    const answer = await poll
    expect(answer.json.result).toEqual([u])
  })

  it('a long poll that times out answers []', async () => {
    const {api} = await setup()
    const t0 = Date.now()
    expect((await api('getUpdates', {timeout: 1})).text).toBe('{"ok":true,"result":[]}')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950)
  })
})

describe('409 conflicts', () => {
  it('a newer waiting poll makes the older one fail with 409; the newer one still gets the update', async () => {
    const {emu, token, api} = await setup()
    const older = api('getUpdates', {timeout: 20, offset: 1})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    const calls = emu.calls(token).length
    const newer = api('getUpdates', {timeout: 20, offset: 2})
    const first = await older
    expect(emu.calls(token).length).toBe(calls + 1)
    expect(first.status).toBe(409)
    expect(first.text).toBe(
      '{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}',
    )
    const u = emu.sendUserMessage(token, {text: 'x'})
    expect((await newer).json.result).toEqual([u])
  })

  it('a poll answered at once does not disturb a waiting one', async () => {
    const {emu, token, api} = await setup()
    const waiting = api('getUpdates', {timeout: 20, offset: 1})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    expect((await api('getUpdates', {timeout: 0, offset: 5})).json.result).toEqual([])
    const u = emu.sendUserMessage(token, {text: 'x'})
    expect((await waiting).json.result).toEqual([u])
  })

  it('getUpdates while a webhook is set gets 409; setWebhook ends a waiting poll with its own 409', async () => {
    const {api, emu, token} = await setup()
    const waiting = api('getUpdates', {timeout: 20})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    expect((await api('setWebhook', {url: 'http://127.0.0.1:9/x'})).json.description).toBe('Webhook was set')
    const ended = await waiting
    expect(ended.status).toBe(409)
    expect(ended.json.description).toBe('Conflict: terminated by setWebhook request')
    const refused = await api('getUpdates')
    expect(refused.status).toBe(409)
    expect(refused.text).toBe(
      `{"ok":false,"error_code":409,"description":"Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}`,
    )
  })

  it('deleteWebhook does not end a waiting poll', async () => {
    const {emu, token, api} = await setup()
    const waiting = api('getUpdates', {timeout: 20})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    expect((await api('deleteWebhook')).json.description).toBe('Webhook is already deleted')
    const u = emu.sendUserMessage(token, {text: 'x'})
    expect((await waiting).json.result).toEqual([u])
  })

  it('holds a 409 for 3 s (scaled) when another 409 went out within the last 3 s', async () => {
    // The first 409 is not held: here a hold would last 300 s, which only a hang reaches.
    const unheld = await setup({timeScale: 100})
    await unheld.api('setWebhook', {url: 'http://127.0.0.1:9/x'})
    expect((await unheld.api('getUpdates')).status).toBe(409)
    const {api} = await setup({timeScale: 0.5}) // 3 s → 1.5 s
    await api('setWebhook', {url: 'http://127.0.0.1:9/x'})
    expect((await api('getUpdates')).status).toBe(409)
    const t1 = Date.now()
    expect((await api('getUpdates')).status).toBe(409)
    expect(Date.now() - t1).toBeGreaterThanOrEqual(1450)
  })
})

describe('throttle and allowed_updates', () => {
  it('raises the timeout to 3 s (scaled) for a repeated short poll with the same offset', async () => {
    const {api} = await setup({timeScale: 0.5}) // 3 s → 1.5 s
    await api('getUpdates', {offset: 7})
    const t0 = Date.now()
    await api('getUpdates', {offset: 7})
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1450)
    // Another offset is not throttled: here the raised timeout would be 300 s, which only a hang reaches.
    const other = await setup({timeScale: 100})
    await other.api('getUpdates', {offset: 7})
    expect((await other.api('getUpdates', {offset: 8})).json.result).toEqual([])
  })

  it('forces limit 1 for the same offset within 0.5 s (scaled)', async () => {
    // × 20: the two polls fall within the 10 s window however loaded the machine is.
    const {emu, token, api} = await setup({timeScale: 20})
    for (let i = 0; i < 3; i++) emu.sendUserMessage(token, {text: `m${i}`})
    expect(ids(await api('getUpdates'))).toHaveLength(3)
    expect(ids(await api('getUpdates'))).toHaveLength(1)
  })

  it('filters updates by allowed_updates when they are created, not the ones already queued', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'before'})
    await api('getUpdates', {allowed_updates: ['callback_query'], offset: 1})
    const dropped = emu.sendUserMessage(token, {text: 'after'})
    expect(dropped.update_id).toBe(0)
    emu.sendCallbackQuery(token, {data: 'x'})
    const types = (await api('getUpdates')).json.result.map((u: object) => Object.keys(u)[1])
    expect(types).toEqual(['message', 'callback_query'])
    // unchanged when missing or invalid; [] = default
    await api('getUpdates', {allowed_updates: 'not json', offset: 1})
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toEqual(['callback_query'])
    await api('getUpdates', {allowed_updates: [], offset: 1})
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toBeUndefined()
    await api('getUpdates', {allowed_updates: ['MESSAGE', 'nonsense'], offset: 1})
    expect((await api('getWebhookInfo')).json.result.allowed_updates).toEqual(['message'])
  })

  // Answered with no updates, not cut (issue 31 item 15): a bot stopping at the same time, as in a
  // template's test, logs no "other side closed" stack trace.
  it('stop() answers waiting polls with no updates and closes every connection itself', async () => {
    const emu = await BotApiEmulator.start()
    const {token} = emu.createBot()
    const poll = fetch(`${emu.apiRoot}/bot${token}/getUpdates?timeout=50`).then(
      (r) => r.json(),
      () => 'closed',
    )
    // A connection that sends nothing and never closes by itself: a stop that left connections to close on their
    // own would wait for it forever (the test's timeout), not merely a keep-alive's few seconds.
    const idle = connect(Number(new URL(emu.apiRoot).port), '127.0.0.1')
    await once(idle, 'connect')
    const idleClosed = once(idle, 'close')
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    await emu.stop()
    expect(await poll).toEqual({ok: true, result: []})
    await idleClosed
  })
})

describe('waiting polls and offsets ahead of the queue', () => {
  it('a poll with an offset in (tail, tail+10] keeps waiting for an update it may return', async () => {
    const {emu, token, api} = await setup({firstUpdateId: 100})
    const waiting = api('getUpdates', {offset: 102, timeout: 20})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    emu.injectUpdate(token, textMessage(1, 'a')) // id 100: below the offset
    emu.injectUpdate(token, textMessage(1, 'b')) // id 101
    const c = emu.injectUpdate(token, textMessage(1, 'c')) // id 102
    expect((await waiting).json.result).toEqual([c])
  })

  it('revokeToken and reset() answer a waiting poll at once', async () => {
    const {emu, token, api} = await setup()
    const waiting = api('getUpdates', {timeout: 20})
    await waitFor(() => emu.isLongPolling(token), {what: 'the poll to wait'})
    emu.reset()
    expect((await waiting).text).toBe('{"ok":true,"result":[]}')
  })
})
