/**
 * The inspector's HTTP server over real HTTP: the key (401), loopback Host only (403), headers
 * (no-store, CSP, no CORS), the JSON API, SSE (a new entry arrives; a stuck client is dropped;
 * close ends the streams), replay (reaches the actions; bad JSON 400; ActionError's status), the
 * token never in an answer, and the page files found both from src/ and from the build in dist/.
 */
import {execFileSync} from 'node:child_process'
import {request as httpRequest, type IncomingMessage} from 'node:http'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import type {UpdateEntry} from '../../src/inspector/types.js'
import {ActionError} from '../../src/control/protocol.js'
import {PROJECT_ROOT} from '../support/paths.js'
import {loopbackRequest} from '../support/http.js'
import {waitFor} from '../support/wait.js'

const KEY = 'k3y-Abc_123'
const TOKEN = '123456789:AAHsecretsecretsecretsecretsecret12'
/** Not token-shaped (the history would not know it): the server's own redaction must blank it. */
const WEBHOOK_SECRET = 'wh-Secret-Path-0123456789'
const XSS = '<img src=x onerror="document.title=\'pwned\'">'

const request = loopbackRequest

function message(updateId: number, text: string, chatId = 42): Record<string, unknown> {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1_700_000_000,
      chat: {id: chatId, type: 'private'},
      from: {id: chatId, is_bot: false, first_name: 'Ann'},
      text,
    },
  }
}

/** Reads SSE events from a stream until `until` accepts one (or the deadline). */
function readEvents(
  res: IncomingMessage,
  until: (event: {event: string; data: string}) => boolean,
  deadlineMs = 10_000,
): Promise<{event: string; data: string}> {
  return new Promise((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(
      () => reject(new Error(`no matching SSE event within ${deadlineMs} ms; got: ${buffer.slice(0, 500)}`)),
      deadlineMs,
    )
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      buffer += chunk
      let end
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? ''
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? ''
        if (until({event, data})) {
          clearTimeout(timer)
          resolve({event, data})
          return
        }
      }
    })
  })
}

function openEvents(port: number, headers: Record<string, string> = {'x-bot-dev-key': KEY}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {host: '127.0.0.1', port, path: '/api/events', headers: {host: `127.0.0.1:${port}`, ...headers}},
      resolve,
    )
    req.on('error', reject)
    req.end()
  })
}

let history: UpdateHistory
let server: InspectorServer
const replays: Array<{updateId: number | 'last'; edited?: Record<string, unknown>}> = []
let replayFails: Error | undefined

async function start(extra: Partial<Parameters<typeof startInspectorServer>[0]> = {}): Promise<InspectorServer> {
  server = await startInspectorServer({
    history,
    key: KEY,
    secrets: [TOKEN, WEBHOOK_SECRET],
    actions: {
      async replay(updateId, edited) {
        replays.push({updateId, edited})
        if (replayFails) throw replayFails
        const original = history.find(updateId as number)
        return history.begin(edited ?? original?.update, 'replay', updateId as number)
      },
    },
    ...extra,
  })
  return server
}

beforeEach(async () => {
  history = new UpdateHistory()
  replays.length = 0
  replayFails = undefined
  await start()
})

afterEach(async () => {
  await server.close()
})

describe('access', () => {
  it('serves on 127.0.0.1 and prints a URL carrying the key', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?key=${KEY}`)
  })

  it('answers 401 without the key or with a wrong one, for the page and the API', async () => {
    const page = await request(server.port, '/')
    expect(page.status).toBe(401)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.body).toContain('Open the URL printed by <code>bot dev</code>')
    for (const path of [
      '/api/updates',
      '/api/updates/1',
      '/api/events',
      '/app.js',
      '/style.css',
      `/api/updates?key=${KEY}x`,
    ]) {
      const r = await request(server.port, path)
      expect(r.status, path).toBe(401)
    }
    const api = await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': 'wrong'}})
    expect(api.status).toBe(401)
    expect(JSON.parse(api.body)).toMatchObject({error: 'the inspector key is missing or wrong'})
    const post = await request(server.port, '/api/updates/1/replay', {method: 'POST'})
    expect(post.status).toBe(401)
    expect(replays).toEqual([])
  })

  it('accepts the key as ?key= and as the x-bot-dev-key header', async () => {
    expect((await request(server.port, `/?key=${KEY}`)).status).toBe(200)
    expect((await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': KEY}})).status).toBe(200)
    expect((await request(server.port, `/api/updates?key=${encodeURIComponent(KEY)}`)).status).toBe(200)
  })

  it('refuses a foreign Host header with 403 even with the right key (DNS rebinding)', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      `localhost.evil.example:${server.port}`,
      '127.0.0.1',
      `127.0.0.1:${server.port}.evil.example`,
    ]) {
      const r = await request(server.port, `/api/updates?key=${KEY}`, {host})
      expect(r.status, host).toBe(403)
      expect(r.body).not.toContain('updateId')
    }
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `[::1]:${server.port}`,
      `LOCALHOST:${server.port}`,
    ]) {
      expect((await request(server.port, `/api/updates?key=${KEY}`, {host})).status, host).toBe(200)
    }
  })

  it('sends no-store, the CSP and no CORS headers, even to a request with an Origin', async () => {
    for (const path of [`/?key=${KEY}`, `/app.js?key=${KEY}`, `/api/updates?key=${KEY}`, '/api/updates']) {
      const r = await request(server.port, path, {headers: {origin: 'https://evil.example'}})
      expect(r.headers['cache-control'], path).toBe('no-store')
      expect(r.headers['content-security-policy'], path).toMatch(/^default-src 'self'/)
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
  })
})

describe('the page files', () => {
  it('serves index.html with the key in its asset links, app.js and style.css', async () => {
    const html = await request(server.port, `/?key=${KEY}`)
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(html.body).toContain(`<script src="app.js?key=${KEY}" defer></script>`)
    expect(html.body).not.toContain('{{key}}')
    expect(html.body).not.toMatch(/<script>|on(click|load|error)=/)
    const js = await request(server.port, `/app.js?key=${KEY}`)
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(js.body).toContain("new EventSource('/api/events?key='")
    expect(js.body).not.toContain('innerHTML')
    const css = await request(server.port, '/style.css', {headers: {'x-bot-dev-key': KEY}})
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(css.body).toContain('prefers-color-scheme: dark')
  })

  it('escapes a key with HTML characters in the page', async () => {
    await server.close()
    const odd = 'a"><script>x</script>'
    await start({key: odd})
    const html = await request(server.port, `/?key=${encodeURIComponent(odd)}`)
    expect(html.status).toBe(200)
    expect(html.body).not.toContain('<script>x')
    expect(html.body).toContain(`app.js?key=${encodeURIComponent(odd)}`)
  })

  it('are found by the build in dist/ and packed by npm pack', async () => {
    // dist/ exists after `npm run build` (npm test runs it first).
    const dist = (await import(
      `${PROJECT_ROOT}/dist/inspector/web/server.js`
    )) as typeof import('../../src/inspector/web/server.js')
    const built = await dist.startInspectorServer({
      history,
      key: KEY,
      actions: {replay: () => Promise.reject(new Error('unused'))},
    })
    try {
      const html = await request(built.port, `/?key=${KEY}`)
      expect(html.status).toBe(200)
      expect(html.body).toContain('Edit and replay')
      expect((await request(built.port, `/app.js?key=${KEY}`)).body).toContain('EventSource')
    } finally {
      await built.close()
    }
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{files: Array<{path: string}>}>
    const files = packed[0].files.map((f) => f.path)
    for (const f of ['index.html', 'app.js', 'style.css']) expect(files).toContain(`dist/inspector/web/page/${f}`)
  })
})

describe('GET /api/updates', () => {
  it('lists the entries newest first, filters by chat and type, and finds one by update_id', async () => {
    history.begin(message(10, 'first', 42), 'webhook')
    history.begin(message(11, 'second', 43), 'webhook')
    history.begin({update_id: 12, callback_query: {id: 'q1', data: 'pressed', message: {chat: {id: 42}}}}, 'webhook')
    const headers = {'x-bot-dev-key': KEY}
    const all = JSON.parse((await request(server.port, '/api/updates', {headers})).body) as UpdateEntry[]
    expect(all.map((e) => e.updateId)).toEqual([12, 11, 10])
    expect(all[2]).toMatchObject({
      updateId: 10,
      type: 'message',
      chatId: 42,
      preview: 'first',
      answer: null,
      calls: [],
      source: 'webhook',
    })
    const chat42 = JSON.parse((await request(server.port, '/api/updates?chat=42', {headers})).body) as UpdateEntry[]
    expect(chat42.map((e) => e.updateId)).toEqual([12, 10])
    const messages42 = JSON.parse(
      (await request(server.port, '/api/updates?chat=42&type=message', {headers})).body,
    ) as UpdateEntry[]
    expect(messages42.map((e) => e.updateId)).toEqual([10])
    const one = await request(server.port, '/api/updates/11', {headers})
    expect(JSON.parse(one.body)).toMatchObject({updateId: 11, preview: 'second'})
    const missing = await request(server.port, '/api/updates/99', {headers})
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.body)).toEqual({
      error: "no update 99 in this session's history",
      fix: 'GET /api/updates lists the recorded updates',
    })
    expect((await request(server.port, '/api/updates/abc', {headers})).status).toBe(400)
    expect((await request(server.port, '/api/nothing', {headers})).status).toBe(404)
    expect((await request(server.port, '/api/updates', {headers, method: 'DELETE'})).status).toBe(405)
  })

  it('never shows the token, wherever it got into an entry', async () => {
    const entry = history.begin(message(20, `my token is ${TOKEN}`), 'webhook')
    history.addCall({
      method: 'sendMessage',
      ok: false,
      errorCode: 400,
      description: `Bad Request: ${TOKEN.split(':')[1]}`,
      ms: 1,
      params: {text: TOKEN},
      time: new Date().toISOString(),
      chatId: 42,
    })
    const list = await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': KEY}})
    expect(list.body).toContain('my token is <token>')
    expect(list.body).not.toContain(TOKEN.split(':')[1])
    const events = await openEvents(server.port)
    const got = readEvents(events, (e) => e.event === 'entry')
    history.begin(message(21, `again ${TOKEN}`), 'webhook')
    const {data} = await got
    expect(data).toContain('again <token>')
    expect(data).not.toContain(TOKEN.split(':')[1])
    events.destroy()
  })

  it('blanks the secrets it was given, in the list, one entry and the events', async () => {
    history.begin(message(23, `the path is /${WEBHOOK_SECRET}`), 'webhook')
    const headers = {'x-bot-dev-key': KEY}
    for (const path of ['/api/updates', '/api/updates/23']) {
      const r = await request(server.port, path, {headers})
      expect(r.body, path).toContain('the path is /<token>')
      expect(r.body, path).not.toContain(WEBHOOK_SECRET)
    }
    const events = await openEvents(server.port)
    const got = readEvents(events, (e) => e.event === 'entry')
    history.begin(message(24, `again ${WEBHOOK_SECRET}`), 'webhook')
    expect((await got).data).toContain('again <token>')
    events.destroy()
  })

  it('blanks anything token-shaped too, even when it is not among the secrets given', async () => {
    const other = '987654321:BBHotherotherotherotherotherother99'
    history.begin(message(22, `someone else's token ${other}`), 'webhook')
    const list = await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': KEY}})
    expect(list.body).toContain("someone else's token <token>")
    expect(list.body).not.toContain(other)
  })

  it('keeps update text inert: JSON with nosniff, never in the page', async () => {
    history.begin(message(30, XSS), 'webhook')
    const r = await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': KEY}})
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(((JSON.parse(r.body) as UpdateEntry[])[0].update as {message: {text: string}}).message.text).toBe(XSS)
    const page = await request(server.port, `/?key=${KEY}`)
    expect(page.body).not.toContain('onerror')
  })
})

describe('GET /api/events', () => {
  it('delivers a new entry and its change (the answer) as `event: entry`', async () => {
    const events = await openEvents(server.port)
    expect(events.statusCode).toBe(200)
    expect(events.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    const first = readEvents(events, (e) => e.event === 'entry')
    const entry = history.begin(message(40, 'live'), 'webhook')
    const created = JSON.parse((await first).data) as UpdateEntry
    expect(created).toMatchObject({updateId: 40, preview: 'live', answer: null})
    const second = readEvents(events, (e) => e.event === 'entry')
    history.finish(entry, {status: 200, body: '{"method":"sendMessage"}'}, 12.5)
    expect(JSON.parse((await second).data)).toMatchObject({
      updateId: 40,
      seq: created.seq,
      answer: {status: 200, body: '{"method":"sendMessage"}'},
      ms: 12.5,
    })
    events.destroy()
  })

  it('sends heartbeat comments and ends every stream when the server closes', async () => {
    await server.close()
    await start({heartbeatMs: 50})
    const events = await openEvents(server.port)
    let text = ''
    events.setEncoding('utf8')
    events.on('data', (c: string) => (text += c))
    await waitFor(() => text.includes(': ping'), {what: 'a heartbeat'})
    expect(text).toContain(': ping\n\n')
    const ended = new Promise<void>((resolve) => events.on('close', resolve))
    await server.close()
    await ended
  })

  it('drops a client that does not read instead of buffering without bound', async () => {
    await server.close()
    await start({sseMaxBuffered: 256 * 1024})
    const stuck = await openEvents(server.port)
    stuck.pause()
    const live = await openEvents(server.port)
    let liveEvents = 0
    live.setEncoding('utf8')
    live.on('data', (c: string) => (liveEvents += c.split('event: entry').length - 1))
    // Entries of ~40 KB (the history keeps updates up to 64 KiB whole), 24 MB in all: more than the
    // kernel's socket buffers hold for the stuck client.
    const big = 'x'.repeat(40_000)
    const total = 600
    // One entry at a time, the next once the reading client has the last: it gets every event…
    for (let i = 0; i < total; i++) {
      history.begin(message(1000 + i, big), 'webhook')
      await waitFor(() => liveEvents >= i + 1, {what: `event ${i + 1} at the reading client`, interval: 2})
    }
    expect(liveEvents).toBe(total)
    // …the stuck one was cut off: resumed, its stream ends having carried far fewer.
    let stuckBytes = 0
    const closed = new Promise<void>((resolve) => {
      stuck.on('close', resolve)
      stuck.on('error', () => resolve())
    })
    stuck.on('data', (c: Buffer) => (stuckBytes += c.length))
    stuck.resume()
    await closed
    expect(stuckBytes).toBeLessThan((total * big.length) / 2)
    live.destroy()
  })
})

describe('POST /api/updates/{updateId}/replay', () => {
  const headers = {'x-bot-dev-key': KEY}

  it('calls the actions and answers the new entry', async () => {
    history.begin(message(50, 'again please'), 'webhook')
    const r = await request(server.port, '/api/updates/50/replay', {method: 'POST', headers})
    expect(r.status).toBe(200)
    expect(replays).toEqual([{updateId: 50, edited: undefined}])
    expect(JSON.parse(r.body)).toMatchObject({updateId: 50, source: 'replay', replayOf: 50, preview: 'again please'})
  })

  it('passes an edited update on', async () => {
    history.begin(message(51, 'before'), 'webhook')
    const edited = message(51, 'after')
    const r = await request(server.port, '/api/updates/51/replay', {
      method: 'POST',
      headers: {...headers, 'content-type': 'application/json'},
      body: JSON.stringify(edited),
    })
    expect(r.status).toBe(200)
    expect(replays).toEqual([{updateId: 51, edited}])
    expect(JSON.parse(r.body)).toMatchObject({preview: 'after'})
  })

  it('refuses bad JSON, a non-object and an oversized body with a clear message, calling nothing', async () => {
    const bad = await request(server.port, '/api/updates/52/replay', {
      method: 'POST',
      headers,
      body: '{"update_id": 52,',
    })
    expect(bad.status).toBe(400)
    const body = JSON.parse(bad.body) as {error: string; fix: string}
    expect(body.error).toMatch(/^the edited update is not valid JSON: /)
    expect(body.fix).toBe('send the update as a JSON object, or no body to replay it unchanged')
    const array = await request(server.port, '/api/updates/52/replay', {method: 'POST', headers, body: '[1,2]'})
    expect(array.status).toBe(400)
    expect(JSON.parse(array.body)).toMatchObject({error: 'the edited update must be a JSON object'})
    const huge = await request(server.port, '/api/updates/52/replay', {
      method: 'POST',
      headers,
      body: Buffer.alloc(2 * 1024 * 1024, 32),
    })
    expect(huge.status).toBe(413)
    expect((await request(server.port, '/api/updates/52/replay', {headers})).status).toBe(405)
    expect(replays).toEqual([])
  })

  it("answers an ActionError's status with {error, fix}, and 500 for anything else", async () => {
    replayFails = new ActionError(409, 'no bot is listening right now', 'wait for the bot to restart')
    const r = await request(server.port, '/api/updates/53/replay', {method: 'POST', headers})
    expect(r.status).toBe(409)
    expect(JSON.parse(r.body)).toEqual({error: 'no bot is listening right now', fix: 'wait for the bot to restart'})
    replayFails = new Error(`boom ${TOKEN}`)
    const crash = await request(server.port, '/api/updates/53/replay', {method: 'POST', headers})
    expect(crash.status).toBe(500)
    expect(crash.body).toContain('the replay failed: boom <token>')
    // The server is still there.
    expect((await request(server.port, '/api/updates', {headers})).status).toBe(200)
  })
})
