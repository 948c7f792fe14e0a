/**
 * Idle connections cannot starve the session, over real sockets: a flood of
 * connections that send nothing (no key needed to open one) to the inspector, the control port and
 * the api proxy is bounded, the oldest idle ones closed first, while a request in progress (an
 * event stream with the key, a long poll) stays open and a legitimate request still works. With
 * every connection of the control port busy, `bot trigger`'s client reports the session as busy,
 * not as gone.
 */
import net from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {sendToSession} from '../../src/control/session-request.js'
import type {ControlRecord} from '../../src/control/protocol.js'
import {CONTROL_MAX_CONNECTIONS, startControlPort, type ControlPort} from '../../src/control/server.js'
import {PROXY_MAX_IDLE} from '../../src/inspector/proxy/api-proxy.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import {INSPECTOR_MAX_IDLE, startInspectorServer} from '../../src/inspector/web/server.js'
import {loopbackRequest} from '../support/http.js'
import {waitFor} from '../support/wait.js'
import {recordingProxy, sink} from './api-proxy-helpers.js'
import {connectRaw, later, TOKEN} from './hostile-helpers.js'
import {RecordingActions} from './control-helpers.js'

const KEY = '0123456789abcdef0123456789abcdef'

interface Flood {
  sockets: net.Socket[]
  closed: boolean[]
  open(): number
}

/** `n` connections that send nothing, opened one after the other (closed after the test). */
async function flood(port: number, n: number): Promise<Flood> {
  const sockets: net.Socket[] = []
  const closed: boolean[] = []
  for (let i = 0; i < n; i++) {
    const socket = net.connect(port, '127.0.0.1')
    const at = i
    closed.push(false)
    socket.on('error', () => {})
    socket.on('close', () => (closed[at] = true))
    await new Promise<void>((resolve) => {
      socket.once('connect', resolve)
      socket.once('close', resolve)
    })
    sockets.push(socket)
  }
  later(() => {
    for (const s of sockets) s.destroy()
  })
  return {sockets, closed, open: () => closed.filter((c) => !c).length}
}

/** The newest `keep` of a flood are open and every older one was closed. */
async function oldestClosed(f: Flood, keep: number, what: string): Promise<void> {
  await waitFor(() => f.open() <= keep, {what: `${what}: at most ${keep} of ${f.sockets.length} idle connections open`})
  const firstOpen = f.closed.indexOf(false)
  expect(firstOpen, `${what}: the oldest idle connections are the ones closed`).toBeGreaterThanOrEqual(
    f.sockets.length - keep,
  )
}

let control: ControlPort | undefined
afterEach(async () => {
  await control?.close()
  control = undefined
})

describe('a flood of idle connections', () => {
  it('the inspector keeps the newest idle ones only, its event stream with the key stays open, the page still loads', async () => {
    const history = new UpdateHistory()
    const server = await startInspectorServer({
      history,
      key: KEY,
      actions: {replay: () => Promise.reject(new Error('no'))},
    })
    later(() => server.close())
    const stream = await connectRaw(server.port)
    await stream.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-bot-dev-key: ${KEY}\r\n\r\n`)
    await stream.whenReceived((t) => t.includes('retry: 2000'))
    const f = await flood(server.port, 400)
    await oldestClosed(f, INSPECTOR_MAX_IDLE, 'inspector')
    // The stream (a request with the key) was not counted among the idle ones: it gets the next entry.
    history.begin(
      {update_id: 5, message: {message_id: 1, date: 1, chat: {id: 1, type: 'private'}, text: 'x'}},
      'webhook',
    )
    await stream.whenReceived((t) => t.includes('"updateId":5'))
    expect(stream.closed).toBe(false)
    const page = await loopbackRequest(server.port, `/?key=${KEY}`)
    expect(page.status).toBe(200)
  })

  it('the control port: `bot trigger` still gets through 200 idle connections', async () => {
    const actions = new RecordingActions()
    control = await startControlPort({actions, key: KEY})
    const record = controlRecord(control.port)
    const f = await flood(control.port, 200)
    await oldestClosed(f, 16, 'control port')
    const entry = await sendToSession(record, '/trigger', {kind: 'message', text: '/start'})
    expect(entry).toMatchObject({type: 'message', source: 'trigger'})
  })

  it('the api proxy keeps the newest idle ones only; a long poll in progress stays; the bot still gets answers', async () => {
    const upstream = await sink((r) => {
      // getUpdates is a long poll: answered only when the test says so.
      if (r.url.includes('/getUpdates')) return
      r.req.on('end', () => r.res.end('{"ok":true,"result":{}}')).resume()
    })
    const rec = await recordingProxy(upstream.url)
    const poll = fetch(`${rec.proxy.url}/bot${TOKEN}/getUpdates?timeout=50`)
    const held = await waitFor(() => upstream.requests.find((r) => r.url.includes('/getUpdates')), {
      what: 'the long poll upstream',
    })
    const f = await flood(rec.proxy.port, PROXY_MAX_IDLE + 300)
    await oldestClosed(f, PROXY_MAX_IDLE, 'api proxy')
    const me = await fetch(`${rec.proxy.url}/bot${TOKEN}/getMe`)
    expect(me.status).toBe(200)
    await me.arrayBuffer()
    held.res.end('{"ok":true,"result":[]}')
    const answer = await poll
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ok: true, result: []})
  })
})

function controlRecord(port: number): ControlRecord {
  return {
    version: 1,
    pid: process.pid,
    botId: 1,
    cwd: process.cwd(),
    offline: true,
    mode: 'webhook',
    port,
    key: KEY,
    startedAt: new Date().toISOString(),
  }
}

describe('a full control port', () => {
  it('with every connection busy (triggers the bot has not answered), `bot trigger` is told the session is busy, not gone', async () => {
    const actions = new RecordingActions()
    actions.hang = true
    control = await startControlPort({actions, key: KEY, deadlineMs: 60_000})
    const record = controlRecord(control.port)
    const pending = Array.from({length: CONTROL_MAX_CONNECTIONS}, () =>
      sendToSession(record, '/trigger', {kind: 'message', text: 'hang'}).catch((e: Error) => e),
    )
    await waitFor(() => actions.triggers.length === CONTROL_MAX_CONNECTIONS, {what: 'every trigger in flight'})
    const error = await sendToSession(record, '/trigger', {kind: 'message', text: 'one more'}).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toMatch(/busy/)
    expect((error as Error).message).not.toMatch(/does not answer/)
    expect((error as {code?: string}).code).toBe('busy')
    expect(actions.triggers.length).toBe(CONTROL_MAX_CONNECTIONS)
    await control.close()
    control = undefined
    await Promise.all(pending)
  })
})
