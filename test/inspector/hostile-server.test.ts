/**
 * The inspector server against hostile requests over raw sockets: DNS-rebinding Host variants, the
 * key in unusual places, path traversal out of the page folder, request targets the URL parser
 * chokes on, huge and stalled replay bodies, a stack-deep edited update, cross-site POSTs carrying
 * the key, a replay action that never ends, and 500 SSE clients then close(). After each one the
 * server still answers a normal request.
 */
import {readFileSync} from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import type {HistoryView, UpdateEntry} from '../../src/inspector/types.js'
import {PROJECT_ROOT} from '../support/paths.js'
import {loopbackRequest} from '../support/http.js'
import {connectRaw, rawExchange, SECRET, statusOf, TOKEN, type RawConnection} from './hostile-helpers.js'
import {waitFor} from '../support/wait.js'

const KEY = 'f00dfeedc0ffee0123456789abcdef42'
const PACKAGE_JSON = readFileSync(`${PROJECT_ROOT}/package.json`, 'utf8')

let history: UpdateHistory
let subscriptions = 0
let server: InspectorServer
let replays: Array<{updateId: number | 'last'; edited?: Record<string, unknown>}> = []
let replayHangs = false

/** The history as the server sees it, counting live subscriptions (a closed server must leave none). */
function countingView(h: UpdateHistory): HistoryView {
  return {
    list: () => h.list(),
    find: (id) => h.find(id),
    last: () => h.last(),
    subscribe: (listener) => {
      subscriptions++
      const off = h.subscribe(listener)
      let done = false
      return () => {
        if (!done) subscriptions--
        done = true
        off()
      }
    },
  }
}

async function start(extra: Partial<Parameters<typeof startInspectorServer>[0]> = {}): Promise<InspectorServer> {
  return startInspectorServer({
    history: countingView(history),
    key: KEY,
    secrets: [TOKEN],
    actions: {
      replay(updateId, edited) {
        replays.push({updateId, edited})
        if (replayHangs) return new Promise<UpdateEntry>(() => {})
        return Promise.resolve(
          history.begin(edited ?? history.find(updateId as number)?.update, 'replay', updateId as number),
        )
      },
    },
    ...extra,
  })
}

function message(updateId: number, text: string): Record<string, unknown> {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1_700_000_000,
      chat: {id: 42, type: 'private'},
      from: {id: 42, is_bot: false, first_name: 'Ann'},
      text,
    },
  }
}

beforeEach(async () => {
  history = new UpdateHistory({secrets: [TOKEN]})
  history.finish(history.begin(message(100, `hello ${TOKEN}`), 'webhook'), {status: 200, body: ''}, 1)
  replays = []
  replayHangs = false
  subscriptions = 0
  server = await start()
})

afterEach(async () => {
  await server.close()
})

const request = loopbackRequest

/** A raw request: `target` and `host` exactly as given (no client normalises them). */
function raw(target: string, host: string | undefined, extra = '', version = '1.1'): Promise<string> {
  const hostLine = host === undefined ? '' : `Host: ${host}\r\n`
  return rawExchange(
    server.port,
    `GET ${target} HTTP/${version}\r\n${hostLine}x-bot-dev-key: ${KEY}\r\n${extra}Connection: close\r\n\r\n`,
  )
}

/** The list answers with the key and a loopback Host. */
async function expectServes(): Promise<void> {
  const r = await request(server.port, '/api/updates', {headers: {'x-bot-dev-key': KEY}})
  expect(r.status).toBe(200)
  expect((JSON.parse(r.body) as UpdateEntry[]).some((e) => e.updateId === 100)).toBe(true)
}

describe('inspector: Host headers (DNS rebinding)', () => {
  it('refuses every Host that is not exactly 127.0.0.1, localhost or [::1] with this port', async () => {
    const port = server.port
    const foreign = [
      `127.0.0.1.evil.com:${port}`,
      `localhost.:${port}`,
      `localhost.evil.com:${port}`,
      `evil.com:${port}`,
      'evil.com',
      `127.0.0.1:${port + 1}`,
      `127.0.0.1:0${port}`,
      '127.0.0.1',
      'localhost',
      '[::1]',
      `[0:0:0:0:0:0:0:1]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `[::1%25lo]:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `0x7f000001:${port}`,
      `0.0.0.0:${port}`,
      `127.0.0.2:${port}`,
      `127.0.0.1:${port}.evil.com`,
      `127.0.0.1:${port}@evil.com`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port}, evil.com`,
      `127.0.0.1:${port} `.trim() + '/x',
      `127.0.0.1:${port}\tx`,
      '',
    ]
    for (const host of foreign) {
      for (const target of ['/api/updates', `/?key=${KEY}`]) {
        const answer = await raw(target, host)
        expect(statusOf(answer), `Host: ${JSON.stringify(host)} ${target}`).toBe(403)
        expect(answer).not.toContain('"updateId"')
        expect(answer).not.toContain(KEY)
      }
    }
    await expectServes()
  })

  it('no Host at all: 403 over HTTP/1.0, 400 over HTTP/1.1; two Host headers: refused', async () => {
    expect(statusOf(await raw('/api/updates', undefined, '', '1.0'))).toBe(403)
    expect(statusOf(await raw('/api/updates', undefined))).toBe(400)
    expect(
      statusOf(await raw('/api/updates', 'evil.com', `Host: 127.0.0.1:${server.port}\r\n`)),
    ).toBeGreaterThanOrEqual(400)
    expect(statusOf(await raw('/api/updates', `127.0.0.1:${server.port}`, 'Host: evil.com\r\n'))).toBe(403)
    expect(statusOf(await raw('/api/updates', `127.0.0.1:${server.port}`, `Host: 127.0.0.1:${server.port}\r\n`))).toBe(
      403,
    )
    await expectServes()
  })

  it('serves 127.0.0.1, localhost and [::1] with this port, in any case', async () => {
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `LocalHost:${server.port}`,
      `[::1]:${server.port}`,
    ]) {
      expect(statusOf(await raw('/api/updates', host)), host).toBe(200)
    }
  })
})

describe('inspector: the key in unusual places', () => {
  it('only one exact key counts: the header if present, else the first ?key=', async () => {
    const cases: Array<[string, Record<string, string>, number]> = [
      [`/api/updates?key=${KEY}&key=${KEY}`, {}, 200],
      [`/api/updates?key=${KEY}&key=wrong`, {}, 200],
      [`/api/updates?key=&key=${KEY}`, {}, 401],
      [`/api/updates?key=wrong&key=${KEY}`, {}, 401],
      ['/api/updates?key=', {}, 401],
      ['/api/updates?key', {}, 401],
      [`/api/updates?KEY=${KEY}`, {}, 401],
      [`/api/updates?key[]=${KEY}`, {}, 401],
      [`/api/updates?key=${KEY}%00`, {}, 401],
      [`/api/updates?key=%20${KEY}`, {}, 401],
      [`/api/updates?key=${KEY.toUpperCase()}`, {}, 401],
      [`/api/updates?key=${KEY.slice(0, -1)}`, {}, 401],
      [`/api/updates?key=${KEY}x`, {}, 401],
      [`/api/updates;key=${KEY}`, {}, 401],
      [`/${KEY}/api/updates`, {}, 401],
      [`/api/updates?key=${KEY}`, {'x-bot-dev-key': ''}, 401],
      [`/api/updates?key=${KEY}`, {'x-bot-dev-key': 'wrong'}, 401],
      ['/api/updates', {cookie: `key=${KEY}`}, 401],
      ['/api/updates', {authorization: `Bearer ${KEY}`}, 401],
      ['/api/updates', {'x-bot-dev-key': `${KEY}, ${KEY}`}, 401],
      ['/api/updates', {'x-bot-dev-key': ` ${KEY}`}, 200], // Node trims header values: the same key
    ]
    for (const [path, headers, status] of cases) {
      const r = await request(server.port, path, {headers})
      expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(status)
      if (status !== 200) expect(r.body).not.toContain('"updateId"')
    }
    // Two x-bot-dev-key headers on the wire are joined by Node: neither counts alone.
    const twice = await rawExchange(
      server.port,
      `GET /api/updates HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-bot-dev-key: ${KEY}\r\nx-bot-dev-key: ${KEY}\r\nConnection: close\r\n\r\n`,
    )
    expect(statusOf(twice)).toBe(401)
    await expectServes()
  })

  it('every route and method needs the key, the page files and OPTIONS included', async () => {
    for (const path of [
      '/',
      '/app.js',
      '/style.css',
      '/favicon.svg',
      '/api/updates',
      '/api/updates/100',
      '/api/events',
      '/nothing',
    ]) {
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE']) {
        const r = await request(server.port, path, {method})
        expect(r.status, `${method} ${path}`).toBe(401)
        expect(r.headers['access-control-allow-origin']).toBeUndefined()
      }
    }
    const post = await request(server.port, '/api/updates/100/replay', {method: 'POST'})
    expect(post.status).toBe(401)
    expect(replays).toEqual([])
    await expectServes()
  })
})

describe('inspector: paths out of the page folder', () => {
  it('no encoding of `..`, NUL or backslash reads a file outside the three page files', async () => {
    const paths = [
      '/..%2f..%2fpackage.json',
      '/..%2F..%2Fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/%2e%2e%2f%2e%2e%2fpackage.json',
      '/../../package.json',
      '/./../package.json',
      '/.%2e/.%2e/package.json',
      '/app.js/../../package.json',
      '/app.js%2f..%2f..%2fpackage.json',
      '/app.js%00.json',
      '/app.js%00',
      '/page/app.js',
      '/index.html',
      '/server.ts',
      '/server.js',
      '//etc/passwd',
      '/..\\..\\package.json',
      '/%5c..%5c..%5cpackage.json',
      '/api/updates/..%2f..%2fpackage.json',
      '/api/updates/../../package.json',
      '/style.css/',
      '/app.js;.css',
      '/%61pp.js/..%2f..%2f..%2fpackage.json',
    ]
    for (const path of paths) {
      const answer = await raw(path, `127.0.0.1:${server.port}`)
      const status = statusOf(answer)
      expect([200, 400, 404], `${path}: ${answer.slice(0, 120)}`).toContain(status)
      expect(answer, path).not.toContain('"devDependencies"')
      expect(answer, path).not.toContain(PACKAGE_JSON.slice(0, 60))
      expect(answer, path).not.toContain('startInspectorServer')
      expect(answer, path).not.toContain('root:x:0:0')
      // A 200 is only ever the page itself (`/../..` normalises to `/`).
      if (status === 200) expect(answer, path).toContain('<tbody id="rows">')
    }
    await expectServes()
  })

  it('`/app.js/..` normalises to the page, never to a listing', async () => {
    const answer = await raw('/app.js/..', `127.0.0.1:${server.port}`)
    expect(statusOf(answer)).toBe(200)
    expect(answer).toContain('<tbody id="rows">')
  })

  it('a request target the URL parser refuses gets 400, not a 500 with an error message', async () => {
    for (const target of ['//[', '//[::1', '//evil.com:99999/api/updates', 'http://[/api/updates']) {
      const answer = await raw(target, `127.0.0.1:${server.port}`)
      expect(statusOf(answer), `${target}: ${answer.slice(0, 200)}`).toBe(400)
      expect(answer).not.toMatch(/Invalid URL|TypeError/)
    }
    // The same target with a foreign Host is a 403 before anything is parsed.
    expect(statusOf(await raw('//[', 'evil.com'))).toBe(403)
    await expectServes()
  })
})

describe('inspector: replay bodies', () => {
  it('a 64 MiB body: 413 at once, the connection cut past a bound, nothing replayed', async () => {
    const conn = await connectRaw(server.port)
    const size = 64 * 1024 * 1024
    await conn.write(
      `POST /api/updates/100/replay HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-bot-dev-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    )
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    let sent = 0
    while (!conn.closed && sent < size) {
      await new Promise<void>((resolve) => {
        if (conn.socket.write(chunk)) resolve()
        else conn.socket.once('drain', resolve).once('close', resolve)
      })
      sent += chunk.length
    }
    await conn.whenClosed()
    expect(statusOf(conn.text())).toBe(413)
    expect(sent).toBeLessThan(size)
    expect(replays).toEqual([])
    await expectServes()
  })

  it('a body that stalls: others are served meanwhile; nothing is replayed', async () => {
    const conn = await connectRaw(server.port)
    await conn.write(
      `POST /api/updates/100/replay HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-bot-dev-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"update_id"`,
    )
    await expectServes()
    expect(replays).toEqual([])
    conn.socket.destroy()
    await expectServes()
  })

  it('an edited update nested 100 000 deep (a stack bomb for anything that walks it): 400, nothing replayed', async () => {
    const depth = 100_000
    const body = `{"update_id":100,"message":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`
    const arrays = `{"update_id":100,"message":{"text":"x","entities":${'['.repeat(depth)}${']'.repeat(depth)}}}`
    for (const text of [body, arrays]) {
      const r = await request(server.port, '/api/updates/100/replay', {
        method: 'POST',
        headers: {'x-bot-dev-key': KEY, 'content-type': 'application/json'},
        body: text,
      })
      expect(r.status).toBe(400)
      expect(JSON.parse(r.body).error).toMatch(/nested/)
    }
    expect(replays).toEqual([])
    // A real update nests a few levels (a reply inside a message inside the update): still fine.
    const normal = message(100, 'edited')
    ;(normal.message as Record<string, unknown>).reply_to_message = {
      message_id: 1,
      date: 1,
      chat: {id: 42, type: 'private'},
      text: 'x',
      entities: [{type: 'bold', offset: 0, length: 1}],
    }
    const ok = await request(server.port, '/api/updates/100/replay', {
      method: 'POST',
      headers: {'x-bot-dev-key': KEY},
      body: JSON.stringify(normal),
    })
    expect(ok.status).toBe(200)
    expect(replays.length).toBe(1)
    await expectServes()
  })

  it('a `__proto__` key in the edited update pollutes nothing', async () => {
    const r = await request(server.port, '/api/updates/100/replay', {
      method: 'POST',
      headers: {'x-bot-dev-key': KEY},
      body: '{"update_id":100,"__proto__":{"polluted":1},"message":{"text":"x","constructor":{"prototype":{"polluted":2}}}}',
    })
    expect(r.status).toBe(200)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    await expectServes()
  })

  it('a replay action that never ends: the request gets 504 after the deadline, the server keeps serving', async () => {
    await server.close()
    server = await start({actionTimeoutMs: 300})
    replayHangs = true
    const r = await request(server.port, '/api/updates/100/replay', {method: 'POST', headers: {'x-bot-dev-key': KEY}})
    expect(r.status).toBe(504)
    expect(JSON.parse(r.body).error).toMatch(/no answer/)
    await expectServes()
  })
})

describe('inspector: cross-site POSTs (CSRF)', () => {
  const post = (headers: Record<string, string>) =>
    request(server.port, `/api/updates/100/replay?key=${KEY}`, {
      method: 'POST',
      headers: {'content-type': 'text/plain', ...headers},
      body: '{"update_id":100,"message":{"text":"forged"}}',
    })

  it('refuses a POST from a foreign Origin or a cross-site/same-site fetch, even with the key in the query', async () => {
    const refused: Array<Record<string, string>> = [
      {origin: 'https://evil.example'},
      {origin: 'null'},
      {origin: `http://127.0.0.1:${server.port + 1}`},
      {origin: `http://localhost:${server.port + 1}`},
      {origin: `https://127.0.0.1:${server.port}`},
      {origin: `http://127.0.0.1.evil.com:${server.port}`},
      {'sec-fetch-site': 'cross-site'},
      {'sec-fetch-site': 'same-site'},
      {'sec-fetch-site': 'cross-site', origin: `http://127.0.0.1:${server.port}`},
      {'sec-fetch-site': 'same-origin', origin: 'https://evil.example'},
    ]
    for (const headers of refused) {
      const r = await post(headers)
      expect(r.status, JSON.stringify(headers)).toBe(403)
      expect(JSON.parse(r.body).error).toMatch(/another site/)
    }
    expect(replays).toEqual([])
    await expectServes()
  })

  it('accepts the page itself (same origin), a direct request (Sec-Fetch-Site: none) and tools that send no Origin', async () => {
    const accepted: Array<Record<string, string>> = [
      {},
      {origin: `http://127.0.0.1:${server.port}`},
      {origin: `http://localhost:${server.port}`},
      {origin: `http://[::1]:${server.port}`},
      {'sec-fetch-site': 'same-origin', origin: `http://127.0.0.1:${server.port}`},
      {'sec-fetch-site': 'none'},
    ]
    for (const headers of accepted) {
      const r = await post(headers)
      expect(r.status, JSON.stringify(headers)).toBe(200)
    }
    expect(replays.length).toBe(accepted.length)
  })
})

describe('inspector: 500 SSE clients, then close()', () => {
  it('every client gets the event; close() ends all of them promptly and leaves no subscription or timer behind', async () => {
    await server.close()
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    // 500 streams with the key: more than the default bound on connections (256), which is an option.
    server = await start({heartbeatMs: 60_000, maxConnections: 1000})
    expect(subscriptions).toBe(1)
    const clients: RawConnection[] = []
    for (let i = 0; i < 500; i++) {
      const conn = await connectRaw(server.port)
      await conn.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nx-bot-dev-key: ${KEY}\r\n\r\n`)
      clients.push(conn)
    }
    await waitFor(() => clients.every((c) => c.text().includes('retry: 2000')), {
      what: 'every stream to open',
      timeout: 60_000,
    })
    history.begin(message(101, 'to everyone'), 'webhook')
    await waitFor(() => clients.every((c) => c.text().includes('"updateId":101')), {
      what: 'every client to get the entry',
      timeout: 60_000,
    })
    for (const c of clients) expect(c.text()).not.toContain(SECRET)
    // The streams never end by themselves: a close() that waited for them would never resolve (no stopwatch needed).
    await server.close()
    await waitFor(() => clients.every((c) => c.closed), {what: 'every client to be closed', timeout: 30_000})
    expect(subscriptions).toBe(0)
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore)
    // The history goes on without it, and a new server on it serves.
    history.begin(message(102, 'after'), 'webhook')
    server = await start()
    await expectServes()
  }, 180_000)
})
