/**
 * The relay speaks HTTP/1.1 itself (src/dev/relay/server.ts, request-head.ts, upstream.ts): the
 * subset Telegram, tunnels and bots send, over real sockets on loopback, byte for byte. Framing
 * (Content-Length in pieces, chunked with extensions and trailers), keep-alive, pipelining,
 * Connection: close, HTTP/1.0, Expect: 100-continue; what a strict server must refuse; and the bot's
 * side: chunked, close-delimited, 1xx, 204 answers, Keep-Alive hints, and bots that misbehave.
 */
import http from 'node:http'
import net from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {Relay, type RelayOptions, type RelayUpdateEvent} from '../../src/dev/relay/relay.js'
import {waitFor} from '../support/wait.js'
import {listenLoopback} from '../support/http.js'

const SECRET = 'http_subset_secret'
const PATH = '/webhook/http'

const opened: Array<{close(): Promise<void> | void}> = []
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close()
})

/** A bot that records each body it gets and answers `{"got":<update_id>}` (or what `answer` says). */
async function startBot(answer?: (body: string, res: http.ServerResponse) => void) {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('latin1')
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push(body)
      if (answer) return answer(body, res)
      const id = /"update_id":(\d+)/.exec(body)?.[1] ?? '?'
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(`{"got":${id}}`)
    })
  })
  opened.push(await listenLoopback(server))
  return {port: (server.address() as AddressInfo).port, seen}
}

/** A bot that answers each request with these raw bytes (one connection at a time is enough here). */
async function rawBot(reply: (request: string) => string | Buffer | undefined) {
  const seen: string[] = []
  const sockets = new Set<net.Socket>()
  const counts = {accepted: 0}
  const server = net.createServer((socket) => {
    counts.accepted++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let got = ''
    socket.on('data', (d) => {
      got += d.toString('latin1')
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) return
      const length = Number(/content-length: (\d+)/i.exec(got)?.[1] ?? 0)
      if (got.length < end + 4 + length) return
      const request = got.slice(0, end + 4 + length)
      got = got.slice(end + 4 + length)
      seen.push(request)
      const out = reply(request)
      if (out !== undefined) socket.write(out)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  opened.push({
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  })
  return {port: (server.address() as AddressInfo).port, seen, sockets, counts}
}

async function startRelay(options: Partial<RelayOptions> = {}) {
  const updates: RelayUpdateEvent[] = []
  const relay = new Relay({
    secret: SECRET,
    path: PATH,
    holdTimeoutMs: 2000,
    onUpdate: (e) => updates.push(e),
    ...options,
  })
  await relay.listen()
  opened.push(relay)
  return {relay, updates}
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** A raw client: write bytes, read answers off the connection as they come. */
async function client(port: number) {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let data = ''
  let closed = false
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')))
  socket.on('error', () => {})
  socket.on('close', () => (closed = true))
  opened.push({close: () => void socket.destroy()})
  /** Complete answers received so far (parsed from the start each time). */
  const answers = (): Answer[] => {
    const out: Answer[] = []
    let rest = data
    for (;;) {
      const end = rest.indexOf('\r\n\r\n')
      if (end < 0) return out
      const [line, ...fields] = rest.slice(0, end).split('\r\n')
      const headers: Record<string, string> = {}
      for (const f of fields) headers[f.slice(0, f.indexOf(':')).toLowerCase()] = f.slice(f.indexOf(':') + 1).trim()
      const status = Number(line.split(' ')[1])
      const length = status < 200 ? 0 : Number(headers['content-length'] ?? 0)
      if (rest.length < end + 4 + length) return out
      out.push({status, headers, body: rest.slice(end + 4, end + 4 + length)})
      rest = rest.slice(end + 4 + length)
    }
  }
  return {
    socket,
    write: (bytes: string | Buffer) => socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes),
    answers,
    closed: () => closed,
    raw: () => data,
  }
}

const update = (id: number, text = 'hi') =>
  JSON.stringify({update_id: id, message: {message_id: 1, date: 0, chat: {id: 5, type: 'private'}, text}})

function request(body: string, headers: string[] = [], path = PATH): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
    '',
    body,
  ].join('\r\n')
}

describe('relay HTTP/1.1: framing, keep-alive, pipelining', () => {
  it('serves several requests on one kept-alive connection', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    for (const id of [1, 2, 3]) {
      c.write(request(update(id)))
      await waitFor(() => c.answers().length === id, {what: `answer ${id}`})
    }
    expect(c.answers().map((a) => [a.status, a.body])).toEqual([
      [200, '{"got":1}'],
      [200, '{"got":2}'],
      [200, '{"got":3}'],
    ])
    expect(c.answers()[0].headers['content-type']).toBe('application/json')
    expect(c.closed()).toBe(false)
    expect(relay.connections.open).toBe(1)
  })

  it('reads a head and a body that arrive a byte at a time', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    const bytes = Buffer.from(request(update(7, 'pièce à pièce ✓')), 'utf8')
    for (const byte of bytes) {
      c.write(Buffer.from([byte]))
      await new Promise((r) => setImmediate(r))
    }
    await waitFor(() => c.answers().length === 1, {what: 'the answer'})
    expect(bot.seen).toEqual([update(7, 'pièce à pièce ✓')].map((s) => Buffer.from(s).toString('latin1')))
    expect(c.answers()[0].body).toBe('{"got":7}')
  })

  it('decodes a chunked body (extensions, a trailer, chunks split anywhere) and forwards the bytes with a length', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const body = update(8, 'chunked')
    const head = [
      `POST ${PATH} HTTP/1.1`,
      'Host: x',
      `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`,
      'Transfer-Encoding: chunked',
      '',
      '',
    ].join('\r\n')
    const chunks = `5;name=value\r\n${body.slice(0, 5)}\r\n${(body.length - 5).toString(16).toUpperCase()}\r\n${body.slice(5)}\r\n0\r\nX-Trailer: ignored\r\n\r\n`
    const c = await client(relay.port)
    const all = head + chunks
    for (let i = 0; i < all.length; i += 7) {
      c.write(all.slice(i, i + 7))
      await new Promise((r) => setImmediate(r))
    }
    await waitFor(() => c.answers().length === 1, {what: 'the answer'})
    expect(c.answers()[0]).toMatchObject({status: 200, body: '{"got":8}'})
    expect(bot.seen).toEqual([body])
  })

  it('answers pipelined requests in order, one at a time', async () => {
    let inFlight = 0
    let most = 0
    const bot = await startBot((body, res) => {
      inFlight++
      most = Math.max(most, inFlight)
      const id = /"update_id":(\d+)/.exec(body)![1]
      setTimeout(
        () => {
          inFlight--
          res.writeHead(200, {'content-type': 'application/json'})
          res.end(`{"got":${id}}`)
        },
        id === '21' ? 50 : 1,
      )
    })
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(21)) + request(update(22)) + request(update(23)))
    await waitFor(() => c.answers().length === 3, {what: 'three answers'})
    expect(c.answers().map((a) => a.body)).toEqual(['{"got":21}', '{"got":22}', '{"got":23}'])
    expect(most).toBe(1)
  })

  it('closes after the answer when the client says Connection: close, and after an HTTP/1.0 request', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(30), ['Connection: close']))
    await waitFor(() => c.closed(), {what: 'the relay to close'})
    expect(c.answers()).toHaveLength(1)
    expect(c.answers()[0].headers.connection).toBe('close')

    const old = await client(relay.port)
    old.write(request(update(31)).replace('HTTP/1.1', 'HTTP/1.0'))
    await waitFor(() => old.closed(), {what: 'the relay to close'})
    expect(old.answers()[0]).toMatchObject({status: 200, body: '{"got":31}'})

    const kept = await client(relay.port)
    kept.write(request(update(32), ['Connection: keep-alive']).replace('HTTP/1.1', 'HTTP/1.0'))
    await waitFor(() => kept.answers().length === 1, {what: 'the answer'})
    expect(kept.answers()[0].headers.connection).toBe('keep-alive')
    kept.write(request(update(33), ['Connection: keep-alive']).replace('HTTP/1.1', 'HTTP/1.0'))
    await waitFor(() => kept.answers().length === 2, {what: 'the second answer'})
    expect(kept.closed()).toBe(false)
  })

  it('answers Expect: 100-continue before the body, and only for a request it accepts', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const body = update(40)
    const c = await client(relay.port)
    const [head] = request(body, ['Expect: 100-continue']).split('\r\n\r\n')
    c.write(head + '\r\n\r\n')
    await waitFor(() => c.raw().startsWith('HTTP/1.1 100 Continue\r\n\r\n'), {what: '100 Continue'})
    c.write(body)
    await waitFor(() => c.answers().length === 2, {what: 'the final answer'})
    expect(c.answers()[1]).toMatchObject({status: 200, body: '{"got":40}'})

    const wrong = await client(relay.port)
    wrong.write(head.replace(SECRET, 'wrong') + '\r\n\r\n')
    await waitFor(() => wrong.closed(), {what: 'the refusal'})
    expect(wrong.raw()).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('a secret header sent twice is refused, even when both copies are right', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(41), [`X-Telegram-Bot-Api-Secret-Token: ${SECRET}`]))
    await waitFor(() => c.closed(), {what: 'the refusal'})
    expect(c.raw()).toMatch(/^HTTP\/1\.1 401 /)
    expect(bot.seen).toEqual([])
  })
})

describe('relay HTTP/1.1: what a strict server refuses (nothing forwarded, the connection closed)', () => {
  const body = update(50)
  const base = (lines: string[]) => lines.join('\r\n') + '\r\n\r\n'
  const secret = `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`
  for (const [name, bytes, status] of [
    [
      'a bare LF ending a header line',
      `POST ${PATH} HTTP/1.1\r\nHost: x\n${secret}\r\nContent-Length: 2\r\n\r\n{}`,
      400,
    ],
    [
      'obs-fold (a line starting with a space)',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, ' folded', 'Content-Length: 2']) + '{}',
      400,
    ],
    [
      'whitespace before a colon',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', `${secret}`, 'Content-Length : 2']) + '{}',
      400,
    ],
    [
      'Content-Length and Transfer-Encoding together',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Content-Length: 2', 'Transfer-Encoding: chunked']) +
        '0\r\n\r\n',
      400,
    ],
    [
      'two different Content-Lengths',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Content-Length: 2', 'Content-Length: 3']) + '{}',
      400,
    ],
    [
      'a Content-Length that is not a number',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Content-Length: 0x10']),
      400,
    ],
    [
      'a transfer coding other than chunked',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Transfer-Encoding: gzip, chunked']),
      501,
    ],
    [
      'chunked that is not the last coding',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Transfer-Encoding: chunked, gzip']),
      400,
    ],
    ['no Host on HTTP/1.1', base([`POST ${PATH} HTTP/1.1`, secret, 'Content-Length: 2']) + '{}', 400],
    ['two Hosts', base([`POST ${PATH} HTTP/1.1`, 'Host: a', 'Host: b', secret, 'Content-Length: 2']) + '{}', 400],
    [
      'an HTTP version it does not speak',
      base([`POST ${PATH} HTTP/2.0`, 'Host: x', secret, 'Content-Length: 2']) + '{}',
      505,
    ],
    ['a request line that is not one', base([`POST ${PATH} HTTP/1.1 `, 'Host: x']), 400],
    ['a method Node does not know', base([`FETCH ${PATH} HTTP/1.1`, 'Host: x']), 400],
    [
      'Content-Length twice, even the same',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Content-Length: 2', 'Content-Length: 2']) + '{}',
      400,
    ],
    [
      'a control byte in a header value',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x\x01', secret, 'Content-Length: 2']) + '{}',
      400,
    ],
    [
      'an Expect it cannot meet',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Expect: 200-ok', 'Content-Length: 2']) + '{}',
      417,
    ],
    ['a head over 16 KiB', base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, `X-Big: ${'a'.repeat(17 * 1024)}`]), 431],
    [
      'a broken chunk size',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n0\r\n\r\n',
      400,
    ],
    [
      'a chunk without its CRLF',
      base([`POST ${PATH} HTTP/1.1`, 'Host: x', secret, 'Transfer-Encoding: chunked']) + '2\r\n{}XX0\r\n\r\n',
      400,
    ],
  ] as const) {
    it(`${name}: ${status}`, async () => {
      const bot = await startBot()
      const {relay} = await startRelay()
      relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
      const c = await client(relay.port)
      c.write(bytes)
      await waitFor(() => c.closed(), {what: 'the relay to answer and close'})
      expect(c.raw()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [^]*\\r\\nconnection: close\\r\\n`))
      expect(bot.seen).toEqual([])
      // Still serving.
      const next = await client(relay.port)
      next.write(request(body))
      await waitFor(() => next.answers().length === 1, {what: 'a good request after it'})
      expect(next.answers()[0].status).toBe(200)
    })
  }

  it('cuts a head dribbled in below the headers deadline but never finished (slowloris): 408', async () => {
    const {relay} = await startRelay({headersTimeoutMs: 300})
    const c = await client(relay.port)
    c.write(`POST ${PATH} HTTP/1.1\r\n`)
    const drip = setInterval(() => c.write('X-A: b\r\n'), 50)
    try {
      await waitFor(() => c.closed(), {what: 'the relay to cut the slow head', timeout: 5000})
    } finally {
      clearInterval(drip)
    }
    expect(c.raw()).toMatch(/^HTTP\/1\.1 408 /)
  })
})

describe('relay HTTP/1.1: the bot side', () => {
  const answered = async (reply: (request: string) => string | Buffer | undefined, id = 60) => {
    const bot = await rawBot(reply)
    const {relay, updates} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(id)))
    await waitFor(() => c.answers().length === 1, {what: 'the answer'})
    await waitFor(() => updates.length === 1, {what: 'the update line'})
    return {answer: c.answers()[0], bot, relay, updates, c}
  }

  it('sends the update with the secret, the content type, the length and the bot path', async () => {
    const {bot} = await answered(() => 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')
    const [head, body] = bot.seen[0].split('\r\n\r\n')
    expect(head.split('\r\n')[0]).toBe('POST /hook HTTP/1.1')
    expect(head).toContain(`\r\nx-telegram-bot-api-secret-token: ${SECRET}`)
    expect(head).toContain('\r\ncontent-type: application/json')
    expect(head).toContain(`\r\ncontent-length: ${update(60).length}`)
    expect(head).toMatch(/\r\nhost: 127\.0\.0\.1:\d+/)
    expect(body).toBe(update(60))
  })

  it('reads a chunked answer', async () => {
    const reply = '{"method":"sendMessage","chat_id":5,"text":"x"}'
    const {answer} = await answered(
      () =>
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n${reply.slice(0, 4)}\r\n${(reply.length - 4).toString(16)}\r\n${reply.slice(4)}\r\n0\r\n\r\n`,
    )
    expect(answer).toMatchObject({status: 200, body: reply})
    expect(answer.headers['content-type']).toBe('application/json')
  })

  it('skips an interim 100 and reads an answer that ends with the connection (no length)', async () => {
    const bot = await rawBot(() => undefined)
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(61)))
    await waitFor(() => bot.sockets.size === 1 && bot.seen.length === 1, {what: 'the bot to get it'})
    const [socket] = bot.sockets
    socket.write('HTTP/1.1 100 Continue\r\n\r\n')
    socket.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nthe body, then the close')
    await waitFor(() => c.answers().length === 1, {what: 'the answer'})
    expect(c.answers()[0]).toMatchObject({status: 200, body: 'the body, then the close'})
    expect(c.answers()[0].headers['content-type']).toBe('text/plain')
  })

  it('passes a 204 on without a body and keeps serving on the next connection', async () => {
    const {answer, c} = await answered(() => 'HTTP/1.1 204 No Content\r\n\r\n')
    expect(answer.status).toBe(204)
    c.write(request(update(62)))
    await waitFor(() => c.raw().split('HTTP/1.1 204').length === 3, {what: 'the second answer'})
  })

  it('reuses the connection to the bot, and opens a new one after `Connection: close`', async () => {
    let n = 0
    const bot = await rawBot(() =>
      ++n === 2
        ? 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'
        : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    )
    const accepted: number[] = []
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    for (const id of [70, 71, 72]) {
      c.write(request(update(id)))
      await waitFor(() => c.answers().length === id - 69, {what: `answer ${id}`})
      accepted.push(bot.counts.accepted)
    }
    expect(c.answers().map((a) => a.body)).toEqual(['ok', 'ok', 'ok'])
    expect(accepted).toEqual([1, 1, 2]) // the second answer's close ended it; the third opened a new one
  })

  for (const [name, reply, error] of [
    ['garbage instead of HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', /not HTTP\/1\.1/],
    ['a header with a control byte', 'HTTP/1.1 200 OK\r\nX-A: \x01\r\nContent-Length: 0\r\n\r\n', /malformed header/],
    [
      'two different lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      /invalid Content-Length/,
    ],
    [
      'a coding it cannot pass on',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n',
      /Transfer-Encoding other than chunked/,
    ],
    ['a broken chunked body', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n', /broken chunked body/],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', /switched protocols/],
  ] as const) {
    it(`a bot that answers ${name}: 503 with the reason, and the relay goes on`, async () => {
      const {answer, updates} = await answered(() => reply)
      expect(answer.status).toBe(503)
      expect(answer.headers['retry-after']).toBe('1')
      expect(updates[0].error).toMatch(error)
    })
  }

  it('a bot answer larger than the bound is an error, not a process that grows', async () => {
    const {MAX_ANSWER_BYTES} = await import('../../src/dev/relay/upstream.js')
    const bot = await rawBot(() => undefined)
    const {relay, updates} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const c = await client(relay.port)
    c.write(request(update(80)))
    await waitFor(() => bot.sockets.size === 1 && bot.seen.length === 1, {what: 'the bot to get it'})
    const [socket] = bot.sockets
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_ANSWER_BYTES + 1}\r\n\r\n`)
    await waitFor(() => c.answers().length === 1, {what: 'the answer'})
    expect(c.answers()[0].status).toBe(503)
    await waitFor(() => updates.length === 1, {what: 'the line'})
    expect(updates[0].error).toMatch(/larger than 16 MB/)
  })
})
