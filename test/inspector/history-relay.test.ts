/**
 * The relay's recorder hook and inject, with the history as the recorder: a real relay on loopback,
 * a real bot server behind it.
 */
import http from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {Relay, type RelayUpdateEvent} from '../../src/dev/relay/relay.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import type {UpdateEntry} from '../../src/inspector/types.js'

const SECRET = 'history_relay_secret'
const PATH = '/webhook/history-test'

const opened: Array<{close(): Promise<void>}> = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

async function startBot(answer: (body: string) => string = (b) => `{"got":${JSON.parse(b).update_id}}`) {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push(body)
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(answer(body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const bot = {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  }
  opened.push(bot)
  return bot
}

async function recordedRelay(o: {holdTimeoutMs?: number} = {}) {
  const events: RelayUpdateEvent[] = []
  const relay = new Relay({
    secret: SECRET,
    path: PATH,
    holdTimeoutMs: o.holdTimeoutMs ?? 5000,
    secrets: [SECRET],
    onUpdate: (e) => events.push(e),
  })
  await relay.listen()
  opened.push(relay)
  const history = new UpdateHistory({secrets: [SECRET, PATH]})
  relay.setRecorder({
    begin: (body, source, replayOf) => history.begin(body, source, replayOf),
    finish: (record, answer, ms) => history.finish(record as UpdateEntry, answer, ms),
  })
  return {relay, history, events, url: `http://127.0.0.1:${relay.port}${PATH}`}
}

const update = (id: number, text = 'hello') =>
  JSON.stringify({
    update_id: id,
    message: {
      message_id: 1,
      date: 0,
      chat: {id: 77, type: 'private'},
      from: {id: 77, is_bot: false, first_name: 'A'},
      text,
    },
  })

function post(url: string, body: string) {
  return fetch(url, {
    method: 'POST',
    body,
    headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET},
  }).then(async (r) => ({status: r.status, body: await r.text()}))
}

describe('relay recorder and inject', () => {
  it('records each update in flight, then with the answer; a repeat of an answered update is not recorded again', async () => {
    const bot = await startBot()
    const {relay, history, url} = await recordedRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/bot'})
    const changes: string[] = []
    history.subscribe((e, change) =>
      changes.push(`${change} ${e.updateId} ${e.answer ? e.answer.status : 'in-flight'}`),
    )
    expect(await post(url, update(5))).toEqual({status: 200, body: '{"got":5}'})
    expect(await post(url, update(5))).toEqual({status: 200, body: '{"got":5}'}) // Telegram's retry: answered from the cache
    expect(bot.seen).toHaveLength(1)
    expect(changes).toEqual(['new 5 in-flight', 'update 5 200'])
    expect(history.list()[0]).toMatchObject({
      updateId: 5,
      type: 'message',
      chatId: 77,
      preview: 'hello',
      source: 'webhook',
      answer: {status: 200, body: '{"got":5}'},
    })
  })

  it('inject delivers an answered update_id to the bot again, without touching the answer cache', async () => {
    const bot = await startBot()
    const {relay, history, events, url} = await recordedRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/bot'})
    await post(url, update(9, 'first'))
    const result = await relay.inject(update(9, 'edited'), {source: 'replay', replayOf: 9})
    expect(result).toMatchObject({status: 200, body: '{"got":9}'})
    expect(bot.seen.map((b) => JSON.parse(b).message.text)).toEqual(['first', 'edited'])
    const entry = result.record as UpdateEntry
    expect(entry).toMatchObject({updateId: 9, source: 'replay', replayOf: 9, preview: 'edited', answer: {status: 200}})
    expect(history.list().map((e) => e.source)).toEqual(['replay', 'webhook'])
    expect(events.at(-1)).toMatchObject({updateId: 9, source: 'replay', replayOf: 9, status: 200})
    // Telegram's retry of 9 still gets the first answer from the cache, and the bot does not see it.
    await post(url, update(9, 'first'))
    expect(bot.seen).toHaveLength(2)
    expect(relay.stats).toMatchObject({relayed: 2, repeats: 1})
  })

  it('inject holds the update while there is no bot, then delivers it; without a bot in time it answers 503', async () => {
    const {relay, history} = await recordedRelay({holdTimeoutMs: 5000})
    const pending = relay.inject(update(1), {source: 'trigger'})
    expect(history.inFlight(history.list()[0])).toBe(true)
    const bot = await startBot()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/bot'})
    expect((await pending).status).toBe(200)
    expect(bot.seen).toHaveLength(1)

    const {relay: lonely} = await recordedRelay({holdTimeoutMs: 100})
    const failed = await lonely.inject(update(2), {source: 'trigger'})
    expect(failed.status).toBe(503)
    expect(failed.error).toMatch(/not listening/)
    expect((failed.record as UpdateEntry).answer?.status).toBe(503)
  })

  it('a recorder that throws changes nothing for Telegram or the bot', async () => {
    const bot = await startBot()
    const relay = new Relay({secret: SECRET, path: PATH})
    await relay.listen()
    opened.push(relay)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/bot'})
    relay.setRecorder({
      begin: () => {
        throw new Error('begin broke')
      },
      finish: () => {
        throw new Error('finish broke')
      },
    })
    expect(await post(`http://127.0.0.1:${relay.port}${PATH}`, update(3))).toEqual({status: 200, body: '{"got":3}'})
    expect((await relay.inject(update(4), {source: 'trigger'})).status).toBe(200)
    expect(bot.seen).toHaveLength(2)
  })
})
