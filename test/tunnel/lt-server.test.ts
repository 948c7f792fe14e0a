/**
 * The loopback localtunnel server itself (others build their tests on it), driven by hand-made
 * client sockets that behave like the localtunnel client: connect to the tunnel port, answer HTTP.
 */
import net from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'

import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'

let lt: LocaltunnelServer | undefined
const clients: net.Socket[] = []

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  await lt?.close()
  lt = undefined
})

interface NewTunnel {
  id: string
  port: number
  max_conn_count: number
  url: string
  ip?: string
}

async function newTunnel(
  server: LocaltunnelServer,
  path = '/?new',
): Promise<{status: number; body: NewTunnel & {message?: string}}> {
  const res = await fetch(server.url + path)
  return {status: res.status, body: (await res.json()) as NewTunnel & {message?: string}}
}

/**
 * A client socket that answers each HTTP request it reads with `200 <path>`, after `delayMs`.
 * Counts the requests it served.
 */
function clientSocket(port: number, delayMs = 0): Promise<net.Socket & {served: number}> {
  return new Promise((resolve, reject) => {
    const s = net.connect({host: '127.0.0.1', port}) as net.Socket & {served: number}
    s.served = 0
    clients.push(s)
    let buf = ''
    s.setEncoding('latin1')
    s.on('data', (chunk: string) => {
      buf += chunk
      for (;;) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buf.slice(0, end)
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
        if (buf.length < end + 4 + length) return
        buf = buf.slice(end + 4 + length)
        const path = head.split(' ')[1]
        const answer = () => {
          s.served++
          s.write(
            `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(path)}\r\nconnection: keep-alive\r\n\r\n${path}`,
          )
        }
        if (delayMs) setTimeout(answer, delayMs)
        else answer()
      }
    })
    s.once('connect', () => resolve(s))
    s.once('error', reject)
  })
}

describe('loopback localtunnel server', () => {
  it('answers GET /?new like localtunnel (id, port, max_conn_count, url) and lists the tunnel', async () => {
    lt = await startLocaltunnelServer({maxSockets: 4, includeIp: true})
    expect(lt.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const {status, body} = await newTunnel(lt)
    expect(status).toBe(200)
    expect(body).toMatchObject({max_conn_count: 4, ip: '127.0.0.1'})
    expect(body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(lt.tunnels).toEqual([{id: body.id, url: body.url, port: body.port, sockets: 0, requests: 0, waiting: 0}])
    expect(await (await fetch(`${lt.url}/api/tunnels/${body.id}/status`)).json()).toEqual({connected_sockets: 0})
  })

  it('gives a requested subdomain, a random id when it is taken, and 403 when it is invalid', async () => {
    lt = await startLocaltunnelServer()
    expect((await newTunnel(lt, '/my-bot-dev')).body.id).toBe('my-bot-dev')
    const second = await newTunnel(lt, '/my-bot-dev')
    expect(second.status).toBe(200)
    expect(second.body.id).not.toBe('my-bot-dev')
    const bad = await newTunnel(lt, '/Bad_Name')
    expect(bad.status).toBe(403)
    expect(bad.body.message).toMatch(/Invalid subdomain/)
  })

  it('queues requests while every client socket is busy and serves them all in turn', async () => {
    lt = await startLocaltunnelServer({maxSockets: 2})
    const {body} = await newTunnel(lt)
    const [a, b] = await Promise.all([clientSocket(body.port, 20), clientSocket(body.port, 20)])
    await lt.waitFor((s) => s.tunnels[0].sockets === 2)
    const answers = await Promise.all(
      Array.from({length: 12}, (_, i) => fetch(`${body.url}/q${i}`).then((r) => r.text())),
    )
    expect(answers).toEqual(Array.from({length: 12}, (_, i) => `/q${i}`))
    // Both sockets were used, and each kept serving (keep-alive): 12 requests over 2 connections.
    expect(a.served + b.served).toBe(12)
    expect(a.served).toBeGreaterThan(0)
    expect(b.served).toBeGreaterThan(0)
    expect(lt.tunnels[0]).toMatchObject({sockets: 2, requests: 12})
  })

  it('refuses client sockets beyond max_conn_count', async () => {
    lt = await startLocaltunnelServer({maxSockets: 2})
    const {body} = await newTunnel(lt)
    await Promise.all([clientSocket(body.port), clientSocket(body.port)])
    await lt.waitFor((s) => s.tunnels[0].sockets === 2)
    const third = await clientSocket(body.port)
    await new Promise((resolve) => third.once('close', resolve))
    expect(lt.tunnels[0].sockets).toBe(2)
  })

  it('answers 504 when the tunnel does not answer in time, and 503 when the queue is full', async () => {
    lt = await startLocaltunnelServer({maxSockets: 1, requestTimeoutMs: 300, maxQueue: 1})
    const {body} = await newTunnel(lt)
    // No client socket at all: the first request waits in the queue, the second finds it full.
    const first = fetch(`${body.url}/a`)
    await lt.waitFor((s) => s.tunnels[0].waiting === 1)
    expect((await fetch(`${body.url}/b`)).status).toBe(503)
    const r = await first
    expect(r.status).toBe(504)
    expect(await r.text()).toMatch(/did not answer in time/)
    expect(lt.tunnels[0]).toMatchObject({waiting: 0, requests: 2})
  })

  it('dropAll() closes every client socket; kill() refuses everything; revive() listens again on the same URL', async () => {
    lt = await startLocaltunnelServer({maxSockets: 3})
    const {body} = await newTunnel(lt)
    const socks = await Promise.all([clientSocket(body.port), clientSocket(body.port), clientSocket(body.port)])
    await lt.waitFor((s) => s.tunnels[0].sockets === 3)
    lt.dropAll()
    await Promise.all(socks.map((s) => new Promise((resolve) => (s.closed ? resolve(null) : s.once('close', resolve)))))
    await lt.waitFor((s) => s.tunnels[0].sockets === 0)

    await lt.kill()
    expect(lt.killed).toBe(true)
    expect(lt.tunnels).toEqual([])
    await expect(fetch(`${lt.url}/?new`)).rejects.toThrow()
    await expect(fetch(body.url)).rejects.toThrow()
    await expect(clientSocket(body.port)).rejects.toMatchObject({code: 'ECONNREFUSED'})

    await lt.revive()
    expect(lt.killed).toBe(false)
    expect((await newTunnel(lt)).status).toBe(200)
  })

  it('forgets a tunnel whose client stays away for the grace period', async () => {
    lt = await startLocaltunnelServer({graceMs: 150})
    const {body} = await newTunnel(lt)
    const s = await clientSocket(body.port)
    await lt.waitFor((x) => x.tunnels[0]?.sockets === 1)
    s.destroy()
    await lt.waitFor((x) => x.tunnels.length === 0, 3000)
    await expect(clientSocket(body.port)).rejects.toMatchObject({code: 'ECONNREFUSED'})
  })

  it('close() ends every socket and port', async () => {
    const server = await startLocaltunnelServer()
    const {body} = await newTunnel(server)
    const s = await clientSocket(body.port)
    await server.waitFor((x) => x.tunnels[0]?.sockets === 1)
    await server.close()
    await new Promise((resolve) => (s.closed ? resolve(null) : s.once('close', resolve)))
    await expect(fetch(`${server.url}/?new`)).rejects.toThrow()
    await expect(server.revive()).rejects.toThrow(/closed/)
  })
})
