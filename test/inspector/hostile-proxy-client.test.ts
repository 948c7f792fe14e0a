/**
 * The api proxy against a hostile client, over raw sockets: malformed request lines and headers,
 * odd request targets (absolute-form, `*`, `..`, encoded tokens, `%2F`), huge headers, a body that
 * never ends, a client that resets in the middle of the answer. After each attack the proxy still
 * answers a normal call, nothing broken reached the upstream, and no record carries the token.
 */
import http from 'node:http'
import {describe, expect, it} from 'vitest'
import {recordingProxy, sink, type SinkRequest} from './api-proxy-helpers.js'
import {connectRaw, rawExchange, SECRET, statusOf, TERMINAL_CONTROL, TOKEN} from './hostile-helpers.js'
import type {Recorder} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

/** A normal getMe through the proxy answers and is recorded. */
async function expectServes(rec: Recorder): Promise<void> {
  const before = rec.calls.length
  const res = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ok: true})
  await waitFor(() => rec.calls.length > before && rec.calls.some((c) => c.method === 'getMe'), {
    what: 'the getMe record',
  })
}

/** Every variant of the token that must never be in a record. */
function expectNoToken(value: unknown): void {
  const text = JSON.stringify(value)
  for (const variant of [
    TOKEN,
    SECRET,
    encodeURIComponent(TOKEN),
    encodeURIComponent(TOKEN).toLowerCase(),
    TOKEN.replace(':', '%3a'),
  ]) {
    expect(text).not.toContain(variant)
  }
}

/** An upstream that answers getMe and holds every other request without an answer. */
function holdingSink() {
  return sink((r) => {
    if (!r.url.endsWith('/getMe')) return
    r.res.writeHead(200, {'content-type': 'application/json'})
    r.res.end('{"ok":true,"result":{}}')
  })
}

function get(url: string): Promise<{status: number; body: string}> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}))
      })
      .on('error', reject)
  })
}

describe('api proxy: malformed requests never reach the upstream', () => {
  const head = (line: string, headers = 'Host: 127.0.0.1\r\n') => `${line}\r\n${headers}\r\n`
  const cases: Array<[string, string]> = [
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, 'Host: 127.0.0.1\r\nBad Header Line\r\n')],
    ['a header name with a space', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, 'Host: 127.0.0.1\r\nX Y: z\r\n')],
    ['a NUL in a header value', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, 'Host: 127.0.0.1\r\nX-A: a\u0000b\r\n')],
    ['ESC in the request target', head(`GET /bot${TOKEN}/\u001b[2J HTTP/1.1`)],
    ['a space in the request target', head(`GET /bot${TOKEN}/get Me HTTP/1.1`)],
    ['an obs-fold header', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, 'Host: 127.0.0.1\r\nX-A: a\r\n  folded\r\n')],
    [
      'Content-Length and Transfer-Encoding together (smuggling)',
      head(
        `POST /bot${TOKEN}/sendMessage HTTP/1.1`,
        'Host: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n',
      ) + '0\r\n\r\n',
    ],
    [
      'two different Content-Lengths',
      head(`POST /bot${TOKEN}/sendMessage HTTP/1.1`, 'Host: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n') +
        '{}x',
    ],
    [
      'a negative Content-Length',
      head(`POST /bot${TOKEN}/sendMessage HTTP/1.1`, 'Host: 127.0.0.1\r\nContent-Length: -1\r\n'),
    ],
    [
      'a Content-Length that is not a number',
      head(`POST /bot${TOKEN}/sendMessage HTTP/1.1`, 'Host: 127.0.0.1\r\nContent-Length: 1e3\r\n'),
    ],
    [
      'an unknown Transfer-Encoding',
      head(`POST /bot${TOKEN}/sendMessage HTTP/1.1`, 'Host: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked, evil\r\n') +
        '0\r\n\r\n',
    ],
    ['HTTP/1.1 without a Host header', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, '')],
    [
      'a headers block of 100 kB',
      head(`GET /bot${TOKEN}/getMe HTTP/1.1`, `Host: 127.0.0.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n`),
    ],
    ['5000 small headers', head(`GET /bot${TOKEN}/getMe HTTP/1.1`, 'Host: 127.0.0.1\r\n' + 'X-A: b\r\n'.repeat(5000))],
    ['a request line of 100 kB', head(`GET /bot${TOKEN}/${'m'.repeat(100_000)} HTTP/1.1`)],
  ]
  for (const [name, request] of cases) {
    it(`${name}: refused with 4xx, nothing forwarded, still serving`, async () => {
      const upstream = await sink()
      const rec = await recordingProxy(upstream.url)
      const answer = await rawExchange(rec.proxy.port, request)
      const status = statusOf(answer)
      expect(status, answer.slice(0, 200)).toBeGreaterThanOrEqual(400)
      expect(status).toBeLessThan(500)
      expect(upstream.requests).toEqual([])
      expect(answer).not.toContain(SECRET)
      await expectServes(rec)
      expect(rec.calls.every((c) => c.method === 'getMe')).toBe(true)
    })
  }

  it('an invalid chunk size in the middle of a body: the exchange ends, the upstream request is cut, still serving', async () => {
    const upstream = await holdingSink()
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(
      `POST /bot${TOKEN}/sendDocument HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`,
    )
    const forwarded = await waitFor(() => upstream.requests[0], {what: 'the upstream request'})
    await conn.write('zz-not-hex\r\nmore\r\n')
    await conn.whenClosed()
    await waitFor(() => forwarded.aborted, {what: 'the upstream request to be cut'})
    expect(forwarded.complete).toBe(false)
    await expectServes(rec)
  })

  it('CONNECT (a tunnel) and Upgrade: websocket are not tunnelled anywhere', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const connect = await rawExchange(
      rec.proxy.port,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    )
    expect(connect).not.toMatch(/^HTTP\/1\.1 200/)
    expect(upstream.requests).toEqual([])
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(
      `GET /bot${TOKEN}/getMe HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    )
    await conn.whenReceived((t) => t.includes('\r\n\r\n') || conn.closed)
    expect(statusOf(conn.text())).not.toBe(101)
    for (const r of upstream.requests) {
      expect(r.headers.upgrade).toBeUndefined()
      expect(r.headers['sec-websocket-key']).toBeDefined() // an end-to-end header, passed on as any other
    }
    await expectServes(rec)
  })
})

describe('api proxy: request targets', () => {
  it('an absolute-form target (proxy-style, `GET http://other-host/…`) is refused with 400: the proxy is no open relay', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      `https://api.telegram.org/bot${TOKEN}/getMe`,
      '*',
      'example.com:80',
    ]) {
      const answer = await rawExchange(
        rec.proxy.port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nConnection: close\r\n\r\n`,
      )
      expect(statusOf(answer), `${target}: ${answer.slice(0, 200)}`).toBe(400)
      expect(answer).not.toContain(SECRET)
    }
    expect(upstream.requests).toEqual([])
    expect(rec.calls).toEqual([])
    await expectServes(rec)
  })

  it('`..` segments pass through to the api root exactly as sent (never resolved against anything local)', async () => {
    const upstream = await sink((r) => {
      if (r.url.endsWith('/getMe')) return r.req.on('end', () => r.res.end('{"ok":true,"result":{}}')).resume()
      r.res.writeHead(404, {'content-type': 'application/json'})
      r.res.end(JSON.stringify({ok: false, error_code: 404, description: 'Not Found'}))
    })
    const rec = await recordingProxy(`${upstream.url}/api`)
    const paths = [
      `/bot${TOKEN}/../../../../etc/passwd`,
      '/../package.json',
      `/file/bot${TOKEN}/../../x`,
      `/bot${TOKEN}/%2e%2e/%2e%2e/x`,
    ]
    for (const path of paths) {
      const answer = await rawExchange(
        rec.proxy.port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nConnection: close\r\n\r\n`,
      )
      expect(statusOf(answer)).toBe(404)
    }
    expect(upstream.requests.map((r) => r.url)).toEqual(paths.map((p) => `/api${p}`))
    expectNoToken(rec.calls)
    await expectServes(rec)
  })

  it('an encoded token, `%2F` in the method and the token in the query: forwarded as sent, no record carries any form of it', async () => {
    const echo = (r: SinkRequest) => {
      let decoded = r.url
      try {
        decoded = decodeURIComponent(r.url)
      } catch {}
      r.res.writeHead(400, {'content-type': 'application/json'})
      r.res.end(
        JSON.stringify({
          ok: false,
          error_code: 400,
          description: `Bad Request: no ${r.url} (${decoded}) ${SECRET.toUpperCase()}`,
        }),
      )
    }
    const upstream = await sink((r) =>
      r.req.on('end', () => (r.url === `/bot${TOKEN}/getMe` ? r.res.end('{"ok":true,"result":{}}') : echo(r))).resume(),
    )
    const rec = await recordingProxy(upstream.url)
    const lowerEncoded = TOKEN.replace(':', '%3a')
    const letterEncoded = TOKEN.replace('AAF', '%41AF')
    const paths = [
      `/bot${encodeURIComponent(TOKEN)}/sendMessage`,
      `/bot${lowerEncoded}/sendMessage`,
      `/bot${letterEncoded}/sendMessage`,
      `/bot${TOKEN}/send%2FMessage`,
      `/bot${TOKEN}%2FsendMessage`,
      `/bot${TOKEN}/${TOKEN}`,
      `/bot${TOKEN}/${encodeURIComponent(TOKEN)}`,
      `/bot${TOKEN}/getMe?token=${TOKEN}&${SECRET}=1&x=${encodeURIComponent(TOKEN)}`,
      `/bot${TOKEN}/test/getMe`,
    ]
    for (const path of paths) {
      const res = await get(`${rec.proxy.url}${path}`)
      expect(res.status).toBe(400)
    }
    expect(upstream.requests.map((r) => r.url)).toEqual(paths)
    await waitFor(() => rec.calls.length >= paths.length - 1, {what: 'the records'})
    expectNoToken(rec.calls)
    const methods = rec.calls.map((c) => c.method)
    expect(methods).toContain('send/Message')
    expect(methods.filter((m) => m === 'sendMessage').length).toBe(3)
    await expectServes(rec)
  })

  it('a method with terminal escapes and bidi controls is recorded with them escaped', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const method = encodeURIComponent('send\u001b[2J\u001b]0;owned\u0007\u009b31m\u202egnp.exe')
    const res = await get(`${rec.proxy.url}/bot${TOKEN}/${method}?text=${encodeURIComponent('hi\u001b[31m\u202e')}`)
    expect(res.status).toBe(200)
    const [call] = await waitFor(() => (rec.calls.length ? rec.calls : undefined), {what: 'the record'})
    expect(call.method).toMatch(/^send\\u001b\[2J/)
    expect(call.method).not.toMatch(TERMINAL_CONTROL)
    expect(JSON.stringify(call.params)).not.toMatch(TERMINAL_CONTROL)
    expect(String(call.params.text)).toBe('hi\\u001b[31m\\u202e')
    await expectServes(rec)
  })
})

describe('api proxy: clients that stall or leave', () => {
  it('a small body that never ends: nothing is forwarded, others are served meanwhile; when the client leaves no call is recorded', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(
      `POST /bot${TOKEN}/sendMessage HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"chat_id": 4`,
    )
    await expectServes(rec)
    expect(upstream.requests.map((r) => r.url)).toEqual([`/bot${TOKEN}/getMe`])
    conn.socket.destroy()
    await expectServes(rec)
    expect(rec.calls.map((c) => c.method)).toEqual(['getMe', 'getMe'])
  })

  it('a streamed body that never ends: the upstream request is cut when the client leaves, the call recorded as cancelled', async () => {
    const upstream = await holdingSink()
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(
      `POST /bot${TOKEN}/sendDocument HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
    )
    for (let i = 0; i < 20; i++) await conn.write(`400\r\n${'x'.repeat(0x400)}\r\n`)
    const forwarded = await waitFor(() => upstream.requests.find((r) => r.bytes >= 20 * 1024), {
      what: 'the streamed body upstream',
    })
    conn.socket.resetAndDestroy()
    await waitFor(() => forwarded.aborted, {what: 'the upstream request to be cut'})
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'sendDocument'), {what: 'the record'})
    expect(call.ok).toBe(false)
    expect(call.description).toMatch(/cancelled/)
    await expectServes(rec)
  })

  it('a client that resets in the middle of the answer: the upstream request is cut, the call recorded, still serving', async () => {
    let served = 0
    const upstream = await sink((r) => {
      if (r.url.endsWith('/getMe')) {
        r.res.writeHead(200, {'content-type': 'application/json'})
        r.res.end('{"ok":true,"result":{}}')
        return
      }
      served++
      r.res.writeHead(200, {'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024)})
      r.res.write('{"ok":true,"result":[' + ' '.repeat(64 * 1024))
    })
    const rec = await recordingProxy(upstream.url)
    const conn = await connectRaw(rec.proxy.port)
    await conn.write(`GET /bot${TOKEN}/getStickerSet?name=big HTTP/1.1\r\nHost: 127.0.0.1:${rec.proxy.port}\r\n\r\n`)
    await conn.whenReceived((t) => t.length > 32 * 1024)
    const forwarded = upstream.requests[0]
    let upstreamClosed = false
    forwarded.res.on('close', () => {
      upstreamClosed = true
    })
    conn.socket.resetAndDestroy()
    await waitFor(() => upstreamClosed, {what: 'the upstream answer to be cut'})
    const call = await waitFor(() => rec.calls.find((c) => c.method === 'getStickerSet'), {what: 'the record'})
    expect(call).toMatchObject({ok: false, description: 'cancelled: the bot closed the connection before the answer'})
    expect(served).toBe(1)
    await expectServes(rec)
  })
})
