/**
 * The control port's routes for `bot mcp` (GET /status, /updates, /calls, /output, /transcript, /actions; POST
 * /actions/{name}, /restart, /faults, /script) over real HTTP with a recording SessionQueries stand-in: the same
 * key, Host and Origin rules as /trigger, their parameters checked (400 with a fix), methods (405), unknown routes
 * (404), secrets redacted, and no such route on a session that serves none.
 */
import {request} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {ActionError, type SessionQueries} from '../../src/control/protocol.js'
import {startControlPort, type ControlPort} from '../../src/control/server.js'
import {RecordingActions} from './control-helpers.js'

const KEY = 'b3f1c2d4e5f60718293a4b5c6d7e8f91'
const TOKEN = '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

function send(
  port: number,
  method: string,
  path: string,
  o: {key?: string | null; origin?: string; body?: unknown} = {},
): Promise<{status: number; body: any}> {
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body)
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {host: `127.0.0.1:${port}`}
    if (payload !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = Buffer.byteLength(payload)
    }
    if (o.key !== null) headers['x-bot-dev-key'] = o.key ?? KEY
    if (o.origin) headers.origin = o.origin
    const req = request({host: '127.0.0.1', port, path, method, headers}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8'))}))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** What the routes asked for, in order. */
const asked: Array<[string, unknown]> = []

const queries: SessionQueries = {
  status: () => ({
    pid: 1,
    offline: true,
    mode: 'webhook',
    bot: {id: 123456},
    botRunning: true,
    restarts: 0,
    cwd: `/tmp/${TOKEN}`,
    startedAt: 'now',
    counts: {updates: 0, failedUpdates: 0, calls: 0, failedCalls: 0},
  }),
  actions: () => [],
  act: async (name, input) => {
    asked.push(['act', {name, input}])
    if (name === 'vote_poll') throw new ActionError(404, 'there is no poll 7', 'Make the bot send a poll first.')
    return {action: name, entries: []}
  },
  updates: (o) => (asked.push(['updates', o]), []),
  update: (id) => (asked.push(['update', id]), undefined),
  calls: (o) => (asked.push(['calls', o]), []),
  output: (o) => (asked.push(['output', o]), [{time: 't', stream: 'stderr', line: `leaked ${TOKEN}`}]),
  restart: async () => ({restarts: 1, ms: 5}),
  transcript: (o) => (asked.push(['transcript', o]), {chats: [], items: []}),
  fault: (f) => (asked.push(['fault', f]), {ok: true}),
  script: async (r) => (
    asked.push(['script', r]),
    {ok: true, steps: 1, ran: 1, durationMs: 1, startedAt: 0, endedAt: 1, output: [], failures: []}
  ),
}

let server: ControlPort | undefined

async function start(withQueries = true): Promise<number> {
  asked.length = 0
  server = await startControlPort({
    actions: new RecordingActions(),
    key: KEY,
    secrets: [TOKEN],
    ...(withQueries ? {queries} : {}),
  })
  return server.port
}

afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('the control port routes of bot mcp', () => {
  it('serves them with the key, reads their parameters, and redacts secrets', async () => {
    const port = await start()
    expect((await send(port, 'GET', '/status')).body.bot.id).toBe(123456)
    expect((await send(port, 'GET', '/status')).body.cwd).not.toContain(TOKEN)
    await send(port, 'GET', '/updates?limit=5&chat_id=-100123&type=message')
    await send(port, 'GET', '/calls?method=sendMessage&failed_only=1')
    await send(port, 'GET', '/transcript')
    const output = await send(port, 'GET', '/output?limit=3')
    expect(JSON.stringify(output.body)).not.toContain(TOKEN)
    expect(output.body.lines[0].line).toMatch(/^leaked /)
    await send(port, 'POST', '/actions/send_message', {body: {text: 'hi'}})
    await send(port, 'POST', '/faults', {
      body: {method: 'sendMessage', error_code: 429, description: 'Too Many Requests: retry after 5', retry_after: 5},
    })
    await send(port, 'POST', '/script', {body: {text: 'steps: []', file: 'a.chat.yml'}})
    expect((await send(port, 'POST', '/restart')).body).toEqual({restarts: 1, ms: 5})
    expect(asked).toEqual([
      ['updates', {limit: 5, chatId: -100123, type: 'message'}],
      ['calls', {limit: 20, method: 'sendMessage', failedOnly: true}],
      ['transcript', {limit: 50}],
      ['output', {limit: 3}],
      ['act', {name: 'send_message', input: {text: 'hi'}}],
      [
        'fault',
        {method: 'sendMessage', error_code: 429, description: 'Too Many Requests: retry after 5', retry_after: 5},
      ],
      ['script', {text: 'steps: []', file: 'a.chat.yml'}],
    ])
  })

  it('keeps the key, Origin and method rules and checks parameters before asking the session', async () => {
    const port = await start()
    expect((await send(port, 'GET', '/calls', {key: null})).status).toBe(401)
    expect((await send(port, 'GET', '/output', {key: 'wrong'})).status).toBe(401)
    expect((await send(port, 'GET', '/status', {origin: 'https://evil.example'})).status).toBe(403)
    expect((await send(port, 'POST', '/status')).status).toBe(405)
    expect((await send(port, 'GET', '/actions/send_message')).status).toBe(405)
    expect((await send(port, 'GET', '/nothing')).status).toBe(404)
    for (const path of [
      '/updates?limit=0',
      '/updates?limit=abc',
      '/calls?limit=1001',
      '/transcript?chat_id=x',
      '/updates/abc',
    ]) {
      const r = await send(port, 'GET', path)
      expect(r.status, path).toBe(400)
      expect(r.body.fix, path).toBeTruthy()
    }
    expect((await send(port, 'GET', '/updates/42')).status).toBe(404)
    for (const body of [
      {method: 'send message', error_code: 429, description: 'x'},
      {method: 'sendMessage', error_code: 200, description: 'x'},
      {method: 'sendMessage', error_code: 429},
      {method: 'sendMessage', error_code: 429, description: 'x', extra: 1},
    ]) {
      const r = await send(port, 'POST', '/faults', {body})
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.fix).toBeTruthy()
    }
    expect((await send(port, 'POST', '/actions/send_message', {body: [1]})).status).toBe(400)
    expect((await send(port, 'POST', '/script', {body: {file: 'x'}})).status).toBe(400)
    const refused = await send(port, 'POST', '/actions/vote_poll', {body: {}})
    expect(refused).toEqual({status: 404, body: {error: 'there is no poll 7', fix: 'Make the bot send a poll first.'}})
    expect(asked.map(([what]) => what)).toEqual(['update', 'act'])
  })

  it('has none of them on a session that serves no queries', async () => {
    const port = await start(false)
    const r = await send(port, 'GET', '/status')
    expect(r.status).toBe(404)
    expect(r.body.fix).toBe('Use POST /trigger or POST /replay.')
  })
})
