/**
 * Slowloris against the api proxy and the inspector: a client that never finishes its request
 * headers (one byte now and then) is cut by the server's headers deadline (60 s in a session,
 * `headersTimeoutMs`, here 1 s), and a normal request is answered meanwhile. Both run at once.
 * The cut is shown by the server closing a connection that never ends by itself (without the 1 s
 * deadline, Node's own 60 s or none would leave it open past the test), with a 408 or no answer, not
 * by a stopwatch.
 */
import {describe, expect, it} from 'vitest'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer} from '../../src/inspector/web/server.js'
import {recordingProxy, sink} from './api-proxy-helpers.js'
import {connectRaw, later, TOKEN} from './hostile-helpers.js'
import {waitFor} from '../support/wait.js'

/** The servers' headers deadline in this test (60 s in a session). */
const HEADERS_TIMEOUT_MS = 1000
/** Sends one more header byte every 100 ms until the connection closes; resolves with how long it lived. */
async function slowloris(port: number, host: string): Promise<{ms: number; answer: string}> {
  const conn = await connectRaw(port)
  const t0 = Date.now()
  await conn.write(`GET /api/updates HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `)
  const drip = setInterval(() => {
    if (!conn.closed) conn.socket.write('a')
  }, 100)
  later(() => clearInterval(drip))
  await conn.whenClosed() // (a bound on a hang only)
  clearInterval(drip)
  return {ms: Date.now() - t0, answer: conn.text()}
}

/** Cut by the server's headers deadline (a 408, or closed by its clientError handler with no answer), not earlier. */
function expectCutByDeadline(lived: {ms: number; answer: string}): void {
  expect(lived.answer).toMatch(/^(HTTP\/1\.1 408 [^]*)?$/)
  expect(lived.ms).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS / 2)
}

/** The api proxy cuts a client that never ends its headers, serving others meanwhile. */
async function againstTheProxy(): Promise<void> {
  const upstream = await sink()
  const rec = await recordingProxy(upstream.url, {headersTimeoutMs: HEADERS_TIMEOUT_MS})
  const lived = slowloris(rec.proxy.port, '127.0.0.1')
  const res = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
  expect(res.status).toBe(200)
  await res.arrayBuffer()
  expectCutByDeadline(await lived)
  expect(upstream.requests.length).toBe(1)
  // On a new connection (the first one's keep-alive ended meanwhile).
  const again = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`, {headers: {connection: 'close'}}).catch(
    (e: Error) => e,
  )
  if (again instanceof Error) console.warn('again failed', again, (again as {cause?: unknown}).cause)
  expect(again instanceof Error ? again.message : again.status).toBe(200)
}

/** The inspector cuts a client that never ends its headers, serving others meanwhile. */
async function againstTheInspector(): Promise<void> {
  const key = 'slow-key-0123456789'
  const server = await startInspectorServer({
    history: new UpdateHistory(),
    actions: {replay: () => Promise.reject(new Error('no'))},
    key,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
  })
  later(() => server.close())
  const lived = slowloris(server.port, `127.0.0.1:${server.port}`)
  const list = async () =>
    (await fetch(`http://127.0.0.1:${server.port}/api/updates`, {headers: {'x-bot-dev-key': key}})).status
  expect(await list()).toBe(200)
  expectCutByDeadline(await lived)
  await waitFor(async () => (await list()) === 200, {what: 'the list'})
}

describe('slowloris', () => {
  // One test running both: the helpers' cleanups run after each test, so two concurrent tests would
  // close each other's servers when the first one ends.
  it('the api proxy and the inspector each cut a client that never ends its headers, serving others meanwhile', async () => {
    await Promise.all([againstTheProxy(), againstTheInspector()])
  })
})
