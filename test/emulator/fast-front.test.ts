/**
 * The emulator's fast front (src/emulator/http/fast.ts), over real sockets: the plain Bot API calls it reads itself,
 * everything else handed to Node's HTTP server on the same connection, with the same bytes on the wire either way.
 */
import net from 'node:net'
import {describe, expect, it} from 'vitest'
import {readHead} from '../../src/emulator/http/fast.js'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {waitFor} from '../support/wait.js'
import {setup} from './helpers.js'

interface Response {
  /** The status line and the header lines, as written. */
  head: string
  status: number
  headers: Record<string, string>
  body: string
}

/** A raw client on one connection: write bytes, read the responses in the order they come. */
async function connect(apiRoot: string) {
  const {hostname, port} = new URL(apiRoot)
  const socket = net.connect(Number(port), hostname)
  socket.setNoDelay(true)
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let data = Buffer.alloc(0)
  let ended = false
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk])
  })
  socket.on('close', () => {
    ended = true
  })
  socket.on('error', () => undefined)
  /** The next complete response, taken off what was read. */
  const take = (): Response | undefined => {
    const end = data.indexOf('\r\n\r\n')
    if (end < 0) return undefined
    const head = data.toString('latin1', 0, end)
    const [statusLine, ...lines] = head.split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    if (data.length < end + 4 + length) return undefined
    const body = data.toString('utf8', end + 4, end + 4 + length)
    data = data.subarray(end + 4 + length)
    return {head, status: Number(statusLine.split(' ')[1]), headers, body}
  }
  return {
    socket,
    write: (bytes: string | Buffer): void => {
      socket.write(bytes)
    },
    /** The next `n` responses. */
    read: async (n: number, what = `${n} responses`): Promise<Response[]> => {
      const out: Response[] = []
      await waitFor(
        () => {
          for (let r = take(); r; r = take()) out.push(r)
          return out.length >= n
        },
        {what: () => `${what} (got ${out.length}, connection ${ended ? 'closed' : 'open'})`, interval: 5},
      )
      return out
    },
    /** Bytes read and not taken as a response. */
    rest: (): string => data.toString('latin1'),
    closed: (): boolean => ended,
  }
}

const hostOf = (apiRoot: string): string => new URL(apiRoot).host

/** A user who wrote to the bot (so it may send to them); `next` is the offset past that update. */
function knownUser(emu: BotApiEmulator, token: string): {id: number; next: number} {
  const update = emu.sendUserMessage(token, {text: 'hello'})
  return {id: (update.message as {chat: {id: number}}).chat.id, next: update.update_id + 1}
}

/** A POST with a JSON body, as bot clients send it. */
function post(host: string, path: string, params: unknown, extra = ''): string {
  const body = JSON.stringify(params)
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** The same call with a chunked body: Node's HTTP server reads it (the front reads only Content-Length bodies). */
function chunked(host: string, path: string, params: unknown): string {
  const body = JSON.stringify(params)
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`
}

/** A multipart sendMessage (Node's server and busboy read it). */
function multipart(host: string, path: string, fields: Record<string, string>): string {
  const boundary = 'xYzBoundary'
  const body =
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}--\r\n`
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

describe('which requests the front reads itself', () => {
  it('reads plain Bot API calls and leaves everything unusual to Node', () => {
    const plain = 'POST /bot1:a/sendMessage HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Type: application/json'
    expect(readHead(`${plain}\r\nContent-Length: 12`)).toMatchObject({
      target: '/bot1:a/sendMessage',
      host: '127.0.0.1:1',
      type: 'application/json',
      length: 12,
    })
    expect(readHead('GET /bot1:a/getMe?x=1 HTTP/1.1\r\nHost: h')).toMatchObject({
      target: '/bot1:a/getMe?x=1',
      length: 0,
    })
    for (const head of [
      `${plain}\r\nTransfer-Encoding: chunked`,
      `${plain}\r\nContent-Encoding: gzip\r\nContent-Length: 3`,
      `${plain}\r\nContent-Length: 3\r\nContent-Length: 3`,
      `${plain}\r\nContent-Length: ${(1 << 20) + 1}`,
      `${plain}\r\nExpect: 100-continue`,
      `${plain}\r\nConnection: close`,
      `${plain}\r\nUpgrade: websocket`,
      `${plain}\r\nX-Folded: a\r\n b`,
      'GET /bot1:a/getMe HTTP/1.1\r\nHost: h ',
      'POST /bot1:a/sendMessage HTTP/1.0\r\nHost: h',
      'PUT /bot1:a/sendMessage HTTP/1.1\r\nHost: h',
      'GET /_emulator/bots HTTP/1.1\r\nHost: h',
      'GET /file/bot1:a/x.jpg HTTP/1.1\r\nHost: h',
      'GET /bot1:a/getMe HTTP/1.1',
      'GET /bot1:a/getMe HTTP/1.1\r\nHost: h\r\nHost: h',
      'GET /bot1:a/get Me HTTP/1.1\r\nHost: h',
      'POST /bot1:a/x HTTP/1.1\r\nHost: h\r\nContent-Type: multipart/form-data; boundary=b',
    ])
      expect(readHead(head), head).toBeUndefined()
  })

  it('reads header names in any case and values without the blanks before them, byte by byte', () => {
    const line = 'POST /bot1:a/sendMessage HTTP/1.1'
    expect(
      readHead(
        `${line}\r\nHOST:h\r\ncontent-TYPE: \tApplication/JSON\r\nCONTENT-LENGTH: 00000012\r\nConnection: Keep-Alive\r\nX-Empty:`,
      ),
    ).toEqual({target: '/bot1:a/sendMessage', host: 'h', type: 'application/json', length: 12})
    expect(readHead(`GET /bot HTTP/1.1\r\nHost: h\r\nOrigin: http://o\r\nSec-Fetch-Site: none`)).toEqual({
      target: '/bot',
      host: 'h',
      origin: 'http://o',
      site: 'none',
      type: '',
      length: 0,
    })
    expect(readHead(`${line}\r\nHost: h\r\nContent-Length: ${1 << 20}`)?.length).toBe(1 << 20)
    for (const head of [
      `${line}\r\nHost: h\r\nContent-Length: 123456789`,
      `${line}\r\nHost: h\r\nContent-Length: +12`,
      `${line}\r\nHost: h\r\nContent-Length: 1 2`,
      `${line}\r\nHost: h\r\nContent-Length:`,
      `${line}\r\nHost: h\r\nConnection: keep-alive\r\nConnection: keep-alive`,
      `${line}\r\nHost: h\r\nConnection: keep-alive, Upgrade`,
      `${line}\r\nHost: h\r\nOrigin: a\r\norigin: a`,
      `${line}\r\nHost: h\r\nX: a\x01b`,
      `${line}\r\nHost: h\r\nX: caf\xe9`,
      `${line}\r\nHost: h\r\nBad Name: x`,
      `${line}\r\nHost: h\r\n: x`,
      `${line}\r\nHost: h\n`,
      `${line}\r\nHost: h\r`,
      `${line}\nHost: h`,
      'GET /bot1:a/"x" HTTP/1.1\r\nHost: h',
      'GET /bo HTTP/1.1\r\nHost: h',
      'get /bot1:a/getMe HTTP/1.1\r\nHost: h',
      'GET /bot1:a/getMe HTTP/1.1x\r\nHost: h',
      'GET /bot1:a/getMe\u0100 HTTP/1.1\r\nHost: h',
    ])
      expect(readHead(head), JSON.stringify(head)).toBeUndefined()
  })
})

describe('the fast front on real sockets', () => {
  it('answers pipelined requests in order, an answer that waits holding back those after it', async () => {
    const {emu, token} = await setup()
    const host = hostOf(emu.apiRoot)
    const c = await connect(emu.apiRoot)
    const me = knownUser(emu, token)
    // a long poll first, two sends behind it on the same connection, all in one write
    c.write(
      post(host, `/bot${token}/getUpdates`, {offset: me.next, timeout: 50}) +
        post(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: 'one'}) +
        post(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: 'two'}),
    )
    await waitFor(() => emu.sentMessages(token).length === 2, {what: 'both sends run'})
    expect(c.rest()).toBe('') // the sends are answered, but not written before the long poll's answer
    emu.sendUserMessage(token, {text: 'hi', userId: me.id})
    const [poll, one, two] = await c.read(3)
    expect(poll.status).toBe(200)
    expect(JSON.parse(poll.body).result[0].message.text).toBe('hi')
    expect(JSON.parse(one.body).result.text).toBe('one')
    expect(JSON.parse(two.body).result.text).toBe('two')
    c.socket.destroy()
  })

  it('answers thousands of pipelined requests in order to a client that reads nothing for a while', async () => {
    const {emu, token} = await setup()
    const host = hostOf(emu.apiRoot)
    const me = knownUser(emu, token)
    const c = await connect(emu.apiRoot)
    c.socket.pause() // the answers pile up: the server's write buffer fills, it stops reading until it drains
    const count = 4000
    const long = 'x'.repeat(4000) // ~4 KiB answers: 16 MiB in all, more than loopback's socket buffers hold
    let requests = ''
    for (let i = 0; i < count; i++)
      requests += post(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: `n${i} ${long}`})
    c.write(requests)
    // the server stops reading once its answers cannot be written: the sends stop short of the requests sent
    let last = -1
    const stalled = await waitFor(
      () => {
        const now = emu.sentMessages(token).length
        const still = now === last && now > 0
        last = now
        return still ? now : undefined
      },
      {what: 'the sends to stop while nothing is read', interval: 100},
    )
    expect(stalled).toBeLessThan(count)
    c.socket.resume()
    const answers = await c.read(count, `${count} answers`)
    expect(answers.map((a) => JSON.parse(a.body).result.text)).toEqual(
      Array.from({length: count}, (_, i) => `n${i} ${long}`),
    )
    c.socket.destroy()
  })

  it('reads a request that comes in many small TCP chunks', async () => {
    const {emu, token} = await setup()
    const c = await connect(emu.apiRoot)
    const request = Buffer.from(post(hostOf(emu.apiRoot), `/bot${token}/sendMessage`, {chat_id: 1, text: 'piecewise'}))
    for (let i = 0; i < request.length; i += 3) {
      c.write(request.subarray(i, i + 3))
      await new Promise((resolve) => setImmediate(resolve)) // let the server read each piece on its own
    }
    const [answer] = await c.read(1)
    expect(answer.status).toBe(400) // chat 1 is not a chat the bot knows: the call ran with the parameters read
    expect(JSON.parse(answer.body).description).toBe('Bad Request: chat not found')
    c.write(request.subarray(0, 40))
    await new Promise((resolve) => setImmediate(resolve))
    c.write(request.subarray(40))
    expect((await c.read(1))[0].body).toBe(answer.body)
    c.socket.destroy()
  })

  it('hands a connection that served fast requests to Node for multipart, chunked, control API and refused calls', async () => {
    const {emu, token} = await setup()
    const host = hostOf(emu.apiRoot)
    const me = knownUser(emu, token)
    const cases: Array<{name: string; request: string; check: (r: Response) => void}> = [
      {
        name: 'multipart',
        request: multipart(host, `/bot${token}/sendMessage`, {chat_id: String(me.id), text: 'multi'}),
        check: (r) => expect(JSON.parse(r.body).result.text).toBe('multi'),
      },
      {
        name: 'chunked',
        request: chunked(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: 'chunks'}),
        check: (r) => expect(JSON.parse(r.body).result.text).toBe('chunks'),
      },
      {
        name: 'control API',
        request: `GET /_emulator/bots/${token}/calls HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
        check: (r) => expect(JSON.parse(r.body).calls.length).toBeGreaterThan(0),
      },
      {
        name: 'refused Origin',
        request: post(host, `/bot${token}/getMe`, {}, 'Origin: http://evil.example\r\n'),
        check: (r) => {
          expect(r.status).toBe(403)
          expect(JSON.parse(r.body).description).toMatch(/^Forbidden: a request from a web page of another site/)
        },
      },
    ]
    for (const {name, request, check} of cases) {
      // separately: two fast calls, then the handed-over one, then a plain call (Node's from then on)
      const c = await connect(emu.apiRoot)
      c.write(post(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: 'fast 1'}))
      expect((await c.read(1, `${name}: first`))[0].status).toBe(200)
      c.write(post(host, `/bot${token}/getMe`, {}))
      expect((await c.read(1, `${name}: second`))[0].status).toBe(200)
      c.write(request)
      check((await c.read(1, `${name}: handed over`))[0])
      c.write(post(host, `/bot${token}/getMe`, {}))
      expect(JSON.parse((await c.read(1, `${name}: after`))[0].body).result.username).toBe('test_bot')
      c.socket.destroy()
      // pipelined: a fast call and the handed-over one in the same write, then one more
      const p = await connect(emu.apiRoot)
      p.write(
        post(host, `/bot${token}/sendMessage`, {chat_id: me.id, text: 'fast 2'}) +
          request +
          post(host, `/bot${token}/getMe`, {}),
      )
      const [fast, handed, after] = await p.read(3, `${name}: pipelined`)
      expect(JSON.parse(fast.body).result.text).toBe('fast 2')
      check(handed)
      expect(JSON.parse(after.body).result.username).toBe('test_bot')
      p.socket.destroy()
    }
  })

  it('aborts a long poll whose client goes away; the next getUpdates gets the update', async () => {
    const {emu, token} = await setup({timeScale: 1})
    const host = hostOf(emu.apiRoot)
    const c = await connect(emu.apiRoot)
    c.write(post(host, `/bot${token}/getMe`, {}))
    await c.read(1)
    c.write(post(host, `/bot${token}/getUpdates`, {timeout: 50}))
    await waitFor(() => emu.isLongPolling(token), {what: 'the long poll'})
    c.socket.destroy()
    await waitFor(() => !emu.isLongPolling(token), {what: 'the long poll to end with its connection'})
    const sent = emu.sendUserMessage(token, {text: 'after the abort'})
    const d = await connect(emu.apiRoot)
    d.write(post(host, `/bot${token}/getUpdates`, {timeout: 0}))
    const [answer] = await d.read(1)
    expect(JSON.parse(answer.body).result.map((u: {update_id: number}) => u.update_id)).toEqual([sent.update_id])
    // the aborted poll is not recorded (499), the getMe and the second poll are
    expect(emu.calls(token).map((call) => call.method)).toEqual(['getMe', 'getUpdates'])
    d.socket.destroy()
  })

  it('gives a head longer than its bound to Node: served up to 16 KiB, 431 past it', async () => {
    const {emu, token} = await setup()
    const host = hostOf(emu.apiRoot)
    const c = await connect(emu.apiRoot)
    c.write(post(host, `/bot${token}/getMe`, {}, `X-Pad: ${'a'.repeat(10_000)}\r\n`))
    const [served] = await c.read(1)
    expect(JSON.parse(served.body).result.username).toBe('test_bot')
    c.socket.destroy()
    const d = await connect(emu.apiRoot)
    d.write(post(host, `/bot${token}/getMe`, {}, `X-Pad: ${'a'.repeat(20_000)}\r\n`))
    const [refused] = await d.read(1)
    expect(refused.status).toBe(431)
    d.socket.destroy()
  })

  it('writes the same bytes as Node’s HTTP server: status line, headers in order, body', async () => {
    const {emu, token} = await setup()
    const host = hostOf(emu.apiRoot)
    emu.failNext(token, 'sendMessage', {errorCode: 429, description: 'Too Many Requests: retry after 7', retryAfter: 7})
    emu.failNext(token, 'sendMessage', {errorCode: 429, description: 'Too Many Requests: retry after 7', retryAfter: 7})
    const calls: Array<[string, unknown]> = [
      [`/bot${token}/getMe`, {}],
      ['/bot123:nope/getMe', {}],
      [`/bot${token}/nosuchMethod`, {}],
      [`/bot${token}/sendMessage`, {chat_id: 1, text: 'x'}],
    ]
    const normal = (r: Response): string => r.head.replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')
    for (const [path, params] of calls) {
      const fast = await connect(emu.apiRoot)
      fast.write(post(host, path, params))
      const [a] = await fast.read(1)
      const node = await connect(emu.apiRoot)
      node.write(chunked(host, path, params))
      const [b] = await node.read(1)
      expect(normal(a), path).toBe(normal(b))
      expect(a.body).toBe(b.body)
      expect(a.head).toMatch(/\r\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/)
      fast.socket.destroy()
      node.socket.destroy()
    }
  })

  it('answers 400 to a request cut off by the end of the connection, as Node does', async () => {
    const {emu, token} = await setup()
    const c = await connect(emu.apiRoot)
    c.write(post(hostOf(emu.apiRoot), `/bot${token}/getMe`, {}).slice(0, -1)) // one byte of the body missing
    c.socket.end()
    const [answer] = await c.read(1)
    expect(answer.head).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close')
    await waitFor(() => c.closed(), {what: 'the connection to close'})
  })
})
