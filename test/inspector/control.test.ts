/**
 * The control port over real HTTP (node:http client on loopback) with a recording
 * SessionActions stand-in: routes, key, Host check, body cap, validation, errors, deadline.
 */
import {request} from 'node:http'
import {connect} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {startControlPort, type ControlPort} from '../../src/control/server.js'
import {keyMatches as sameKey} from '../../src/lib/loopback-http.js'
import {ActionError} from '../../src/control/protocol.js'
import {RecordingActions} from './control-helpers.js'

const KEY = 'a3f1c2d4e5f60718293a4b5c6d7e8f90'

interface Answer {
  status: number
  body: any
  headers: Record<string, unknown>
}

function post(
  port: number,
  path: string,
  body: unknown,
  o: {key?: string | null; host?: string; method?: string; raw?: string | Buffer} = {},
): Promise<Answer> {
  const payload = o.raw ?? JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      host: o.host ?? `127.0.0.1:${port}`,
    }
    if (o.key !== null) headers['x-bot-dev-key'] = o.key ?? KEY
    const req = request({host: '127.0.0.1', port, path, method: o.method ?? 'POST', headers}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers})
      })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

let server: ControlPort | undefined
let actions: RecordingActions

async function start(o: {deadlineMs?: number; secrets?: string[]} = {}): Promise<number> {
  actions = new RecordingActions()
  server = await startControlPort({actions, key: KEY, ...o})
  return server.port
}

afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('control port', () => {
  it('POST /trigger delivers through actions.trigger and answers the UpdateEntry', async () => {
    const port = await start()
    const r = await post(port, '/trigger', {kind: 'message', text: '/start', chatId: -42, userId: 7})
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toMatch(/application\/json/)
    expect(actions.triggers).toEqual([{kind: 'message', text: '/start', chatId: -42, userId: 7}])
    expect(r.body).toMatchObject({
      updateId: 100,
      type: 'message',
      chatId: -42,
      source: 'trigger',
      answer: {status: 200},
    })
    expect(r.body.update.message.entities).toEqual([{offset: 0, length: 6, type: 'bot_command'}])
  })

  it('POST /replay passes updateId (a number or "last") and an edited update', async () => {
    const port = await start()
    await post(port, '/trigger', {kind: 'message', text: 'one'})
    await post(port, '/trigger', {kind: 'callback', data: 'x:1', messageId: 5})
    const last = await post(port, '/replay', {updateId: 'last'})
    expect(last.status).toBe(200)
    expect(last.body).toMatchObject({updateId: 101, replayOf: 101, type: 'callback_query', source: 'replay'})
    const edited = await post(port, '/replay', {
      updateId: 100,
      update: {message: {message_id: 1, chat: {id: 1, type: 'private'}, date: 1, text: 'edited'}},
    })
    expect(edited.status).toBe(200)
    expect(edited.body.update.message.text).toBe('edited')
    expect(actions.replays).toEqual([
      {updateId: 'last'},
      {updateId: 100, edited: {message: {message_id: 1, chat: {id: 1, type: 'private'}, date: 1, text: 'edited'}}},
    ])
  })

  it('an ActionError answers its status with {error, fix}', async () => {
    const port = await start()
    const r = await post(port, '/replay', {updateId: 999})
    expect(r.status).toBe(404)
    expect(r.body).toEqual({
      error: "Update 999 is not in this session's history.",
      fix: 'Pick one the inspector lists, or use --last.',
    })
    actions.fail = new ActionError(409, 'The bot is restarting.', 'Try again in a moment.')
    const t = await post(port, '/trigger', {kind: 'message', text: 'x'})
    expect(t.status).toBe(409)
    expect(t.body).toEqual({error: 'The bot is restarting.', fix: 'Try again in a moment.'})
  })

  it('any other failure answers 500 with one line, and the server keeps serving', async () => {
    const port = await start({secrets: ['123456789:AAHsecretsecretsecretsecretsecret12']})
    actions.fail = new Error('boom with 123456789:AAHsecretsecretsecretsecretsecret12 inside')
    const r = await post(port, '/trigger', {kind: 'message', text: 'x'})
    expect(r.status).toBe(500)
    expect(r.body.error).toContain('boom')
    expect(JSON.stringify(r.body)).not.toContain('AAHsecret')
    expect((await post(port, '/trigger', {kind: 'message', text: 'y'})).status).toBe(200)
  })

  it('requires the key: none or a wrong one → 401, nothing delivered', async () => {
    const port = await start()
    for (const key of [null, '', 'wrong', KEY.slice(0, -1), KEY + 'x']) {
      const r = await post(port, '/trigger', {kind: 'message', text: 'x'}, {key})
      expect(r.status, String(key)).toBe(401)
      expect(r.body.error).toMatch(/x-bot-dev-key/)
      expect(JSON.stringify(r.body)).not.toContain(KEY)
    }
    const replay = await post(port, '/replay', {updateId: 'last'}, {key: 'nope'})
    expect(replay.status).toBe(401)
    expect(actions.triggers).toEqual([])
    expect(actions.replays).toEqual([])
    expect(sameKey(KEY, KEY)).toBe(true)
    expect(sameKey(undefined, KEY)).toBe(false)
    expect(sameKey('', '')).toBe(false)
  })

  it('serves loopback Host headers for its own port only (DNS rebinding) → 403', async () => {
    const port = await start()
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `0.0.0.0:${port}`,
      `localhost.evil.example:${port}`,
    ]) {
      const r = await post(port, '/trigger', {kind: 'message', text: 'x'}, {host})
      expect(r.status, host).toBe(403)
    }
    expect(actions.triggers).toEqual([])
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`])
      expect((await post(port, '/trigger', {kind: 'message', text: 'x'}, {host})).status, host).toBe(200)
  })

  it('listens on 127.0.0.1 only', async () => {
    const port = await start()
    const reached = await new Promise<boolean>((resolve) => {
      const s = connect({host: '::1', port})
      s.once('connect', () => {
        s.destroy()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    expect(reached).toBe(false)
  })

  it('validates the body: 400 with one clear message, nothing delivered', async () => {
    const port = await start()
    const cases: Array<[string, unknown, RegExp, string?]> = [
      ['/trigger', undefined, /not valid JSON/, '{"kind": "mess'],
      ['/trigger', [1], /not a JSON object/],
      ['/trigger', {kind: 'message', text: ''}, /text is empty/],
      ['/trigger', {kind: 'message', text: 'x', chatId: 'abc'}, /chat id "abc"/],
      ['/trigger', {kind: 'callback', data: 'x', messageId: 0}, /message id 0/],
      ['/trigger', {kind: 'fixture', type: 'nope'}, /Unknown trigger type/],
      ['/trigger', {kind: 'update', update: {message: {}, poll: {}}}, /2 fields/],
      ['/trigger', {kind: 'nope'}, /Unknown trigger kind/],
      ['/replay', {}, /updateId undefined/],
      ['/replay', {updateId: -1}, /updateId -1/],
      ['/replay', {updateId: 'first'}, /updateId "first"/],
      ['/replay', {updateId: 1, update: {nope: {}}}, /edited update has the field "nope"/],
    ]
    for (const [path, body, pattern, raw] of cases) {
      const r = await post(port, path, body, {raw})
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.error).toMatch(pattern)
      expect(typeof r.body.fix).toBe('string')
    }
    expect(actions.triggers).toEqual([])
    expect(actions.replays).toEqual([])
  })

  it('caps the body at 8 MiB for /trigger (a photo travels in it), 1 MiB for /replay → 413 (declared or streamed)', async () => {
    const port = await start()
    const replay = await post(port, '/replay', undefined, {
      raw: JSON.stringify({updateId: 1, pad: 'x'.repeat(1024 * 1024)}),
    })
    expect(replay.status).toBe(413)
    const big = JSON.stringify({kind: 'message', text: 'x'.repeat(8 * 1024 * 1024)})
    const r = await post(port, '/trigger', undefined, {raw: big})
    expect(r.status).toBe(413)
    // Streamed without a length (chunked): cut once over the cap.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/trigger',
          method: 'POST',
          headers: {host: `127.0.0.1:${port}`, 'x-bot-dev-key': KEY},
        },
        (res) => {
          res.resume()
          resolve(res.statusCode!)
        },
      )
      req.on('error', (error) => reject(error)) // after the answer (EPIPE while still writing): already settled
      const chunk = Buffer.alloc(64 * 1024, 'x')
      let sent = 0
      const pump = () => {
        while (sent < 9 * 1024 * 1024) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
    expect(streamed).toBe(413)
    expect(actions.triggers).toEqual([])
    expect((await post(port, '/trigger', {kind: 'message', text: 'still up'})).status).toBe(200)
  })

  it('an update nested 100,000 levels deep → 400 before anything walks it; the port keeps serving', async () => {
    const port = await start()
    const bomb = '{"message":{"text":"x","a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}}'
    for (const [path, raw] of [
      ['/trigger', `{"kind":"update","update":${bomb}}`],
      ['/replay', `{"updateId":1,"update":${bomb}}`],
    ] as const) {
      const r = await post(port, path, undefined, {raw})
      expect(r.status, path).toBe(400)
      expect(r.body.error).toMatch(/nests more than 64 levels/)
    }
    expect(actions.triggers).toEqual([])
    expect(actions.replays).toEqual([])
    expect((await post(port, '/trigger', {kind: 'message', text: 'still here'})).status).toBe(200)
  })

  it('unknown routes → 404, other methods → 405', async () => {
    const port = await start()
    expect((await post(port, '/nope', {})).status).toBe(404)
    expect((await post(port, '/api/updates', {})).status).toBe(404)
    expect((await post(port, '/trigger', undefined, {method: 'GET', raw: ''})).status).toBe(405)
  })

  it('waits for the session with a deadline → 504', async () => {
    const port = await start({deadlineMs: 300})
    actions.hang = true
    const r = await post(port, '/trigger', {kind: 'message', text: 'x'})
    expect(r.status).toBe(504)
    expect(r.body.error).toMatch(/did not finish the delivery/)
    actions.hang = false
    expect((await post(port, '/trigger', {kind: 'message', text: 'y'})).status).toBe(200)
  })

  it('a client that disconnects mid-body or sends garbage changes nothing', async () => {
    const port = await start()
    await new Promise<void>((resolve) => {
      const s = connect({host: '127.0.0.1', port}, () => {
        s.write(
          `POST /trigger HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-bot-dev-key: ${KEY}\r\ncontent-length: 100\r\n\r\n{"kind":`,
        )
        s.destroy()
        resolve()
      })
    })
    await new Promise<void>((resolve) => {
      const s = connect({host: '127.0.0.1', port}, () => s.end('NOT HTTP AT ALL\r\n\r\n'))
      s.on('close', () => resolve())
      s.on('error', () => resolve())
      s.resume()
    })
    expect((await post(port, '/trigger', {kind: 'message', text: 'ok'})).status).toBe(200)
    expect(actions.triggers).toHaveLength(1)
  })

  it('close() stops it', async () => {
    const port = await start()
    await server!.close()
    server = undefined
    await expect(post(port, '/trigger', {kind: 'message', text: 'x'})).rejects.toThrow()
  })
})
