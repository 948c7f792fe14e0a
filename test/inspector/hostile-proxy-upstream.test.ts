/**
 * The api proxy against a hostile upstream (raw TCP where HTTP servers are too polite): garbage
 * instead of HTTP, no answer at all, a reset before or during the answer, an enormous or endless
 * body, a huge getUpdates answer or one whose result is not an array, descriptions carrying the
 * token or terminal escapes, deeply nested JSON; and hostile request bodies: deeply nested JSON,
 * multipart with a malformed boundary, thousands of parts, a huge field name. After each one the
 * proxy still answers a normal call.
 */
import {createHash} from 'node:crypto'
import http from 'node:http'
import {describe, expect, it} from 'vitest'
import {startApiProxy} from '../../src/inspector/proxy/api-proxy.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import {callText} from '../../src/inspector/render.js'
import {postJson, recordingProxy, sink, type Recorder} from './api-proxy-helpers.js'
import {afterHead, connectRaw, later, rawUpstream, SECRET, TERMINAL_CONTROL, TOKEN} from './hostile-helpers.js'
import {waitFor} from '../support/wait.js'

const MiB = 1024 * 1024

/** A getMe through the proxy is answered by `upstream` (which must answer it) and recorded. */
async function expectServes(rec: Recorder): Promise<void> {
  const before = rec.calls.length
  const res = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ok: true})
  await waitFor(() => rec.calls.length > before, {what: 'the getMe record'})
}

/** A raw upstream: getMe gets a proper answer, every other request what `hostile` does with its socket. */
async function hostileUpstream(hostile: (socket: import('node:net').Socket, head: string) => void) {
  return rawUpstream((socket) => {
    let text = ''
    let done = false
    socket.on('data', (c: Buffer) => {
      if (done) return
      text += c.toString('latin1')
      if (!text.includes('\r\n\r\n')) return
      done = true
      if (/^GET \S*\/getMe /.test(text)) {
        const body = '{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"B","username":"b_bot"}}'
        socket.end(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        )
        return
      }
      hostile(socket, text)
    })
  })
}

function expectClean(value: unknown): void {
  const text = JSON.stringify(value)
  for (const variant of [TOKEN, SECRET, encodeURIComponent(TOKEN)]) expect(text).not.toContain(variant)
  const strings: string[] = []
  JSON.parse(text, (_k, v: unknown) => {
    if (typeof v === 'string') strings.push(v)
    return v
  })
  for (const s of strings) expect(s).not.toMatch(TERMINAL_CONTROL)
}

function bigRequest(url: string): Promise<{status: number; bytes: number; sha: string; error?: string}> {
  return new Promise((resolve) => {
    const hash = createHash('sha256')
    let bytes = 0
    http
      .get(url, (res) => {
        res.on('data', (c: Buffer) => {
          bytes += c.length
          hash.update(c)
        })
        res.on('end', () => resolve({status: res.statusCode ?? 0, bytes, sha: hash.digest('hex')}))
        res.on('error', (e) => resolve({status: res.statusCode ?? 0, bytes, sha: '', error: e.message}))
      })
      .on('error', (e) => resolve({status: 0, bytes, sha: '', error: e.message}))
  })
}

describe('api proxy: an upstream that misbehaves', () => {
  it('answers garbage (not HTTP, escapes included): the bot gets a 502 envelope, the call a clean description', async () => {
    const upstream = await hostileUpstream((s) => s.end('HELLO \u001b[2J\u001b]0;owned\u0007 I AM NOT HTTP\r\n\r\n'))
    const rec = await recordingProxy(upstream.url)
    const answer = await postJson(`${rec.proxy.url}/bot${TOKEN}/sendMessage`, {chat_id: 1, text: 'x'})
    expect(answer.status).toBe(502)
    expect(answer.json).toMatchObject({ok: false, error_code: 502})
    expect(answer.json.description).toMatch(/^Bad Gateway: bot dev could not reach 127\.0\.0\.1:\d+: /)
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'sendMessage'), {what: 'the record'})
    expect(call).toMatchObject({ok: false, errorCode: 502})
    expectClean(rec.calls)
    await expectServes(rec)
  })

  it('a reason phrase with escapes: the bot still gets the answer, with the standard phrase; a header with escapes: 502; records clean', async () => {
    const upstream = await hostileUpstream((s, head) =>
      s.end(
        head.includes('/getChat?')
          ? 'HTTP/1.1 400 \u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007\u009b2J\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'
          : 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\u001b[2Jb\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      ),
    )
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(`GET /bot${TOKEN}/getChat?chat_id=1 HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\n\r\n`)
    await conn.whenReceived((t) => t.endsWith('\r\n\r\n{}') || conn.closed)
    expect(conn.text()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(conn.text()).toMatch(/\r\n\r\n\{\}$/)
    expect(conn.text()).not.toMatch(/[\u001b\u0007\u009b]/)
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'getChat'), {what: 'the record'})
    expect(call).toMatchObject({ok: false, errorCode: 400})

    const header = await fetch(`${rec.proxy.url}/bot${TOKEN}/getChatMember?chat_id=1`)
    expect(header.status).toBe(502)
    expect([...header.headers.values()].join(' ')).not.toContain('\u001b')
    await header.arrayBuffer()
    await waitFor(() => rec.calls.find((c) => c.method === 'getChatMember'), {what: 'the second record'})
    expectClean(rec.calls)
    await expectServes(rec)
  })

  it('never answers: when the bot gives up the upstream request is cut; close() ends a pending one at once', async () => {
    const held: import('node:net').Socket[] = []
    const upstream = await hostileUpstream((s) => held.push(s))
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(`GET /bot${TOKEN}/getChat?chat_id=1 HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\n\r\n`)
    const first = await waitFor(() => held[0], {what: 'the upstream request'})
    let firstClosed = false
    first.on('close', () => (firstClosed = true))
    conn.socket.destroy()
    await waitFor(() => firstClosed, {what: 'the upstream request to be cut'})
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'getChat'), {what: 'the record'})
    expect(call.description).toMatch(/^cancelled/)
    await expectServes(rec)

    // A second proxy with a request pending upstream: close() is not held up by it.
    const proxy = await startApiProxy({upstream: upstream.url, onCall: () => {}})
    const pending = fetch(`${proxy.url}/bot${TOKEN}/getChat?chat_id=2`).then(
      (r) => r.status,
      () => 'cut',
    )
    const second = await waitFor(() => held[1], {what: 'the second upstream request'})
    let secondClosed = false
    second.on('close', () => (secondClosed = true))
    // The upstream never answers it: a close() held up by it would never resolve (no stopwatch needed).
    await proxy.close()
    expect(await pending).toBe('cut')
    await waitFor(() => secondClosed, {what: 'the pending upstream request to be cut'})
  })

  it('resets before the answer: 502 with the reason; resets in the middle of it: the bot sees the cut, the record says so', async () => {
    const midway: import('node:net').Socket[] = []
    const upstream = await hostileUpstream((s, head) => {
      if (head.includes('/getChat?')) return s.resetAndDestroy()
      s.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"ok":true,"result":[',
      )
      midway.push(s)
    })
    const rec = await recordingProxy(upstream.url)
    const before = await fetch(`${rec.proxy.url}/bot${TOKEN}/getChat?chat_id=1`)
    expect(before.status).toBe(502)
    expect((await before.json()).description).toMatch(
      /the connection closed before the answer \((ECONNRESET|UND_ERR_SOCKET)\)/,
    )

    const conn = await connectRaw(rec.proxy.port)
    await conn.write(
      `GET /bot${TOKEN}/getChatAdministrators?chat_id=1 HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\n\r\n`,
    )
    await conn.whenReceived((t) => t.includes('{"ok":true,"result":['))
    expect(conn.text()).toMatch(/^HTTP\/1\.1 200 /)
    midway[0].resetAndDestroy()
    await conn.whenClosed()
    const cut = await waitFor(() => rec.calls.find((c) => c.method === 'getChatAdministrators'), {what: 'the record'})
    expect(cut).toMatchObject({ok: false, errorCode: 200})
    expect(cut.description).toMatch(/^the answer was cut: /)
    expectClean(rec.calls)
    await expectServes(rec)
  })

  it('an endless body the bot does not read: the upstream is held back (backpressure), memory stays flat; then 200 MiB stream through', async () => {
    let written = 0
    let stop = false
    const upstream = await sink((r) => {
      if (r.url.endsWith('/getMe')) return r.res.end('{"ok":true,"result":{}}')
      r.res.writeHead(200, {'content-type': 'application/octet-stream'})
      const chunk = Buffer.alloc(64 * 1024, 0x61)
      const pump = () => {
        while (!stop) {
          written += chunk.length
          if (!r.res.write(chunk)) return r.res.once('drain', pump)
        }
        r.res.end()
      }
      pump()
    })
    later(() => (stop = true))
    const rec = await recordingProxy(upstream.url)
    const base = process.memoryUsage()
    const req = http.get(`${rec.proxy.url}/bot${TOKEN}/getUpdates`)
    const res = await new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve))
    res.pause()
    // Wait until the upstream is blocked: `written` stops growing.
    let last = -1
    await waitFor(
      async () => {
        const now = written
        const still = now === last && now > 0
        last = now
        await new Promise((r) => setTimeout(r, 300))
        return still
      },
      {what: 'the upstream to be held back'},
    )
    expect(written).toBeLessThan(64 * MiB)
    // Now read 200 MiB and leave.
    let read = 0
    await new Promise<void>((resolve) => {
      res.on('data', (c: Buffer) => {
        read += c.length
        if (read >= 200 * MiB) {
          req.destroy()
          resolve()
        }
      })
      res.resume()
    })
    const grown = process.memoryUsage()
    expect(grown.arrayBuffers - base.arrayBuffers).toBeLessThan(100 * MiB)
    stop = true
    await expectServes(rec)
  }, 120_000)
})

describe('api proxy: getUpdates answers', () => {
  it('a getUpdates answer over the kept copy (20 MiB) reaches the bot byte for byte; no updates are handed on, the record says so', async () => {
    const update = {
      update_id: 1,
      message: {message_id: 1, date: 1, chat: {id: 5, type: 'private'}, text: 'x'.repeat(1000)},
    }
    const many = Array.from({length: 20 * 1024}, (_, i) => ({...update, update_id: i + 1}))
    const body = Buffer.from(JSON.stringify({ok: true, result: many}))
    expect(body.length).toBeGreaterThan(16 * MiB)
    const upstream = await sink((r) => {
      r.res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(r.url.endsWith('/getMe') ? 23 : body.length),
      })
      r.res.end(r.url.endsWith('/getMe') ? '{"ok":true,"result":{}}' : body)
    })
    const rec = await recordingProxy(upstream.url)
    const got = await bigRequest(`${rec.proxy.url}/bot${TOKEN}/getUpdates`)
    expect(got).toMatchObject({status: 200, bytes: body.length, sha: createHash('sha256').update(body).digest('hex')})
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'getUpdates'), {what: 'the record'})
    expect(call).toMatchObject({ok: true, description: 'the answer was too large to be recorded'})
    expect(rec.updates).toEqual([])
    await expectServes(rec)
  }, 60_000)

  it('a getUpdates result that is not an array of updates: nothing breaks, only arrays are handed on, and a real history takes junk items', async () => {
    const results: unknown[] = [
      {},
      'updates',
      null,
      42,
      [1, null, 'x', {update_id: 'a'}, [[[]]], {update_id: 7, message: {text: '\u001b[2J'}}],
    ]
    let i = 0
    const upstream = await sink((r) => {
      const body = r.url.endsWith('/getMe')
        ? '{"ok":true,"result":{}}'
        : JSON.stringify({ok: true, result: results[i++]})
      r.res.writeHead(200, {'content-type': 'application/json'})
      r.res.end(body)
    })
    const history = new UpdateHistory({secrets: [TOKEN]})
    const calls: unknown[] = []
    const updates: unknown[][] = []
    const proxy = await startApiProxy({
      upstream: upstream.url,
      onCall: (c) => calls.push(c),
      onUpdates: (list) => {
        updates.push(list)
        for (const u of list) history.finish(history.begin(u, 'polling'), null, 0)
      },
    })
    later(() => proxy.close())
    for (const result of results) {
      const answer = await postJson(`${proxy.url}/bot${TOKEN}/getUpdates`, {offset: 0})
      expect(answer.json).toEqual({ok: true, result})
    }
    await waitFor(() => calls.length === results.length, {what: 'the records'})
    expect(updates).toEqual([results[4]])
    expect(history.list().length).toBe(6)
    expect(JSON.stringify(history.list())).not.toMatch(/\u001b/)
    const res = await fetch(`${proxy.url}/bot${TOKEN}/getMe`)
    expect(res.status).toBe(200)
  })

  it('deeply nested JSON in a getUpdates answer and in a request body (stack depth): no crash, bounded records', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
    const upstream = await sink((r) => {
      r.req.on('end', () => {
        const body = r.url.endsWith('/getMe')
          ? '{"ok":true,"result":{}}'
          : `{"ok":true,"result":[{"update_id":9,"message":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}, ${deep(200_000)}]}`
        r.res.writeHead(200, {'content-type': 'application/json'})
        r.res.end(body)
      })
      r.req.resume()
    })
    const history = new UpdateHistory({secrets: [TOKEN]})
    const rec = await recordingProxy(upstream.url, {
      onUpdates: (list) => {
        for (const u of list) history.finish(history.begin(u, 'polling'), null, 0)
      },
    })
    const nested = await fetch(`${rec.proxy.url}/bot${TOKEN}/sendMessage`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: `{"chat_id":1,"reply_markup":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    })
    expect(nested.status).toBe(200)
    await nested.arrayBuffer()
    const big = await fetch(`${rec.proxy.url}/bot${TOKEN}/getUpdates`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: `{"x":${deep(30_000)}}`,
    })
    expect(big.status).toBe(200)
    expect((await big.text()).length).toBeGreaterThan(400_000)
    await waitFor(() => rec.calls.length === 2, {what: 'the records'})
    expect(JSON.stringify(rec.calls).length).toBeLessThan(20_000)
    expect(history.list().length).toBe(2)
    expect(() => JSON.stringify(history.list())).not.toThrow()
    await expectServes(rec)
  })
})

describe('api proxy: descriptions from the upstream', () => {
  it('a description with the token, ESC/C1/bidi controls and 200 kB of text: the record has none of them; the terminal line is sanitized too', async () => {
    const evil = `Bad Request: can't parse entities: \u001b[2J\u001b]0;owned\u0007 \u009b31m \u202egnp.exe\u202c \u2066x\u2069 ${TOKEN} ${SECRET} ${encodeURIComponent(TOKEN)} ${'y'.repeat(200_000)}`
    const upstream = await sink((r) => {
      r.req.on('end', () => {
        if (r.url.endsWith('/getMe')) return r.res.end('{"ok":true,"result":{}}')
        r.res.writeHead(400, {'content-type': 'application/json'})
        r.res.end(JSON.stringify({ok: false, error_code: 400, description: evil, parameters: {retry_after: 3}}))
      })
      r.req.resume()
    })
    const rec = await recordingProxy(upstream.url)
    const answer = await postJson(`${rec.proxy.url}/bot${TOKEN}/sendMessage`, {
      chat_id: 1,
      text: 'hi',
      parse_mode: '\u001b[31mHTML',
    })
    expect(answer.status).toBe(400)
    // The bot itself gets Telegram's answer untouched: the proxy records, it does not rewrite.
    expect(answer.json.description).toBe(evil)
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'sendMessage'), {what: 'the record'})
    expectClean(call)
    expect(call.description).toMatch(
      /^Bad Request: can't parse entities: \\u001b\[2J\\u001b\]0;owned\\u0007 \\u009b31m \\u202egnp\.exe/,
    )
    expect(call.description!.length).toBeLessThan(1100)
    expect(call.explanation).toMatch(/formatting/)
    expect(call.retryAfter).toBe(3)
    const line = callText(call)
    expect(line).not.toMatch(TERMINAL_CONTROL)
    expect(line).not.toContain(SECRET)
    await expectServes(rec)
  })
})

describe('api proxy: hostile request bodies', () => {
  const boundary = 'hostileBoundary'
  const part = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`

  async function sendMultipart(rec: Recorder, contentType: string, body: Buffer | string) {
    const res = await fetch(`${rec.proxy.url}/bot${TOKEN}/sendDocument`, {
      method: 'POST',
      headers: {'content-type': contentType},
      body: typeof body === 'string' ? body : new Uint8Array(body),
    })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
  }

  it('multipart with a missing, empty, overlong or wrong boundary: forwarded whole, recorded as unparsed', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const body = part('chat_id', '42') + `--${boundary}--\r\n`
    const types = [
      'multipart/form-data',
      'multipart/form-data; boundary=',
      `multipart/form-data; boundary=${'b'.repeat(5000)}`,
      'multipart/form-data; boundary=other',
      'multipart/form-data; boundary="unterminated',
    ]
    for (const type of types) await sendMultipart(rec, type, body + 'x'.repeat(70_000))
    await waitFor(() => rec.calls.length === types.length, {what: 'the records'})
    expect(upstream.requests.map((r) => r.bytes)).toEqual(types.map(() => Buffer.byteLength(body) + 70_000))
    for (const call of rec.calls) expect(call.params.chat_id).toBeUndefined()
    expectClean(rec.calls)
    await expectServes(rec)
  })

  it('multipart with 5000 parts: forwarded whole, the record keeps a bounded number of them', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    let body = ''
    for (let i = 0; i < 5000; i++) body += part(`f${i}`, `v${i}`)
    body += `--${boundary}--\r\n`
    await sendMultipart(rec, `multipart/form-data; boundary=${boundary}`, body)
    const call = await waitFor(() => rec.calls[0], {what: 'the record'})
    expect(upstream.requests[0].bytes).toBe(Buffer.byteLength(body))
    expect(Object.keys(call.params).length).toBeLessThanOrEqual(42)
    expect(JSON.stringify(call).length).toBeLessThan(10_000)
    await expectServes(rec)
  })

  it('multipart with a 1 MB field name and a 10 kB one: forwarded whole, names cut in the record', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const huge = part('n'.repeat(MiB), 'v') + `--${boundary}--\r\n`
    await sendMultipart(rec, `multipart/form-data; boundary=${boundary}`, huge)
    const long = part(`${TOKEN}${'k'.repeat(10_000)}`, 'v') + part('chat_id', '5') + `--${boundary}--\r\n`
    await sendMultipart(rec, `multipart/form-data; boundary=${boundary}`, long)
    await waitFor(() => rec.calls.length === 2, {what: 'the records'})
    expect(upstream.requests.map((r) => r.bytes)).toEqual([Buffer.byteLength(huge), Buffer.byteLength(long)])
    for (const call of rec.calls)
      for (const key of Object.keys(call.params)) expect(key.length).toBeLessThanOrEqual(201)
    expect(rec.calls[1].params.chat_id).toBe('5')
    expectClean(rec.calls)
    await expectServes(rec)
  })
})
