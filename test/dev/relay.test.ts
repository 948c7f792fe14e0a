import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {describeUpdate, Relay, type RelayUpdateEvent} from '../../src/dev/relay/relay.js'
import {waitFor} from '../support/wait.js'
import {listenLoopback} from '../support/http.js'

const SECRET = 'relay_test_secret'
const PATH = '/webhook/abc'

interface LoopbackBot {
  port: number
  seen: Array<{path: string; secret?: string; body: string}>
  close(): Promise<void>
}

/** A bot on loopback: answers with `answer(body)`. */
async function startBot(
  answer: (body: string) => {status: number; body?: string; type?: string} = () => ({status: 200}),
  port = 0,
): Promise<LoopbackBot> {
  const seen: LoopbackBot['seen'] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push({
        path: req.url ?? '',
        secret: req.headers['x-telegram-bot-api-secret-token'] as string | undefined,
        body,
      })
      const a = answer(body)
      res.writeHead(a.status, a.type ? {'content-type': a.type} : {})
      res.end(a.body ?? '')
    })
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  }
}

const opened: Array<{close(): Promise<void>}> = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

async function relayFor(options: {holdTimeoutMs?: number} = {}) {
  const events: RelayUpdateEvent[] = []
  const relay = new Relay({
    secret: SECRET,
    path: PATH,
    holdTimeoutMs: options.holdTimeoutMs ?? 5000,
    onUpdate: (e) => events.push(e),
  })
  await relay.listen()
  opened.push(relay)
  return {relay, events, url: `http://127.0.0.1:${relay.port}`}
}

const update = (id: number, text = 'hello') =>
  JSON.stringify({update_id: id, message: {message_id: 1, date: 0, chat: {id: 77, type: 'private'}, text}})

async function post(url: string, body: string, secret: string | null = SECRET) {
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: {'content-type': 'application/json', ...(secret ? {'x-telegram-bot-api-secret-token': secret} : {})},
  })
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: await res.text(),
    retryAfter: res.headers.get('retry-after'),
  }
}

describe('Relay', () => {
  it('forwards an update with the secret to PORT+WEBHOOK_PATH and passes the webhook reply back', async () => {
    const reply = JSON.stringify({method: 'sendMessage', chat_id: 77, text: 'hi'})
    const bot = await startBot(() => ({status: 200, body: reply, type: 'application/json'}))
    opened.push(bot)
    const {relay, events, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const res = await post(url + PATH, update(10, '/start now'))
    expect(res).toMatchObject({status: 200, type: 'application/json', body: reply})
    expect(bot.seen).toEqual([{path: '/hook', secret: SECRET, body: update(10, '/start now')}])
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      updateId: 10,
      updateType: 'message',
      chatId: 77,
      preview: '/start now',
      status: 200,
      heldMs: 0,
    })
    expect(relay.stats).toEqual({relayed: 1, failures: 0, rejected: 0, repeats: 0})
  })

  it('refuses a missing or wrong secret with 401 and never forwards it', async () => {
    const bot = await startBot()
    opened.push(bot)
    const {relay, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect((await post(url + PATH, update(1), null)).status).toBe(401)
    expect((await post(url + PATH, update(1), 'x' + SECRET.slice(1))).status).toBe(401)
    expect((await post(url + PATH, update(1), SECRET + 'x')).status).toBe(401)
    expect((await post(url + '/other', update(1))).status).toBe(404)
    expect(bot.seen).toEqual([])
    expect(relay.stats.rejected).toBe(4)
  })

  it('answers the health path with its nonce', async () => {
    const {relay, url} = await relayFor()
    const res = await fetch(url + relay.healthPath)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain(relay.nonce)
  })

  it('passes a 5xx from the bot back as it is', async () => {
    const bot = await startBot(() => ({status: 500, body: 'boom'}))
    opened.push(bot)
    const {relay, events, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect(await post(url + PATH, update(2))).toMatchObject({status: 500, body: 'boom'})
    expect(events[0].status).toBe(500)
    expect(relay.stats).toEqual({relayed: 0, failures: 1, rejected: 0, repeats: 0})
  })

  it('holds requests until the bot listens', async () => {
    const {relay, events, url} = await relayFor()
    const pending = post(url + PATH, update(3))
    let settled = false
    void pending.then(() => (settled = true))
    // Nothing is sent while there is no target.
    await waitFor(() => relay.held === 1, {what: 'the relay to hold the update'})
    expect(settled).toBe(false)
    const bot = await startBot(() => ({status: 200, body: 'ok'}))
    opened.push(bot)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect(await pending).toMatchObject({status: 200, body: 'ok'})
    expect(bot.seen).toHaveLength(1)
    expect(events[0].heldMs).toBeGreaterThanOrEqual(0)
  })

  it('retries while the target refuses connections (bot restarting), within the hold time', async () => {
    const probe = await startBot()
    const port = probe.port
    await probe.close() // a port where nothing listens (for now)
    const {relay, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port, path: '/hook'})
    const pending = post(url + PATH, update(4))
    const bot = await startBot(() => ({status: 200, body: 'late'}), port)
    opened.push(bot)
    expect(await pending).toMatchObject({status: 200, body: 'late'})
  })

  it('answers 503 with Retry-After once the hold time is over, so Telegram retries', async () => {
    const {relay, events, url} = await relayFor({holdTimeoutMs: 150})
    const started = performance.now()
    const res = await post(url + PATH, update(5))
    expect(res.status).toBe(503)
    expect(res.retryAfter).toBe('1')
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    expect(events[0]).toMatchObject({updateId: 5, status: 503})
    expect(events[0].error).toMatch(/not listening within/)
    expect(relay.stats.failures).toBe(1)
  })

  it('does not forward a held update whose sender gave up (it will be sent again)', async () => {
    const {relay, events, url} = await relayFor()
    const body = update(7)
    const req = http.request(url + PATH, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'x-telegram-bot-api-secret-token': SECRET,
      },
    })
    req.on('error', () => {})
    req.end(body)
    await waitFor(() => relay.held === 1, {what: 'the relay to hold the update'})
    req.destroy()
    await waitFor(() => events.length === 1, {what: 'the relay to notice'})
    expect(events[0]).toMatchObject({updateId: 7, status: 499})
    expect(relay.held).toBe(0)
    const bot = await startBot()
    opened.push(bot)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    // A later update goes through; the abandoned one was never sent.
    expect((await post(url + PATH, update(8))).status).toBe(200)
    expect(bot.seen.map((s) => JSON.parse(s.body).update_id)).toEqual([8])
  })

  it('answers held requests with 503 at once when it closes', async () => {
    const {relay, url} = await relayFor({holdTimeoutMs: 60_000})
    const pending = post(url + PATH, update(6))
    await waitFor(() => relay.held === 1, {what: 'the relay to hold the update'})
    const closing = relay.close()
    expect((await pending).status).toBe(503)
    await closing
  })
})

describe('Relay: switching targets (a bot restart)', () => {
  it('closes its idle connections to the old bot at once; the new bot gets the next update', async () => {
    let open = 0
    const old = http.createServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('old'))
    })
    old.on('connection', (socket) => {
      open++
      socket.on('close', () => open--)
    })
    opened.push(await listenLoopback(old))
    const {relay, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: (old.address() as AddressInfo).port, path: '/hook'})
    expect((await post(url + PATH, update(50))).body).toBe('old')
    expect(open).toBe(1) // the relay keeps the connection alive for the next update
    const next = await startBot(() => ({status: 200, body: 'new'}))
    opened.push(next)
    relay.setTarget({host: '127.0.0.1', port: next.port, path: '/hook'})
    // Closed by the relay, not by the old bot: a bot that is stopping is not kept waiting.
    await waitFor(() => open === 0, {what: 'the relay to close its connection to the old bot', timeout: 5000})
    expect((await post(url + PATH, update(51))).body).toBe('new')
  })
})

describe('Relay: retries of an update the bot already answered', () => {
  it('answers a repeated update_id with the same answer without sending it to the bot again', async () => {
    let n = 0
    const bot = await startBot(() => ({
      status: 200,
      body: JSON.stringify({method: 'sendMessage', chat_id: 77, text: `answer ${++n}`}),
      type: 'application/json',
    }))
    opened.push(bot)
    const {relay, events, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const first = await post(url + PATH, update(20))
    const again = await post(url + PATH, update(20))
    expect(again).toEqual(first)
    expect(first.body).toContain('answer 1')
    expect(bot.seen).toHaveLength(1)
    expect(events.map((e) => e.repeat ?? false)).toEqual([false, true])
    expect(relay.stats).toMatchObject({relayed: 1, repeats: 1})
    // Another update is sent as usual.
    expect((await post(url + PATH, update(21))).body).toContain('answer 2')
  })

  it('a retry that arrives while the bot still works on the update waits for that answer', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const seen: string[] = []
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', async () => {
        seen.push(body)
        await gate
        res.writeHead(200, {'content-type': 'application/json'})
        res.end('{"method":"sendMessage","chat_id":1,"text":"slow"}')
      })
    })
    opened.push(await listenLoopback(server))
    const {relay, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/hook'})
    const first = post(url + PATH, update(30))
    await waitFor(() => seen.length === 1, {what: 'the bot to get the update'})
    const retry = post(url + PATH, update(30))
    release()
    const [a, b] = await Promise.all([first, retry])
    expect(a.body).toContain('slow')
    expect(b).toEqual(a)
    expect(seen).toHaveLength(1)
  })

  it('does not remember failures: a retry after a 5xx goes to the bot again', async () => {
    let n = 0
    const bot = await startBot(() => (++n === 1 ? {status: 500} : {status: 200, body: 'ok'}))
    opened.push(bot)
    const {relay, url} = await relayFor()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect((await post(url + PATH, update(40))).status).toBe(500)
    expect(await post(url + PATH, update(40))).toMatchObject({status: 200, body: 'ok'})
    expect(bot.seen).toHaveLength(2)
  })
})

describe('peekUpdateId', () => {
  it('reads the leading update_id only', async () => {
    const {peekUpdateId} = await import('../../src/dev/relay/relay.js')
    expect(peekUpdateId(Buffer.from('{"update_id":123456789,\n"message":{}}'))).toBe(123456789)
    expect(peekUpdateId(Buffer.from(' { "update_id" : 5 }'))).toBe(5)
    expect(peekUpdateId(Buffer.from('{"message":{"text":"{\\"update_id\\":1"},"update_id":9}'))).toBeUndefined()
    expect(peekUpdateId(Buffer.from('nonsense'))).toBeUndefined()
  })

  it('reads the usual bytes directly, finding what the expression finds', async () => {
    const {peekUpdateId} = await import('../../src/dev/relay/relay.js')
    // What the expression alone would read: the reference for the direct path.
    const expression = (body: string) => {
      const m = /^\s*\{\s*"update_id"\s*:\s*(\d+)/.exec(Buffer.from(body).toString('latin1', 0, 64))
      return m ? Number(m[1]) : undefined
    }
    for (const body of [
      '{"update_id":1,"message":{}}',
      '{"update_id":0}',
      '{"update_id":007,"x":1}',
      '{"update_id":12345678901234,"x":1}', // 14 digits: read directly
      '{"update_id":123456789012345678,"x":1}', // more: left to the expression
      '{"update_id":12345678901234567890123456789012345678901234567890}',
      '{"update_id":-5,"x":1}',
      '{"update_id":"5"}',
      '{"update_id":}',
      '{"update_id":5',
      '{"update_id" :5}',
      '{"update_ix":5,"update_id":6}',
    ])
      expect([body, peekUpdateId(Buffer.from(body))]).toEqual([body, expression(body)])
  })
})

describe('describeUpdate', () => {
  it('reads id, type, chat and a short preview', () => {
    expect(describeUpdate(update(9, 'line one\nline two'))).toEqual({
      updateId: 9,
      updateType: 'message',
      chatId: 77,
      preview: 'line one line two',
    })
    const long = describeUpdate(update(9, 'x'.repeat(100)))
    expect(long.preview).toHaveLength(40)
    expect(long.preview!.endsWith('…')).toBe(true)
    expect(
      describeUpdate(JSON.stringify({update_id: 3, callback_query: {id: 'q', from: {id: 5}, data: 'btn:1'}})),
    ).toEqual({updateId: 3, updateType: 'callback_query', chatId: 5, preview: 'btn:1'})
    expect(describeUpdate('not json')).toEqual({})
  })
})
