/**
 * The relay against many hostile clients at once, for real: slow clients through the real
 * localtunnel client and the loopback localtunnel server (10 tunnel sockets, like localtunnel's
 * server), and 40 clients sending 100 MB bodies to a relay running in its own process, whose
 * memory is read from /proc. Needs `npm run build` (the relay process runs dist/).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import net from 'node:net'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {pathToFileURL} from 'node:url'

import {afterEach, describe, expect, it} from 'vitest'

import {Relay} from '../../src/dev/relay/relay.js'
import {localtunnelProvider} from '../../src/tunnel/index.js'
import {PROJECT_ROOT} from '../support/paths.js'
import {startLocaltunnelServer} from '../support/lt-server.js'
import {waitFor} from '../support/wait.js'
import {listenLoopback} from '../support/http.js'

const SECRET = 'load_test_secret_' + 'x'.repeat(26)
const PATH = '/webhook/load'

const opened: Array<{close(): Promise<void> | void}> = []
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close()
})

interface Client {
  socket: net.Socket
  closed: boolean
  received(): string
}

function connect(host: string, port: number, head: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host)
    const chunks: Buffer[] = []
    const client: Client = {socket, closed: false, received: () => Buffer.concat(chunks).toString('latin1')}
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', () => (client.closed = true))
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.off('error', reject)
      socket.on('error', () => {})
      socket.write(head)
      opened.push({close: () => void socket.destroy()})
      resolve(client)
    })
  })
}

const head = (headers: string[]) =>
  [`POST ${PATH} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', ...headers].join('\r\n') + '\r\n\r\n'

describe('relay: slow clients through a tunnel with 10 sockets', () => {
  it('24 slow clients (a wrong secret, or the secret and a body that never ends) do not hold up a real update', async () => {
    const relay = new Relay({secret: SECRET, path: PATH, bodyTimeoutMs: 1500, headersTimeoutMs: 1500})
    await relay.listen()
    opened.push(relay)
    const {createServer} = await import('node:http')
    const bot = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('{}'))
    })
    opened.push(await listenLoopback(bot))
    relay.setTarget({host: '127.0.0.1', port: (bot.address() as net.AddressInfo).port, path: '/hook'})

    const lt = await startLocaltunnelServer()
    opened.push(lt)
    const tunnel = await localtunnelProvider({host: lt.url}).open({port: relay.port, timeoutMs: 10_000})
    opened.push(tunnel)
    await lt.waitFor((s) => s.tunnels[0]?.sockets === 10)
    const {hostname, port} = new URL(tunnel.url)

    // Each sends its headers and the start of a 1 MB body, then nothing more: 12 with a wrong
    // secret, 12 with the right one. Every tunnel socket is taken and requests queue at the server.
    const slow: Client[] = []
    for (let i = 0; i < 24; i++) {
      const secret = i < 12 ? 'X-Telegram-Bot-Api-Secret-Token: wrong' : `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`
      slow.push(await connect(hostname, Number(port), head([secret, 'Content-Length: 1000000']) + '{"update_id":1,'))
    }
    await lt.waitFor((s) => s.tunnels[0].waiting > 0)

    const body = JSON.stringify({
      update_id: 99,
      message: {message_id: 1, date: 0, chat: {id: 1, type: 'private'}, text: 'real'},
    })
    const res = await fetch(`${tunnel.url}${PATH}`, {
      method: 'POST',
      body,
      headers: {'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET},
    })
    // Answered by the bot through the relay: held up behind the slow clients (which never end by themselves; only the
    // relay's 1.5 s limits cut them), it would get the tunnel server's 504 after its 60 s instead. No stopwatch.
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    expect(relay.stats.relayed).toBe(1)
    await waitFor(() => slow.every((c) => c.closed || /^HTTP\/1\.1 (401|408) /.test(c.received())), {
      what: 'every slow client to be answered',
      timeout: 15_000,
    })
  })
})

/** Peak and current resident memory of a process, in MB (Linux). */
function memoryMb(pid: number): {peak: number; now: number} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return {peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024}
}

describe('relay: 40 clients sending 100 MB bodies with the secret', () => {
  const dist = join(PROJECT_ROOT, 'dist', 'dev', 'relay', 'relay.js')
  it.skipIf(process.platform !== 'linux' || !existsSync(dist))(
    'keep the relay process within a memory bound; every client is turned away',
    async () => {
      // A relay in its own process with no bot yet: a completed body would be held, the worst case.
      const code = `
      const {Relay} = await import(${JSON.stringify(pathToFileURL(dist).href)})
      const relay = new Relay({secret: ${JSON.stringify(SECRET)}, path: ${JSON.stringify(PATH)}, holdTimeoutMs: 60000})
      console.log('PORT ' + await relay.listen())
      setInterval(() => console.log('BUFFERED ' + relay.buffered.peak), 100)
    `
      const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      opened.push({close: () => void child.kill('SIGKILL')})
      let relayPort = 0
      let bufferedPeak = 0
      createInterface({input: child.stdout!}).on('line', (line) => {
        if (line.startsWith('PORT ')) relayPort = Number(line.slice(5))
        if (line.startsWith('BUFFERED ')) bufferedPeak = Number(line.slice(9))
      })
      await waitFor(() => relayPort > 0, {what: 'the relay process to listen', timeout: 15_000})
      const before = memoryMb(child.pid!)

      const HUNDRED_MB = 100 * 1024 * 1024
      const block = Buffer.alloc(64 * 1024, 'a')
      const chunked = Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')])
      const clients = await Promise.all(
        Array.from({length: 40}, (_, i) =>
          // Half declare the 100 MB, half send it chunked with no length.
          connect(
            '127.0.0.1',
            relayPort,
            head([
              `X-Telegram-Bot-Api-Secret-Token: ${SECRET}`,
              i % 2 ? `Content-Length: ${HUNDRED_MB}` : 'Transfer-Encoding: chunked',
            ]),
          ),
        ),
      )
      let sent = 0
      await Promise.all(
        clients.map(async (c, i) => {
          const piece = i % 2 ? block : chunked
          for (let n = 0; n < HUNDRED_MB && !c.closed; n += block.length) {
            sent += piece.length
            if (!c.socket.write(piece))
              await new Promise<void>((r) => {
                c.socket.once('drain', r)
                c.socket.once('close', r)
              })
          }
        }),
      )
      await waitFor(() => clients.every((c) => c.closed), {
        what: 'the relay to close every connection',
        timeout: 15_000,
      })
      const after = memoryMb(child.pid!)
      // Every answer that arrived before the close is a refusal (413 too large, 503 too much in flight).
      for (const c of clients) if (c.received()) expect(c.received()).toMatch(/^HTTP\/1\.1 (413|503) /)
      expect(clients.filter((c) => c.received()).length).toBeGreaterThan(0)
      await waitFor(() => bufferedPeak > 0, {what: 'a stats line', timeout: 5000}).catch(() => {})
      expect(bufferedPeak).toBeLessThanOrEqual(32 * 1024 * 1024)
      // Before the caps this took the process to ~775 MB; now the bodies it holds are capped at 32 MB.
      expect(after.peak - before.peak).toBeLessThan(150)
      console.log(
        `relay process: peak RSS ${before.peak.toFixed(0)} MB → ${after.peak.toFixed(0)} MB; body bytes held at most ${(bufferedPeak / 1024 / 1024).toFixed(1)} MB; ${(sent / 1024 / 1024).toFixed(0)} MB offered before the relay cut the clients off`,
      )
    },
  )
})
