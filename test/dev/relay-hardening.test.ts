/**
 * The relay under anonymous or hostile traffic, over real sockets on loopback: bytes that used to
 * crash it, rejected requests that used to hold connections, slow clients, huge bodies, floods of
 * refusals, and bugs inside the handler.
 */
import http from 'node:http'
import net from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {
  refusedSummaryText,
  Relay,
  type RelayOptions,
  type RelayRefusedSummaryEvent,
  type RelayRejectedEvent,
  type RelayUpdateEvent,
} from '../../src/dev/relay/relay.js'
import {waitFor} from '../support/wait.js'
import {listenLoopback} from '../support/http.js'

const SECRET = 'S'.repeat(43) // the length bot dev's own secrets have
const PATH = '/webhook/hardening'

const opened: Array<{close(): Promise<void> | void}> = []
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close()
})

async function startBot(): Promise<{port: number; seen: string[]}> {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push(body)
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{"ok":true}')
    })
  })
  opened.push(await listenLoopback(server))
  return {port: (server.address() as AddressInfo).port, seen}
}

async function startRelay(options: Partial<RelayOptions> = {}) {
  const updates: RelayUpdateEvent[] = []
  const rejected: RelayRejectedEvent[] = []
  const summaries: RelayRefusedSummaryEvent[] = []
  const relay = new Relay({
    secret: SECRET,
    path: PATH,
    holdTimeoutMs: 10_000,
    onUpdate: (e) => updates.push(e),
    onRejected: (e) => rejected.push(e),
    onRefusedSummary: (e) => summaries.push(e),
    ...options,
  })
  await relay.listen()
  opened.push(relay)
  return {relay, updates, rejected, summaries}
}

const update = (id: number) =>
  JSON.stringify({update_id: id, message: {message_id: 1, date: 0, chat: {id: 5, type: 'private'}, text: 'hi'}})

async function post(port: number, body: string, secret = SECRET): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: 'POST',
    body,
    headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret},
  })
  await res.arrayBuffer()
  return res.status
}

/** A raw connection: what it receives, and whether the other side closed it. */
interface Raw {
  socket: net.Socket
  received(): string
  closed: boolean
}

async function raw(port: number, head: string | Buffer): Promise<Raw> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  const chunks: Buffer[] = []
  const conn: Raw = {socket, received: () => Buffer.concat(chunks).toString('latin1'), closed: false}
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.on('error', () => {})
  socket.on('close', () => (conn.closed = true))
  socket.write(head)
  opened.push({close: () => void socket.destroy()})
  return conn
}

function postHead(length: number | undefined, headers: Record<string, string> = {}, path = PATH): string {
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ]
  lines.push(length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`)
  return lines.join('\r\n') + '\r\n\r\n'
}

describe('relay: a secret header that is not ASCII', () => {
  it('answers 401 to a secret of the right length with a non-ASCII byte, and keeps serving', async () => {
    const bot = await startBot()
    const {relay} = await startRelay()
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    // \xe9 + 42 digits: 43 characters like the secret, 44 bytes in UTF-8 (timingSafeEqual used to throw).
    const body = update(1)
    const conn = await raw(
      relay.port,
      Buffer.from(postHead(body.length, {'X-Telegram-Bot-Api-Secret-Token': '\xe9' + '4'.repeat(42)}) + body, 'latin1'),
    )
    await waitFor(() => conn.closed, {what: 'the relay to answer and close'})
    expect(conn.received()).toMatch(/^HTTP\/1\.1 401 /)
    // Other bytes of every kind, and a header sent twice: refused, never forwarded.
    for (const value of ['\xff'.repeat(43), '\u0080'.repeat(43), 'S'.repeat(42) + '\xe9']) {
      const c = await raw(
        relay.port,
        Buffer.from(postHead(body.length, {'X-Telegram-Bot-Api-Secret-Token': value}) + body, 'latin1'),
      )
      await waitFor(() => c.closed, {what: 'the relay to answer and close'})
      expect(c.received()).toMatch(/^HTTP\/1\.1 401 /)
    }
    expect(await post(relay.port, body, 'x')).toBe(401)
    expect(bot.seen).toEqual([])
    // Still serving.
    expect(await post(relay.port, update(2))).toBe(200)
    expect(bot.seen).toEqual([update(2)])
  })

  it('a bug inside the handler answers 500, is reported as an event, and the relay keeps serving', async () => {
    const bot = await startBot()
    const {relay, updates} = await startRelay()
    // A target that throws when read stands for any bug on the forwarding path.
    relay.setTarget({
      get host(): string {
        throw new Error('simulated bug')
      },
      port: bot.port,
      path: '/hook',
    })
    expect(await post(relay.port, update(3))).toBe(500)
    await waitFor(() => updates.length === 1, {what: 'the error event'})
    expect(updates[0]).toMatchObject({status: 500, error: 'relay error: simulated bug'})
    expect(bot.seen).toEqual([])
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect(await post(relay.port, update(4))).toBe(200)
  })

  it('a listener that throws does not take the relay down', async () => {
    const bot = await startBot()
    const relay = new Relay({
      secret: SECRET,
      path: PATH,
      onUpdate: () => {
        throw new Error('listener bug')
      },
      onRejected: () => {
        throw new Error('listener bug')
      },
    })
    await relay.listen()
    opened.push(relay)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect(await post(relay.port, update(5))).toBe(200)
    expect(await post(relay.port, update(6), 'wrong')).toBe(401)
    expect(await post(relay.port, update(7))).toBe(200)
    expect(relay.stats).toMatchObject({relayed: 2, rejected: 1})
  })
})

describe('relay: rejected requests, slow clients, big bodies', () => {
  for (const [name, head, status] of [
    ['a wrong secret', postHead(100 * 1024 * 1024, {'X-Telegram-Bot-Api-Secret-Token': 'wrong'}), 401],
    ['a wrong path', postHead(100 * 1024 * 1024, {'X-Telegram-Bot-Api-Secret-Token': SECRET}, '/guess'), 404],
    ['another method', `PUT ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n`, 405],
    ['a declared body over the cap', postHead(100 * 1024 * 1024, {'X-Telegram-Bot-Api-Secret-Token': SECRET}), 413],
  ] as const) {
    it(`answers ${name} at once with Connection: close, without waiting for the body`, async () => {
      const {relay, rejected} = await startRelay()
      const conn = await raw(relay.port, head)
      // Nothing of the 100 MB body is sent: the answer must come, and the connection end, anyway.
      await waitFor(() => conn.closed, {what: 'the connection to be closed by the relay'})
      expect(conn.received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(conn.received()).toMatch(/\r\nConnection: close\r\n/i)
      expect(relay.stats.rejected).toBe(1)
      expect(rejected).toHaveLength(1)
      expect(relay.buffered.peak).toBe(0)
    })
  }

  it('cuts a body without Content-Length at the per-request cap (413) and closes', async () => {
    const {relay} = await startRelay({maxBodyBytes: 64 * 1024})
    const conn = await raw(relay.port, postHead(undefined, {'X-Telegram-Bot-Api-Secret-Token': SECRET}))
    const chunk = Buffer.alloc(16 * 1024, 'a')
    for (let i = 0; i < 8 && !conn.closed; i++)
      conn.socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`)
    await waitFor(() => conn.closed, {what: 'the relay to close the connection'})
    expect(conn.received()).toMatch(/^HTTP\/1\.1 413 /)
    expect(relay.buffered.peak).toBeLessThanOrEqual(80 * 1024)
    await waitFor(() => relay.buffered.now === 0, {what: 'the budget to be given back'})
  })

  it('bounds the bytes all bodies hold at once: beyond it, 503 with Retry-After (Telegram retries)', async () => {
    const bot = await startBot()
    const {relay, rejected} = await startRelay({maxBodyBytes: 1024 * 1024, maxBufferedBytes: 3 * 1024 * 1024})
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    // Five clients with the secret declare 1 MB each and send nothing yet: three fit, two do not.
    const conns: Raw[] = []
    for (let i = 0; i < 5; i++)
      conns.push(await raw(relay.port, postHead(1024 * 1024, {'X-Telegram-Bot-Api-Secret-Token': SECRET})))
    await waitFor(() => conns.filter((c) => c.closed).length === 2, {what: 'two clients to be turned away'})
    for (const c of conns.filter((c) => c.closed)) expect(c.received()).toMatch(/^HTTP\/1\.1 503 [^]*Retry-After: 1/i)
    expect(relay.buffered.now).toBe(3 * 1024 * 1024)
    expect(rejected.map((r) => r.reason)).toEqual(['busy', 'busy'])
    for (const c of conns) c.socket.destroy()
    await waitFor(() => relay.buffered.now === 0, {what: 'the budget to be given back when the clients leave'})
    expect(await post(relay.port, update(8))).toBe(200)
  })

  it('times out slow headers and slow bodies; a held request still waits for the bot', async () => {
    const bot = await startBot()
    const {relay, updates} = await startRelay({headersTimeoutMs: 300, bodyTimeoutMs: 600})
    const slowHead = await raw(relay.port, `POST ${PATH} HTTP/1.1\r\nHost: x\r\n`)
    const slowBody = await raw(
      relay.port,
      postHead(1000, {'X-Telegram-Bot-Api-Secret-Token': SECRET}) + '{"update_id":',
    )
    await waitFor(() => slowHead.closed && slowBody.closed, {what: 'both slow clients to be cut off'})
    expect(slowHead.received()).toMatch(/^HTTP\/1\.1 408 /)
    expect(slowBody.received()).toMatch(/^HTTP\/1\.1 408 /)
    expect(bot.seen).toEqual([])
    expect(relay.buffered.now).toBe(0)
    // A complete request held (no target yet) for longer than both timeouts is still answered. Longer, shown by an
    // event: a slow body sent after it was held is cut by the body timeout (the longer one) while it is still held.
    const held = post(relay.port, update(9))
    await waitFor(() => relay.held === 1, {what: 'the relay to hold the update'})
    const later = await raw(relay.port, postHead(1000, {'X-Telegram-Bot-Api-Secret-Token': SECRET}) + '{"update_id":')
    await waitFor(() => later.closed, {what: 'the later slow body to be cut off'})
    expect(later.received()).toMatch(/^HTTP\/1\.1 408 /)
    expect(relay.held).toBe(1)
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    expect(await held).toBe(200)
    expect(updates.at(-1)).toMatchObject({updateId: 9, status: 200})
    expect(updates.at(-1)!.heldMs).toBeGreaterThanOrEqual(600)
  })

  it('reports the first few refusals one by one, then a summary per window', async () => {
    // The window is long enough for each burst below to land inside one window on a loaded machine.
    const {relay, rejected, summaries} = await startRelay({refusalWindowMs: 3000})
    const statuses = await Promise.all(Array.from({length: 20}, (_, i) => post(relay.port, update(i), 'wrong')))
    expect(statuses.every((s) => s === 401)).toBe(true)
    expect(rejected).toHaveLength(5)
    await waitFor(() => summaries.length === 1, {what: 'the summary'})
    expect(summaries[0]).toMatchObject({count: 15, byReason: {secret: 15}})
    expect(summaries[0].text).toBe('15 requests refused in the last 3 s (15 wrong secret); none was forwarded')
    // The flood goes on: only summaries now.
    await Promise.all(Array.from({length: 3}, (_, i) => post(relay.port, update(i), 'wrong')))
    await waitFor(() => summaries.length === 2, {what: 'the second summary'})
    expect(rejected).toHaveLength(5)
    expect(summaries[1].count).toBe(3)
    expect(relay.stats.rejected).toBe(23)
  })

  it('words a one-minute summary as the issue asks', () => {
    expect(refusedSummaryText(120, 60_000, {secret: 118, path: 2})).toBe(
      '120 requests refused in the last minute (118 wrong secret, 2 unknown path); none was forwarded',
    )
  })

  it('a refused path is reported cut short; raw control bytes never reach the relay', async () => {
    const {relay, rejected} = await startRelay()
    const long = await raw(relay.port, `GET /${'a'.repeat(500)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    await waitFor(() => long.closed, {what: 'the answer'})
    expect(long.received()).toMatch(/^HTTP\/1\.1 404 /)
    expect(rejected).toHaveLength(1)
    expect(rejected[0].path).toHaveLength(80)
    expect(rejected[0].path.endsWith('…')).toBe(true)
    // Node's parser refuses C1 or ESC bytes in the request line (400) before the relay sees it.
    const c1 = await raw(relay.port, Buffer.from('GET /\x9b2J\x1b]0;x HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'))
    await waitFor(() => c1.closed, {what: 'the answer'})
    expect(c1.received()).toMatch(/^HTTP\/1\.1 400 /)
    expect(rejected).toHaveLength(1)
  })
})
