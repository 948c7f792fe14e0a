/**
 * The bridge against the emulator (real long polling, real 409s) and a real HTTP server as the bot.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {UpdateBridge, type BridgeEvent, type BridgeOptions} from '../../src/dev/delivery/bridge/bridge.js'
import {queueKeyOf} from '../../src/dev/delivery/bridge/queues.js'
import {Relay} from '../../src/dev/relay/relay.js'
import {FixableError} from '../../src/lib/errors.js'
import {BotApi} from '../../src/telegram/client.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {receiver, setup, textMessage, type Reply} from '../emulator/helpers.js'
import {waitFor} from '../support/wait.js'

const SECRET = 'bridge-secret_0123456789'
const bridges: UpdateBridge[] = []
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((b) => b.stop()))
})

async function world(respond?: Parameters<typeof receiver>[0]) {
  const s = await setup()
  const bot = await receiver(respond)
  const api = new BotApi({token: s.token, apiRoot: s.emu.apiRoot})
  const events: BridgeEvent[] = []
  const make = (options: Partial<BridgeOptions> = {}, target = bot.url) => {
    const bridge = new UpdateBridge({
      api,
      target: {url: target, secret: SECRET},
      onEvent: (e) => events.push(e),
      ...options,
    })
    bridges.push(bridge)
    return bridge
  }
  const pendingIds = () => s.emu.pendingUpdates(s.token).map((u) => u.update_id)
  const pollCalls = () => s.emu.calls(s.token).filter((c) => c.method === 'getUpdates').length
  return {...s, raw: s.api, bot, api, events, make, pendingIds, pollCalls}
}

const chatOf = (body: any): number => body.message.chat.id
const of = <T extends BridgeEvent['type']>(events: BridgeEvent[], type: T) =>
  events.filter((e): e is Extract<BridgeEvent, {type: T}> => e.type === type)

describe('UpdateBridge', () => {
  it('POSTs the update as Telegram does (same JSON, secret header) and confirms it once acknowledged; never sets a webhook', async () => {
    const w = await world()
    await w.make().start()
    const update = w.emu.injectUpdate(w.token, textMessage(42, 'hello'))
    await waitFor(() => w.bot.received.length === 1, {what: 'the POST'})
    const got = w.bot.received[0]
    expect(got.raw).toBe(JSON.stringify(update))
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['x-telegram-bot-api-secret-token']).toBe(SECRET)
    await waitFor(() => w.pendingIds().length === 0, {what: 'the update confirmed'})
    const delivered = of(w.events, 'delivered')
    expect(delivered).toHaveLength(1)
    expect(delivered[0]).toMatchObject({updateId: update.update_id, status: 200})
    const methods = new Set(w.emu.calls(w.token).map((c) => c.method))
    expect([...methods]).toEqual(['getUpdates'])
    expect(w.emu.webhook(w.token)).toBeUndefined()
  })

  it('keeps per-chat order with chats in parallel, at most maxConnections at once', async () => {
    const inFlight = new Set<number>()
    const overlaps: number[] = []
    const order = new Map<number, string[]>()
    // The first deliveries are held until three are in flight at once (then none is): chats in parallel up to
    // maxConnections, shown by the deliveries arriving together, not by overlapping 20 ms holds.
    let threeIn!: () => void
    const three = new Promise<void>((resolve) => {
      threeIn = resolve
    })
    const w = await world(async (req) => {
      const chat = chatOf(req.body)
      if (inFlight.has(chat)) overlaps.push(chat)
      inFlight.add(chat)
      order.set(chat, [...(order.get(chat) ?? []), req.body.message.text])
      if (inFlight.size === 3) threeIn()
      await three
      inFlight.delete(chat)
      return {status: 200}
    })
    await w.make({maxConnections: 3}).start()
    const chats = [1, 2, 3, 4, 5, 6]
    for (let i = 0; i < 5; i++) for (const chat of chats) w.emu.injectUpdate(w.token, textMessage(chat, `m${i}`, i + 1))
    await waitFor(() => w.bot.received.length === 30, {what: 'all 30 updates', timeout: 20_000})
    expect(overlaps).toEqual([])
    for (const chat of chats) expect(order.get(chat)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'])
    expect(w.bot.maxActive).toBe(3)
    await waitFor(() => w.pendingIds().length === 0, {what: 'all confirmed'})
    expect(new Set(w.bot.received.map((r) => r.body.update_id)).size).toBe(30)
  })

  it('executes a webhook reply against the Bot API, and reports one Telegram would not run', async () => {
    const w = await world((req) => {
      const text = req.body.message.text
      const reply =
        text === 'ping' ? {method: 'sendMessage', chat_id: chatOf(req.body), text: 'pong'} : {method: 'getMe'}
      return {status: 200, headers: {'content-type': 'application/json'}, body: JSON.stringify(reply)}
    })
    await w.make().start()
    const ping = w.emu.injectUpdate(w.token, textMessage(7, 'ping'))
    const sent = await w.emu.waitForBotMessage(w.token, {chatId: 7})
    expect(sent.method).toBe('sendMessage')
    expect(sent.params.text).toBe('pong')
    w.emu.injectUpdate(w.token, textMessage(7, 'other', 2))
    await waitFor(() => of(w.events, 'delivered').length === 2, {what: 'two delivered events'})
    const [first, second] = of(w.events, 'delivered')
    expect(first).toMatchObject({updateId: ping.update_id, reply: {method: 'sendMessage'}})
    expect(first.reply?.error).toBeUndefined()
    expect(second.reply?.method).toBe('getMe')
    expect(second.reply?.error).toMatch(/not run/)
    expect(w.emu.calls(w.token).filter((c) => c.method === 'getMe')).toHaveLength(0)
  })

  it('keeps taking new updates while the update of one chat is slow (paced polls), and confirms all in the end', async () => {
    let releaseSlow: () => void = () => undefined
    const slow = new Promise<void>((r) => (releaseSlow = r))
    const w = await world(async (req) => {
      if (chatOf(req.body) === 1) await slow
      return {status: 200}
    })
    const bridge = w.make()
    await bridge.start()
    const a = w.emu.injectUpdate(w.token, textMessage(1, 'slow'))
    await waitFor(() => bridge.stats.inFlight === 1, {what: 'the slow POST in flight'})
    // the poll after it (offset = a) was answered at once with a alone: from now on polls are paced
    await waitFor(
      () =>
        w.emu
          .calls(w.token)
          .some((c) => c.method === 'getUpdates' && Number(c.params.offset) === a.update_id && Array.isArray(c.result)),
      {what: 'a poll at the offset of the slow update'},
    )
    const b = w.emu.injectUpdate(w.token, textMessage(2, 'quick'))
    await waitFor(() => of(w.events, 'delivered').some((e) => e.updateId === b.update_id), {
      what: 'the other chat delivered meanwhile',
      timeout: 5000,
    })
    expect(bridge.stats.inFlight).toBe(1) // the slow one is still in flight
    expect(w.pendingIds()).toEqual([a.update_id, b.update_id]) // b acknowledged, not confirmable before a
    releaseSlow()
    await waitFor(() => w.pendingIds().length === 0, {what: 'both confirmed'})
    expect(w.bot.received.map((r) => r.body.update_id)).toEqual([a.update_id, b.update_id])
  })

  it('retries a 500 and confirms the update once the bot acknowledges it', async () => {
    const w = await world((_req, index): Reply => (index === 0 ? {status: 500} : {status: 200}))
    await w.make().start()
    const update = w.emu.injectUpdate(w.token, textMessage(5, 'x'))
    await waitFor(() => of(w.events, 'delivered').length === 1, {what: 'delivered after a retry'})
    expect(w.bot.received.map((r) => r.body.update_id)).toEqual([update.update_id, update.update_id])
    expect(of(w.events, 'failing')).toEqual([]) // one failure is not "keeps failing"
    await waitFor(() => w.pendingIds().length === 0, {what: 'confirmed'})
  })

  it("honours the bot's Retry-After before trying again", async () => {
    const w = await world(
      (_req, index): Reply => (index === 0 ? {status: 503, headers: {'retry-after': '2'}} : {status: 200}),
    )
    await w.make().start()
    w.emu.injectUpdate(w.token, textMessage(5, 'later'))
    await waitFor(() => of(w.events, 'delivered').length === 1, {what: 'delivered after the wait', timeout: 10_000})
    const [first, second] = w.bot.received
    expect(second.at - first.at).toBeGreaterThanOrEqual(1900) // not the 0.5 s of the default backoff
  })

  it('an update the bot keeps failing is reported once, blocks only its chat, and stays pending after stop', async () => {
    const w = await world((req): Reply => (chatOf(req.body) === 1 ? {status: 500} : {status: 200}))
    const bridge = w.make()
    await bridge.start()
    const poison = w.emu.injectUpdate(w.token, textMessage(1, 'poison'))
    const b1 = w.emu.injectUpdate(w.token, textMessage(2, 'b1'))
    const b2 = w.emu.injectUpdate(w.token, textMessage(2, 'b2', 2))
    const attemptsOf = (id: number) => w.bot.received.filter((r) => r.body.update_id === id).length
    await waitFor(() => attemptsOf(poison.update_id) >= 4, {
      what: 'four attempts of the poison update',
      timeout: 15_000,
    })
    // polls went on meanwhile at the poison update's offset, returning b1 and b2 again: not delivered twice
    const repolls = w.emu
      .calls(w.token)
      .filter(
        (c) =>
          c.method === 'getUpdates' &&
          Number(c.params.offset) === poison.update_id &&
          Array.isArray(c.result) &&
          (c.result as Array<{update_id: number}>).some((u) => u.update_id === b2.update_id),
      )
    expect(repolls.length).toBeGreaterThanOrEqual(2)
    expect(attemptsOf(b1.update_id)).toBe(1)
    expect(attemptsOf(b2.update_id)).toBe(1)
    const failing = of(w.events, 'failing')
    expect(failing).toHaveLength(1)
    expect(failing[0]).toMatchObject({updateId: poison.update_id, status: 500, attempts: 2})
    expect(failing[0].text).toMatch(/keeps failing/)
    expect(bridge.stats).toMatchObject({delivered: 2, failing: 1})
    expect(w.pendingIds()).toEqual([poison.update_id, b1.update_id, b2.update_id])

    const result = await bridge.stop()
    expect(result.pending).toBe(1)
    expect(w.pendingIds()).toEqual([poison.update_id, b1.update_id, b2.update_id]) // nothing confirmed past it
  })

  it('stop during an in-flight delivery loses nothing: the next bridge delivers it again', async () => {
    let hold = true
    const w = await world(async () => {
      if (hold) await new Promise(() => undefined) // never answers
      return {status: 200}
    })
    const first = w.make()
    await first.start()
    const update = w.emu.injectUpdate(w.token, textMessage(3, 'slow'))
    await waitFor(() => first.stats.inFlight === 1, {what: 'the POST in flight'})
    // The POST never answers: only the stop's own bound ends its wait (its 60 s request timeout would outlast the test).
    const result = await first.stop()
    expect(result).toEqual({pending: 1, confirmed: 0})
    expect(await first.stop()).toEqual(result) // idempotent
    expect(w.pendingIds()).toEqual([update.update_id])

    hold = false
    const second = w.make()
    await second.start()
    await waitFor(() => of(w.events, 'delivered').some((e) => e.updateId === update.update_id), {
      what: 'delivered by the next bridge',
    })
    await waitFor(() => w.pendingIds().length === 0, {what: 'confirmed'})
    expect((await second.stop()).confirmed).toBe(1)
  })

  it('stop is quick when nothing is in flight, and leaves nothing it delivered pending (real-time Bot API throttles)', async () => {
    // The Bot API's hold of a repeated poll, 3 s × 20 = 60 s here: a stop that waited for it would outlast the test's
    // 30 s, so stop() resolving at all shows it did not (a stopwatch against the real 3 s was one a loaded machine beat).
    const s = await setup({timeScale: 20})
    const bot = await receiver()
    const bridge = new UpdateBridge({
      api: new BotApi({token: s.token, apiRoot: s.emu.apiRoot}),
      target: {url: bot.url, secret: SECRET},
      onEvent: () => undefined,
    })
    bridges.push(bridge)
    await bridge.start()
    s.emu.injectUpdate(s.token, textMessage(1, 'one'))
    await waitFor(() => bridge.stats.delivered === 1 && s.emu.isLongPolling(s.token), {
      what: 'delivered, and long-polling again',
    })
    expect(await bridge.stop()).toEqual({pending: 0, confirmed: 1})
    expect(s.emu.pendingUpdates(s.token)).toEqual([])
  })

  it('start() does not wait out the Bot API holding a first poll that repeats the previous offset', async () => {
    const s = await setup({timeScale: 20}) // the hold: 3 s × 20 = 60 s, far longer than a loaded machine's start
    const bot = await receiver()
    await s.api('getUpdates', {timeout: 0}) // e.g. the session's poller probe: offset 0, just before
    const bridge = new UpdateBridge({
      api: new BotApi({token: s.token, apiRoot: s.emu.apiRoot}),
      target: {url: bot.url, secret: SECRET},
      onEvent: () => undefined,
    })
    bridges.push(bridge)
    await bridge.start() // the server would hold that poll 60 s, past the test's 30 s
    const update = s.emu.injectUpdate(s.token, textMessage(1, 'first'))
    await waitFor(() => bot.received.some((r) => r.body.update_id === update.update_id), {what: 'delivered'})
  })

  it('explains a 409 from another poller and backs off instead of taking the poll back at once', async () => {
    const w = await world()
    await w.make().start()
    await waitFor(() => w.emu.isLongPolling(w.token), {what: 'the bridge long-polling'})
    // The other poller's long poll (1 s) displaces ours; if the bridge re-polled within that second, the
    // other poll would be answered 409 instead of [].
    const other = await w.raw('getUpdates', {timeout: 1})
    await waitFor(() => of(w.events, 'conflict').length > 0, {what: 'the conflict event'})
    expect(other.status).toBe(200)
    expect(other.json.result).toEqual([])
    const [conflict] = of(w.events, 'conflict')
    expect(conflict.text).toMatch(/Another program is polling this bot/)
    expect(conflict.fix).toMatch(/bot doctor/)
  })

  it('start() rejects with a fix when a webhook is set, and when the token is refused', async () => {
    const w = await world()
    await w.raw('setWebhook', {url: 'http://127.0.0.1:9/hook'})
    const error = await w
      .make()
      .start()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FixableError)
    expect((error as FixableError).message).toMatch(/webhook is active/)
    expect((error as FixableError).fix).toMatch(/bot webhook delete/)

    const stranger = new UpdateBridge({
      api: new BotApi({token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', apiRoot: w.emu.apiRoot}),
      target: {url: w.bot.url, secret: SECRET},
      onEvent: () => undefined,
    })
    bridges.push(stranger)
    const refused = await stranger.start().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(FixableError)
    expect((refused as FixableError).message).toMatch(/401/)

    // A malformed token: api.telegram.org answers 404 (the local server's 401 is the case above), so a cloud-rules emulator.
    const cloud = await BotApiEmulator.start({local: false, timeScale: 0.01})
    try {
      const malformed = new UpdateBridge({
        api: new BotApi({token: 'not-a-token', apiRoot: cloud.apiRoot}),
        target: {url: w.bot.url, secret: SECRET},
        onEvent: () => undefined,
      })
      bridges.push(malformed)
      const notFound = await malformed.start().catch((e: unknown) => e)
      expect(notFound).toBeInstanceOf(FixableError)
      expect((notFound as FixableError).message).toMatch(/404/)
      expect((notFound as FixableError).fix).toMatch(/token is malformed/)
    } finally {
      await cloud.stop()
    }
    expect(w.bot.received).toEqual([])
  })

  it('retries while nothing listens (the bot down), reports it once, and says when it recovered', async () => {
    const w = await world()
    // a port that refuses connections until the "bot" comes up on it
    const probe = http.createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((r) => probe.close(() => r()))
    const bridge = w.make({}, `http://127.0.0.1:${port}/hook`)
    await bridge.start()
    const update = w.emu.injectUpdate(w.token, textMessage(9, 'while down'))
    await waitFor(() => of(w.events, 'failing').length === 1, {what: 'the failing event', timeout: 10_000})
    expect(of(w.events, 'failing')[0]).toMatchObject({updateId: update.update_id, attempts: 2})
    expect(of(w.events, 'failing')[0].error).toMatch(/connection refused/)
    expect(bridge.stats.failing).toBe(1)
    const bodies: string[] = []
    const late = http.createServer((req, res) => {
      let raw = ''
      req.on('data', (c) => (raw += c))
      req.on('end', () => {
        bodies.push(raw)
        res.end()
      })
    })
    await new Promise<void>((r) => late.listen(port, '127.0.0.1', r))
    try {
      await waitFor(() => of(w.events, 'recovered').length === 1, {what: 'the recovered event', timeout: 15_000})
      expect(bodies).toEqual([JSON.stringify(update)])
      expect(of(w.events, 'recovered')[0].text).toMatch(/acknowledged after \d+ attempts/)
      expect(bridge.stats.failing).toBe(0)
      await waitFor(() => w.pendingIds().length === 0, {what: 'confirmed'})
    } finally {
      await bridge.stop()
      await new Promise<void>((r) => late.close(() => r()))
    }
  })

  it('reports a webhook reply the Bot API refused, without retrying the update', async () => {
    const w = await world(() => ({
      status: 200,
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({method: 'sendMessage', chat_id: 424242, text: 'to nowhere'}),
    }))
    await w.make().start()
    w.emu.injectUpdate(w.token, textMessage(8, 'hi'))
    await waitFor(() => of(w.events, 'delivered').length === 1, {what: 'delivered'})
    const [event] = of(w.events, 'delivered')
    expect(event.reply?.method).toBe('sendMessage')
    expect(event.reply?.error).toMatch(/^400 Bad Request: chat not found/)
    expect(event.text).toMatch(/webhook reply sendMessage failed: 400/)
    await waitFor(() => w.pendingIds().length === 0, {what: 'confirmed'})
    expect(w.bot.received).toHaveLength(1)
    expect(w.emu.calls(w.token).filter((c) => c.method === 'sendMessage')).toHaveLength(1)
  })

  it('a webhook set behind its back: one explained poll error, then it resumes once the webhook is gone', async () => {
    const w = await world()
    await w.make().start()
    await waitFor(() => w.emu.isLongPolling(w.token), {what: 'the bridge long-polling'})
    await w.raw('setWebhook', {url: 'http://127.0.0.1:9/elsewhere'})
    await waitFor(() => of(w.events, 'poll-error').length > 0, {what: 'the poll error'})
    expect(of(w.events, 'poll-error')[0].text).toMatch(/A webhook was set for this bot while the bridge was polling/)
    await w.raw('deleteWebhook', {})
    const update = w.emu.injectUpdate(w.token, textMessage(4, 'after'))
    await waitFor(() => of(w.events, 'delivered').some((e) => e.updateId === update.update_id), {
      what: 'delivered after the webhook went',
      timeout: 15_000,
    })
    expect(of(w.events, 'poll-error').length).toBeLessThanOrEqual(3) // backoff, not a flood
  })

  it('stops when its AbortSignal fires', async () => {
    const w = await world()
    const controller = new AbortController()
    const bridge = w.make({signal: controller.signal})
    await bridge.start()
    await waitFor(() => w.emu.isLongPolling(w.token), {what: 'the bridge long-polling'})
    controller.abort()
    await waitFor(() => !w.emu.isLongPolling(w.token), {what: 'the long poll aborted'})
    expect(await bridge.stop()).toEqual({pending: 0, confirmed: 0})
  })
})

describe('UpdateBridge events', () => {
  it('never carry the token, the secret or the webhook path', async () => {
    const path = '/webhook/Pr1vatePathSegment'
    const w = await world((req, index): Reply => {
      if (index < 2) return {status: 500}
      return {
        status: 200,
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({method: 'sendMessage', chat_id: 999_999, text: w.token}),
      }
    })
    const bridge = w.make({}, `http://127.0.0.1:${w.bot.port}${path}`)
    await bridge.start()
    w.emu.injectUpdate(w.token, textMessage(1, 'x'))
    await waitFor(() => of(w.events, 'recovered').length === 1, {what: 'failing, then recovered', timeout: 10_000})
    await waitFor(() => w.emu.isLongPolling(w.token), {what: 'polling again'})
    await w.raw('setWebhook', {url: `http://127.0.0.1:9${path}`, secret_token: SECRET})
    await waitFor(() => of(w.events, 'poll-error').length > 0, {what: 'a poll error'})
    const all = JSON.stringify(w.events)
    expect(of(w.events, 'failing')).toHaveLength(1)
    expect(of(w.events, 'delivered')[0].reply?.error).toMatch(/^400/)
    for (const forbidden of [w.token, w.token.split(':')[1], SECRET, path, 'Pr1vatePathSegment'])
      expect(all).not.toContain(forbidden)
  })
})

describe('UpdateBridge through the relay', () => {
  it('an update that arrives while the bot restarts is held by the relay and delivered once the bot listens', async () => {
    const w = await world()
    const relay = new Relay({secret: SECRET, path: '/webhook/abc', holdTimeoutMs: 30_000})
    await relay.listen()
    try {
      // no target yet: the bot is (re)starting
      const bridge = w.make({}, `http://127.0.0.1:${relay.port}/webhook/abc`)
      await bridge.start()
      const update = w.emu.injectUpdate(w.token, textMessage(6, 'held'))
      await waitFor(() => bridge.stats.inFlight === 1, {what: 'the POST held by the relay'})
      expect(w.bot.received).toHaveLength(0)
      expect(w.pendingIds()).toEqual([update.update_id])
      relay.setTarget({host: '127.0.0.1', port: w.bot.port, path: '/hook'})
      await waitFor(() => of(w.events, 'delivered').length === 1, {what: 'delivered through the relay'})
      expect(w.bot.received.map((r) => r.raw)).toEqual([JSON.stringify(update)])
      expect(w.bot.received[0].headers['x-telegram-bot-api-secret-token']).toBe(SECRET)
      expect(of(w.events, 'failing')).toEqual([])
      await waitFor(() => w.pendingIds().length === 0, {what: 'confirmed'})
    } finally {
      await relay.close()
    }
  })
})

describe('queueKeyOf', () => {
  it('groups like Telegram: messages by chat, queries by user, polls by id, anything else alone', () => {
    const msg = (chat: number) => ({
      message: {
        message_id: 1,
        date: 0,
        from: {id: 11, is_bot: false, first_name: 'Test'},
        chat: {id: chat, type: 'group' as const, title: 'Test group'},
      },
    })
    expect(queueKeyOf({update_id: 1, ...msg(-5)})).toBe('chat:-5')
    expect(queueKeyOf({update_id: 2, edited_message: msg(7).message} as never)).toBe('chat:7')
    expect(queueKeyOf({update_id: 3, callback_query: {id: 'q', from: {id: 11}, chat_instance: '1'}} as never)).toBe(
      'user:11',
    )
    expect(queueKeyOf({update_id: 4, poll_answer: {poll_id: 'p', user: {id: 12}, option_ids: []}} as never)).toBe(
      'user:12',
    )
    expect(queueKeyOf({update_id: 5, poll: {id: 'p9'}} as never)).toBe('poll:p9')
    expect(queueKeyOf({update_id: 6, business_connection: {id: 'b'}} as never)).toBe('update:6')
    // the same rule as the emulator's webhook (emulator/webhook-queue.ts), newer types included
    expect(queueKeyOf({update_id: 7, widget_query: {id: 'w', from: {id: 13}}} as never)).toBe('user:13')
    expect(queueKeyOf({update_id: 8, stopped_message_generation: {chat: {id: -9}}} as never)).toBe('chat:-9')
    expect(queueKeyOf({update_id: 9, message: {chat: {}}} as never)).toBe('update:9')
  })
})
