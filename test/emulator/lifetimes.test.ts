/**
 * Lifetimes and limits (Client.cpp add_update_impl and the lifetimes its callers give, on_cmd): update expiry (also for
 * webhook retries), a failing webhook slowed to one connection, the 4 MiB getUpdates cut, close, no DNS in local mode,
 * uploads recorded the same way whichever client sends them.
 */
import {lookup} from 'node:dns/promises'
import {hostname} from 'node:os'
import {Bot as GrammyBot, InputFile} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {receiver, setup, textMessage} from './helpers.js'
import {waitFor} from '../support/wait.js'

const now = (): number => Math.floor(Date.now() / 1000)

describe('update lifetimes', () => {
  it('a message dated more than a day ago is never queued; one near the end of its day expires unsent', async () => {
    const {emu, token, api} = await setup()
    expect(emu.sendUserMessage(token, {text: 'old', date: now() - 86_401}).update_id).toBe(0)
    expect(emu.pendingUpdates(token)).toEqual([])
    const edited = emu.injectUpdate(token, {
      edited_message: {...textMessage(5, 'x').message, date: now() - 90_000, edit_date: now() - 60},
    })
    expect(edited.update_id).toBeGreaterThan(0) // an edit lives 24 h after its edit_date

    const dying = emu.sendUserMessage(token, {text: 'almost a day old', date: now() - 86_399})
    expect(dying.update_id).toBeGreaterThan(0)
    await waitFor(() => !emu.pendingUpdates(token).some((u) => u.update_id === dying.update_id), {
      what: 'the message to expire',
      timeout: 5000,
    })
    const polled = await api('getUpdates', {})
    expect(polled.json.result.map((u: any) => u.update_id)).toEqual([edited.update_id])
  })

  it('a callback query lives 150 s (× lifetimeScale), then getUpdates no longer answers it', async () => {
    const {emu, token, api} = await setup({lifetimeScale: 0.002}) // 300 ms
    emu.sendUserMessage(token, {text: 'keep me', userId: 9})
    const query = emu.sendCallbackQuery(token, {data: 'x', userId: 9})
    expect(emu.pendingUpdates(token).map((u) => u.update_id)).toContain(query.update_id)
    const started = Date.now()
    await waitFor(() => !emu.pendingUpdates(token).some((u) => u.update_id === query.update_id), {
      what: 'the callback query to expire',
    })
    expect(Date.now() - started).toBeGreaterThan(200)
    const polled = await api('getUpdates', {})
    expect(polled.json.result.map((u: any) => Object.keys(u)[1])).toEqual(['message'])
  })

  it("a webhook retry that would come after the update's lifetime never happens: the update is dropped", async () => {
    // The query lives 3 s, retries come after 20, 40, 80… ms: at least two attempts fit in its life even when a loaded
    // machine delays each one (300 ms left room for one attempt only at load 25).
    const {emu, token, api} = await setup({lifetimeScale: 0.02, timeScale: 0.01})
    const failing = await receiver(() => ({status: 500}))
    await api('setWebhook', {url: failing.url})
    emu.sendUserMessage(token, {text: 'hi', userId: 9, date: now()})
    const query = emu.sendCallbackQuery(token, {data: 'x', userId: 9})
    const attemptsOf = (id: number): number => failing.received.filter((r) => r.body.update_id === id).length
    await waitFor(() => !emu.pendingUpdates(token).some((u) => u.update_id === query.update_id), {
      what: 'the callback query to be dropped',
    })
    const queryAttempts = attemptsOf(query.update_id)
    expect(queryAttempts).toBeGreaterThan(1)
    // the message (24 h) is still there and keeps being retried; the dropped query is never sent again
    const message = emu.pendingUpdates(token)
    expect(message.map((u) => Object.keys(u)[1])).toEqual(['message'])
    const messageAttempts = attemptsOf(message[0].update_id)
    await waitFor(() => attemptsOf(message[0].update_id) >= messageAttempts + 2, {
      what: 'two more retries of the message',
      timeout: 10_000,
    })
    expect(attemptsOf(query.update_id)).toBe(queryAttempts)
  })
})

describe('limits', () => {
  it('a failing webhook is slowed to one connection until a delivery succeeds', async () => {
    const {emu, token, api} = await setup({timeScale: 0.01})
    let active = 0
    let healthy = false
    const seen: Array<{index: number; active: number}> = []
    // While healthy, the first deliveries are held until two are in flight (in parallel, shown by events, not by
    // overlapping holds); afterwards each takes 50 ms, time for a second one to arrive alongside if one could.
    let twoIn!: () => void
    const two = new Promise<void>((resolve) => {
      twoIn = resolve
    })
    let parallel = false
    const hook = await receiver(async (_r, index) => {
      active += 1
      seen.push({index, active})
      if (active >= 2) {
        parallel = true
        twoIn()
      }
      if (index < 5 && !parallel) await two
      else await new Promise((r) => setTimeout(r, 50))
      active -= 1
      return {status: healthy ? 200 : 500}
    })
    await api('setWebhook', {url: hook.url, max_connections: 10})
    for (let chat = 1; chat <= 5; chat++) emu.sendUserMessage(token, {text: 'x', userId: chat})
    await waitFor(() => seen.length >= 15, {what: '15 delivery attempts', timeout: 10_000})
    expect(Math.max(...seen.slice(0, 5).map((s) => s.active))).toBeGreaterThan(1) // healthy at first: in parallel
    expect(seen.slice(6, 15).every((s) => s.active === 1)).toBe(true) // failing: one at a time
    healthy = true
    await waitFor(() => emu.pendingUpdates(token).length === 0, {
      what: 'all delivered once it answers 200',
      timeout: 10_000,
    })
  })

  it('getUpdates stops adding updates past 4 MiB (50 bytes + JSON each), but always answers the first', async () => {
    const {emu, token, api} = await setup()
    const big = 'x'.repeat(1_500_000)
    for (let i = 0; i < 4; i++) emu.injectUpdate(token, textMessage(7, big, i + 1))
    const first = await api('getUpdates', {})
    expect(first.json.result).toHaveLength(2) // a third would pass 4 MiB
    const huge = 'y'.repeat(5_000_000)
    const {emu: emu2, token: token2, api: api2} = await setup()
    emu2.injectUpdate(token2, textMessage(7, huge))
    emu2.injectUpdate(token2, textMessage(7, 'small', 2))
    const alone = await api2('getUpdates', {})
    expect(alone.json.result.map((u: any) => u.message.text.length)).toEqual([5_000_000])
    expect((await api('getUpdates', {limit: 1})).json.result).toHaveLength(1)
  })

  it('close: true, then 500 "restart" while closing, then "the bot has already been closed"; any other call launches it again', async () => {
    const {api} = await setup({timeScale: 1}) // closing lasts 500 ms
    expect((await api('close')).json).toEqual({ok: true, result: true})
    const during = await api('getMe')
    expect(during.status).toBe(500)
    expect(during.text).toBe('{"ok":false,"error_code":500,"description":"Internal Server Error: restart"}')
    const again = await waitFor(
      async () => {
        const r = await api('close')
        return r.status === 400 ? r : undefined
      },
      {what: 'the instance to be closed'},
    )
    expect(again.text).toBe(
      '{"ok":false,"error_code":400,"description":"Bad Request: the bot has already been closed"}',
    )
    expect((await api('getMe')).status).toBe(200) // launched again
    expect((await api('close')).json).toEqual({ok: true, result: true})
  })
})

describe('local mode asks no DNS', () => {
  it('localhost names are loopback; any other host name fails without a lookup', async () => {
    const {api} = await setup({timeScale: 0})
    expect((await api('setWebhook', {url: 'http://localhost:9/hook'})).json.ok).toBe(true)
    expect((await api('setWebhook', {url: 'http://bot.localhost:9/hook'})).json.ok).toBe(true)
    expect((await api('setWebhook', {url: 'http://bot.example.invalid/hook'})).json.description).toBe(
      'Bad Request: bad webhook: Failed to resolve host: Name or service not known',
    )
  })

  it("even a name the system resolves (this machine's host name) is not looked up", async () => {
    const name = hostname()
    const resolvable = await lookup(name).then(
      () => true,
      () => false,
    )
    if (!resolvable || name === 'localhost') return // nothing to prove on this machine
    const {api} = await setup({timeScale: 0})
    expect((await api('setWebhook', {url: `http://${name}:9/hook`})).json.description).toBe(
      'Bad Request: bad webhook: Failed to resolve host: Name or service not known',
    )
  })
})

describe('uploads are recorded the same way whichever client sends them', () => {
  const photo = {filename: 'cat.jpg', size: 3}

  it('grammY (attach://), Telegraf (a file field) and a raw multipart form all give photo: {filename, mimeType, size}', async () => {
    const {emu, token, base} = await setup()
    emu.addChat(token, {id: 5, type: 'private', first_name: 'U'})
    const grammy = new GrammyBot(token, {
      client: {apiRoot: emu.apiRoot},
      botInfo: {id: 1, is_bot: true, first_name: 'B', username: 'b_bot'} as never,
    })
    await grammy.api.sendPhoto(5, new InputFile(Buffer.from('abc'), 'cat.jpg'), {caption: 'grammY'})
    await grammy.api.sendMediaGroup(5, [
      {type: 'photo', media: new InputFile(Buffer.from('abc'), 'cat.jpg')},
      {type: 'photo', media: new InputFile(Buffer.from('defg'), 'dog.jpg')},
    ])
    const telegraf = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    await telegraf.telegram.sendPhoto(5, {source: Buffer.from('abc'), filename: 'cat.jpg'}, {caption: 'Telegraf'})
    const form = new FormData()
    form.set('chat_id', '5')
    form.set('caption', 'raw')
    form.set('photo', new Blob([Buffer.from('abc')], {type: 'image/jpeg'}), 'cat.jpg')
    expect((await fetch(`${base}/sendPhoto`, {method: 'POST', body: form})).status).toBe(200)

    const sends = emu.calls(token).filter((c) => c.method === 'sendPhoto')
    expect(sends).toHaveLength(3)
    for (const call of sends) {
      // (Telegraf also sends the method's name as a field; the MIME type is whatever the client declared)
      const {chat_id: _chat, caption: _caption, method: _method, ...rest} = call.params
      expect(rest).toEqual({photo: {...photo, mimeType: expect.any(String)}})
    }
    expect(sends.map((c) => c.params.caption)).toEqual(['grammY', 'Telegraf', 'raw'])
    const group = emu.calls(token).find((c) => c.method === 'sendMediaGroup')!
    expect(group.params.media).toEqual([
      {type: 'photo', media: {filename: 'cat.jpg', mimeType: expect.any(String), size: 3}},
      {type: 'photo', media: {filename: 'dog.jpg', mimeType: expect.any(String), size: 4}},
    ])
    expect(Object.keys(group.params).sort()).toEqual(['chat_id', 'media'])
  })
})
