/**
 * The relay reads HTTP/1.1 itself (src/dev/relay/server.ts, request-head.ts, http1.ts): it must make
 * of any bytes what Node's parser (llhttp, behind a real node:http server) makes of them. Seeded
 * cases (test/support/http-differential.ts), each one connection of pipelined requests, go to both;
 * the requests each accepts (method, target, version, framing, the headers the relay acts on, the
 * body) and whether it refuses must be the same.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {RelayServer} from '../../src/dev/relay/server.js'
import {
  compareAll,
  generateCases,
  nodeReference,
  type ReaderUnderTest,
  type SeenRequest,
} from '../support/http-differential.js'

/** The relay's reader with a handler that takes every request and answers 200. */
async function relayReader(): Promise<ReaderUnderTest> {
  const seen = new Map<number, SeenRequest[]>()
  const server = new RelayServer(
    {
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: 1024 * 1024,
      maxBufferedBytes: 256 * 1024 * 1024,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 30_000,
      keepAliveMs: 30_000,
      maxAnonymous: 10_000,
      lingerMs: 2000,
    },
    {
      route: () => true,
      request(conn, head, body) {
        const port = conn.socket.remotePort ?? 0
        const list = seen.get(port) ?? []
        seen.set(port, list)
        list.push({
          method: head.method,
          target: head.target,
          http10: head.http10,
          contentLength: head.contentLength,
          chunked: head.chunked,
          close: head.close,
          expectContinue: head.expectContinue,
          secret: head.secret,
          contentType: head.contentType,
          body: body.toString('latin1'),
        })
        conn.respond(200, '', 'ok')
      },
      refused: () => {},
    },
  )
  const port = await server.listen()
  return {
    port,
    take(clientPort) {
      const accepted = seen.get(clientPort) ?? []
      seen.delete(clientPort)
      return {accepted}
    },
    close: () => server.close(50),
  }
}

const SEED = Number(process.env.DIFF_SEED ?? 20261127)
const REQUESTS = Number(process.env.DIFF_REQUESTS ?? 10_000)

describe('the relay reads HTTP/1.1 as Node does', () => {
  let reference: ReaderUnderTest
  let relay: ReaderUnderTest
  beforeAll(async () => {
    reference = await nodeReference()
    relay = await relayReader()
  })
  afterAll(async () => {
    await relay?.close()
    await reference?.close()
  })

  it(`accepts and refuses the same of ${REQUESTS} generated requests, with the same heads and bodies`, async () => {
    const cases = generateCases(SEED, REQUESTS)
    const generated = cases.reduce((n, c) => n + c.requests, 0)
    expect(generated).toBeGreaterThanOrEqual(REQUESTS)
    const started = performance.now()
    const {differ, stalled} = await compareAll(cases, reference, relay)
    const shown = differ.slice(0, 30).map(({c, reference: a, subject: b}) => ({
      shapes: c.shapes,
      bytes: JSON.stringify(c.bytes.slice(0, 400)),
      node: {refused: a.refused, accepted: a.accepted.map((r) => `${r.method} ${r.target}`), stalled: a.stalled},
      relay: {refused: b.refused, accepted: b.accepted.map((r) => `${r.method} ${r.target}`), stalled: b.stalled},
      first: a.accepted.find((r, i) => JSON.stringify(r) !== JSON.stringify(b.accepted[i])),
      firstRelay: b.accepted.find((r, i) => JSON.stringify(r) !== JSON.stringify(a.accepted[i])),
    }))
    if (process.env.DIFF_DUMP) {
      const {writeFileSync} = await import('node:fs')
      writeFileSync(process.env.DIFF_DUMP, JSON.stringify(differ, null, 1))
    }
    if (process.env.DIFF_VERBOSE) {
      const counts = new Map<string, number>()
      for (const d of differ) for (const s of new Set(d.c.shapes)) counts.set(s, (counts.get(s) ?? 0) + 1)
      console.log(
        `${cases.length} connections, ${generated} requests, ${differ.length} differ, ${stalled} stalled, ${Math.round(performance.now() - started)} ms`,
        [...counts].sort((a, b) => b[1] - a[1]),
      )
    }
    expect(shown).toEqual([])
    expect(stalled).toBe(0)
  }, 120_000)
})
