/**
 * The api proxy under 200 concurrent slow clients: memory stays bounded whatever they do (stall in
 * their headers, stall half way through a multipart upload full of large fields, read a large
 * getUpdates answer slowly, never read their answer), and a normal call is answered meanwhile.
 * Memory is measured in this process (the proxy runs here) after a forced garbage collection.
 */
import http from 'node:http'
import v8 from 'node:v8'
import vm from 'node:vm'
import {describe, expect, it} from 'vitest'
import {recordingProxy, sink, type Recorder} from './api-proxy-helpers.js'
import {connectRaw, later, TOKEN, type RawConnection} from './hostile-helpers.js'
import {waitFor} from '../support/wait.js'

const MiB = 1024 * 1024
const CLIENTS = 200

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

function memory(): {heap: number; buffers: number} {
  gc()
  gc()
  const m = process.memoryUsage()
  return {heap: m.heapUsed, buffers: m.arrayBuffers}
}

async function expectServes(rec: Recorder): Promise<void> {
  const res = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ok: true})
}

/** An upstream that answers getMe and lets `other` handle the rest. */
function upstreamWith(other: Parameters<typeof sink>[0] & {}) {
  return sink((r) => {
    if (!r.url.endsWith('/getMe')) return other(r)
    r.res.writeHead(200, {'content-type': 'application/json'})
    r.res.end('{"ok":true,"result":{}}')
  })
}

describe(`api proxy: ${CLIENTS} concurrent slow clients`, () => {
  it('stalled in their request headers (slowloris): a normal call is answered meanwhile', async () => {
    const upstream = await sink()
    const rec = await recordingProxy(upstream.url)
    const conns: RawConnection[] = []
    for (let i = 0; i < CLIENTS; i++) {
      const conn = await connectRaw(rec.proxy.port)
      await conn.write(`GET /bot${TOKEN}/getMe HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-${i}: `)
      conns.push(conn)
    }
    for (const conn of conns) await conn.write('a')
    await expectServes(rec)
    expect(upstream.requests.length).toBe(1)
    expect(conns.every((c) => !c.closed)).toBe(true)
  })

  it('stalled half way through multipart uploads full of 16 kB fields: the parameters kept stay bounded per request', async () => {
    const boundary = 'loadBoundary'
    const fields = 64
    const value = 'v'.repeat(16 * 1024)
    let head = ''
    for (let i = 0; i < fields; i++)
      head += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${value}\r\n`
    const sent = Buffer.byteLength(head)
    const upstream = await upstreamWith(() => {})
    const rec = await recordingProxy(upstream.url)
    const base = memory()
    const reqs: http.ClientRequest[] = []
    for (let i = 0; i < CLIENTS; i++) {
      const req = http.request(`${rec.proxy.url}/bot${TOKEN}/sendDocument`, {
        method: 'POST',
        agent: false,
        headers: {'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(sent + 1000)},
      })
      req.on('error', () => {})
      req.write(head)
      reqs.push(req)
      later(() => req.destroy())
    }
    await waitFor(() => upstream.requests.length === CLIENTS && upstream.requests.every((r) => r.bytes === sent), {
      what: 'every upload to reach the upstream',
      timeout: 120_000,
    })
    const grown = memory()
    const heapGrowth = grown.heap - base.heap
    // Without a bound: 200 × 64 × 16 kB = 200 MiB of field values held.
    expect(heapGrowth, `heap grew ${(heapGrowth / MiB).toFixed(1)} MiB`).toBeLessThan(80 * MiB)
    await expectServes(rec)
  }, 180_000)

  it('reading large getUpdates answers slowly: the copies kept to read them stay bounded in all', async () => {
    const size = 1.5 * MiB
    const heads: http.ServerResponse[] = []
    const upstream = await upstreamWith((r) => {
      r.res.writeHead(200, {'content-type': 'application/json'})
      if (r.url.includes('offset=7'))
        return r.res.end('{"ok":true,"result":[{"update_id":7,"message":{"text":"after"}}]}')
      r.res.write('{"ok":true,"result":[' + ' '.repeat(size))
      heads.push(r.res)
    })
    const rec = await recordingProxy(upstream.url)
    const base = memory()
    const received: number[] = []
    const reqs: http.ClientRequest[] = []
    for (let i = 0; i < CLIENTS; i++) {
      received.push(0)
      const req = http.get(`${rec.proxy.url}/bot${TOKEN}/getUpdates`, {agent: false}, (res) => {
        res.on('data', (c: Buffer) => {
          received[i] += c.length
        })
      })
      req.on('error', () => {})
      reqs.push(req)
      later(() => req.destroy())
    }
    await waitFor(() => received.every((n) => n >= size), {
      what: 'every client to receive its answer but the end',
      timeout: 180_000,
    })
    const grown = memory()
    // Buffers only: the copies are Buffers (and a previous test's heap freed meanwhile would hide a growth of both).
    const growth = grown.buffers - base.buffers
    // Without a bound: 200 × 1.5 MiB = 300 MiB of copies held until the answers end.
    expect(growth, `buffers grew ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(120 * MiB)
    for (const res of heads) res.end(']}')
    await waitFor(() => rec.calls.filter((c) => c.method === 'getUpdates').length === CLIENTS, {
      what: 'every record',
      timeout: 60_000,
    })
    expect(rec.calls.every((c) => c.ok)).toBe(true)
    // The bound is given back: a getUpdates after them is read again.
    const after = await fetch(`${rec.proxy.url}/bot${TOKEN}/getUpdates?offset=7`)
    expect(after.status).toBe(200)
    await after.arrayBuffer()
    await waitFor(() => rec.updates.some((list) => (list[0] as {update_id?: number})?.update_id === 7), {
      what: 'the updates of the next getUpdates',
    })
    await expectServes(rec)
  }, 240_000)

  it('never reading an endless answer: the upstream is held back for each, memory stays bounded', async () => {
    const written: number[] = []
    let stop = false
    later(() => (stop = true))
    const upstream = await upstreamWith((r) => {
      const index = written.push(0) - 1
      r.res.writeHead(200, {'content-type': 'application/octet-stream'})
      const chunk = Buffer.alloc(64 * 1024, 0x62)
      const pump = () => {
        while (!stop) {
          written[index] += chunk.length
          if (!r.res.write(chunk)) return r.res.once('drain', pump)
        }
      }
      pump()
    })
    const rec = await recordingProxy(upstream.url)
    const base = memory()
    for (let i = 0; i < CLIENTS; i++) {
      const req = http.get(`${rec.proxy.url}/bot${TOKEN}/getFile?file_id=x`, {agent: false}, (res) => res.pause())
      req.on('error', () => {})
      later(() => req.destroy())
    }
    await waitFor(() => written.length === CLIENTS, {what: 'every request upstream', timeout: 60_000})
    let last = -1
    await waitFor(
      async () => {
        const total = written.reduce((a, b) => a + b, 0)
        const still = total === last
        last = total
        await new Promise((r) => setTimeout(r, 500))
        return still
      },
      {what: 'the upstream to be held back', timeout: 120_000},
    )
    const grown = memory()
    const growth = grown.buffers - base.buffers
    expect(growth, `buffers grew ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(100 * MiB)
    expect(Math.max(...written)).toBeLessThan(16 * MiB)
    await expectServes(rec)
  }, 240_000)
})
