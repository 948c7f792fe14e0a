/**
 * The relay under hostile connections (and its fuzz requirement), over real
 * sockets on loopback: connections that never authenticate are bounded and the longest idle go
 * first, a request being answered is never closed for room, and thousands of generated hostile
 * requests leave the relay serving, its body budget back at zero.
 */
import http from 'node:http'
import net from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {Relay, type RelayOptions} from '../../src/dev/relay/relay.js'
import {waitFor} from '../support/wait.js'
import {listenLoopback} from '../support/http.js'

const SECRET = 'hostile_secret_' + 'h'.repeat(28)
const PATH = '/webhook/hostile'

const opened: Array<{close(): Promise<void> | void}> = []
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close()
})

async function startBot(delayMs = 0) {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push(body)
      setTimeout(() => {
        res.writeHead(200, {'content-type': 'application/json'})
        res.end('{"ok":true}')
      }, delayMs)
    })
  })
  opened.push(await listenLoopback(server))
  return {port: (server.address() as AddressInfo).port, seen}
}

async function startRelay(options: Partial<RelayOptions> = {}) {
  const relay = new Relay({secret: SECRET, path: PATH, holdTimeoutMs: 5000, ...options})
  await relay.listen()
  opened.push(relay)
  return relay
}

interface Raw {
  socket: net.Socket
  closed: boolean
  data: string
}

async function connect(port: number, bytes?: string | Buffer): Promise<Raw> {
  const socket = net.connect(port, '127.0.0.1')
  const raw: Raw = {socket, closed: false, data: ''}
  socket.on('data', (d: Buffer) => (raw.data += d.toString('latin1')))
  socket.on('error', () => {})
  socket.on('close', () => (raw.closed = true))
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve)
    socket.once('close', resolve)
  })
  if (bytes !== undefined && !raw.closed) socket.write(bytes)
  opened.push({close: () => void socket.destroy()})
  return raw
}

const update = (id: number) =>
  JSON.stringify({update_id: id, message: {message_id: 1, date: 0, chat: {id: 5, type: 'private'}, text: 'hi'}})

function request(body: string, secret = SECRET): string {
  return `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: ${secret}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

async function legit(port: number, id: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: 'POST',
    body: update(id),
    headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET},
    signal: AbortSignal.timeout(10_000),
  })
  await res.arrayBuffer()
  return res.status
}

describe('relay: connections before authentication are bounded', () => {
  it('a flood of idle connections closes the longest idle first; a real update still gets through', async () => {
    const bot = await startBot()
    const relay = await startRelay({maxAnonymousConnections: 20})
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    // Ten kept-alive connections that each served an update (idle between requests, like Telegram's).
    const kept: Raw[] = []
    for (let i = 0; i < 10; i++) {
      const c = await connect(relay.port, request(update(i)))
      await waitFor(() => c.data.includes('{"ok":true}'), {what: `answer ${i}`})
      kept.push(c)
    }
    // Ten that send half a head and stop (a slow client).
    const slow: Raw[] = []
    for (let i = 0; i < 10; i++) slow.push(await connect(relay.port, `POST ${PATH} HTTP/1.1\r\nHost: x\r\n`))
    await waitFor(() => relay.connections.open === 20, {what: 'twenty connections'})
    // Then 200 that connect and say nothing.
    const flood: Raw[] = []
    for (let i = 0; i < 200; i++) flood.push(await connect(relay.port))
    await waitFor(() => relay.connections.open <= 20, {what: 'the relay to stay within its bound'})
    // The longest idle went first: the kept-alive ones (idle since their answer, before the flood
    // started), in the order they went idle; the flood's own oldest next; the slow heads last.
    await waitFor(() => kept.every((c) => c.closed), {what: 'the kept-alive connections to be closed'})
    expect(slow.every((c) => !c.closed)).toBe(true)
    expect(flood.slice(-10).every((c) => !c.closed)).toBe(true)
    expect(relay.connections.evicted).toBeGreaterThanOrEqual(200)
    // A real update on a new connection is served.
    expect(await legit(relay.port, 100)).toBe(200)
    expect(bot.seen.at(-1)).toBe(update(100))
  })

  it('never closes a connection whose request is being answered, even when only those are left', async () => {
    const bot = await startBot(300)
    const relay = await startRelay({maxAnonymousConnections: 5})
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    const busy: Raw[] = []
    for (let i = 0; i < 8; i++) {
      busy.push(await connect(relay.port, request(update(200 + i))))
      await waitFor(() => bot.seen.length === i + 1, {what: `the bot to get update ${200 + i}`})
    }
    // Now a flood: anonymous ones make room among themselves, the eight in flight stay.
    for (let i = 0; i < 50; i++) await connect(relay.port)
    await waitFor(() => busy.every((c) => c.data.includes('{"ok":true}')), {what: 'all eight answered'})
    expect(busy.every((c) => c.data.startsWith('HTTP/1.1 200 '))).toBe(true)
  })
})

describe('relay: thousands of hostile requests', () => {
  it('stays alive and serving after each batch, its budget back at zero, memory bounded', async () => {
    const bot = await startBot()
    const relay = await startRelay({
      maxBodyBytes: 64 * 1024,
      maxBufferedBytes: 1024 * 1024,
      headersTimeoutMs: 500,
      bodyTimeoutMs: 1000,
    })
    relay.setTarget({host: '127.0.0.1', port: bot.port, path: '/hook'})
    let seed = 20
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]
    const bytes = (n: number) => Buffer.from(Array.from({length: n}, () => Math.floor(random() * 256)))
    const deep = `{"update_id":1,"message":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    const methods = ['POST', 'GET', 'PUT', 'DELETE', 'CONNECT', 'PO ST', 'post', '\x00', 'X'.repeat(300)]
    const paths = [
      PATH,
      '/',
      '/x',
      `${PATH}?q=1`,
      `${PATH}/../x`,
      '*',
      'http://evil.example/x',
      `/${'a'.repeat(9000)}`,
      '/\x1b[2J',
    ]
    const headers = [
      `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`,
      'X-Telegram-Bot-Api-Secret-Token: wrong',
      `X-Telegram-Bot-Api-Secret-Token: ${SECRET}\r\nX-Telegram-Bot-Api-Secret-Token: ${SECRET}`,
      'Content-Length: 99999999999',
      'Content-Length: -1',
      'Content-Length: 10',
      'Content-Length: 10\r\nContent-Length: 11',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: chunked\r\nContent-Length: 5',
      'Transfer-Encoding: gzip',
      'Content-Encoding: gzip',
      'Expect: 100-continue',
      'Expect: nonsense',
      'Connection: close',
      'Connection: upgrade\r\nUpgrade: websocket',
      'Origin: https://evil.example',
      'Host: rebind.attacker.example:80',
      `X-Long: ${'v'.repeat(20_000)}`,
      ' folded: value',
      'Bad Header: x',
      'X-Ctl: \x7f\x01',
      'X-Latin: \xe9\xff',
    ]
    const bodies = [
      '',
      update(1),
      deep,
      '{"update_id":1e308,"zzz":{}}',
      'not json',
      '5\r\n12345\r\n0\r\n\r\n',
      'zz\r\nxx\r\n',
      'ffffffffff\r\n',
      '0\r\n' + 'X-T: a\r\n'.repeat(2000) + '\r\n',
    ]
    const hostile = (): Buffer => {
      const r = random()
      if (r < 0.15) return bytes(1 + Math.floor(random() * 2000))
      const lines = [`${pick(methods)} ${pick(paths)} ${pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'HTTP/1.1 x', ''])}`]
      if (random() < 0.9) lines.push('Host: x')
      for (let i = Math.floor(random() * 4); i > 0; i--) lines.push(pick(headers))
      const head = lines.join(pick(['\r\n', '\r\n', '\r\n', '\n'])) + '\r\n\r\n'
      const body = pick(bodies)
      return Buffer.concat([
        Buffer.from(head, 'latin1'),
        Buffer.from(body, 'latin1'),
        random() < 0.2 ? bytes(50) : Buffer.alloc(0),
      ])
    }
    const N = 2000
    const BATCH = 25
    let peakRss = process.memoryUsage().rss
    const all: Raw[] = []
    for (let i = 0; i < N; i += BATCH) {
      const batch = await Promise.all(
        Array.from({length: BATCH}, async () => {
          const c = await connect(relay.port)
          const payload = hostile()
          // Sent whole or in pieces, then left open or cut.
          if (random() < 0.5) c.socket.write(payload)
          else for (let at = 0; at < payload.length; at += 97) c.socket.write(payload.subarray(at, at + 97))
          return c
        }),
      )
      // After each batch: the relay answers a legitimate update, then the batch is let go.
      expect(await legit(relay.port, 10_000 + i)).toBe(200)
      all.push(...batch)
      for (const c of batch) if (random() < 0.5) c.socket.destroy()
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    }
    // Every connection the clients kept open is answered and closed by the relay's deadlines.
    await waitFor(() => all.every((c) => c.closed), {what: 'every hostile connection to be closed', timeout: 20_000})
    expect(relay.buffered.now).toBe(0)
    expect(relay.buffered.peak).toBeLessThanOrEqual(1024 * 1024)
    const answered = all.filter((c) => c.data.startsWith('HTTP/1.1 ')).length
    expect(answered).toBeGreaterThan(N / 4)
    expect(await legit(relay.port, 99_999)).toBe(200)
    console.log(
      `relay fuzz: ${N} hostile requests, ${answered} answered before the client left, peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MB, ${relay.stats.rejected} refusals reported, body bytes held at most ${relay.buffered.peak}`,
    )
  }, 120_000)
})
