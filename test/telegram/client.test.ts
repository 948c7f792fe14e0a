import {once} from 'node:events'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {BotApi, BotApiError} from '../../src/telegram/index.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const SECRET_PART = TOKEN.split(':')[1]

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A loopback HTTP server that answers with `handler` and records every request. */
async function serve(handler: Handler): Promise<{root: string; seen: Seen[]}> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({method: req.method!, url: req.url!, headers: req.headers, body})
      handler(req, res, body, seen.length)
    })
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen}
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, {'content-type': 'application/json', ...headers})
  res.end(JSON.stringify(body))
}

/** A port on loopback where nothing listens. */
async function closedPort(): Promise<number> {
  const s = createServer()
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  const {port} = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

async function failure(p: Promise<unknown>): Promise<BotApiError> {
  const e = await p.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => error,
  )
  expect(e).toBeInstanceOf(BotApiError)
  return e as BotApiError
}

function expectNoToken(...texts: Array<string | undefined>) {
  for (const t of texts) {
    expect(t ?? '').not.toContain(TOKEN)
    expect(t ?? '').not.toContain(SECRET_PART)
    expect(t ?? '').not.toContain(encodeURIComponent(TOKEN))
  }
}

function expectClean(e: BotApiError) {
  expectNoToken(e.message, e.stack, e.description, String(e), JSON.stringify(e))
}

describe('BotApi requests', () => {
  it('POSTs JSON to /bot<token>/<method> and returns result', async () => {
    const {root, seen} = await serve((_req, res) =>
      json(res, 200, {ok: true, result: {id: 123456789, is_bot: true, first_name: 'B'}}),
    )
    const api = new BotApi({token: TOKEN, apiRoot: root + '/'})
    const me = await api.getMe()
    expect(me.id).toBe(123456789)
    expect(seen).toHaveLength(1)
    expect(seen[0].method).toBe('POST')
    expect(seen[0].url).toBe(`/bot${TOKEN}/getMe`)
    expect(seen[0].headers['content-type']).toBe('application/json')
  })

  it('sends typed params as JSON, leaving undefined ones out', async () => {
    const {root, seen} = await serve((_req, res) =>
      json(res, 200, {ok: true, result: true, description: 'Webhook was set'}),
    )
    const api = new BotApi({token: TOKEN, apiRoot: root})
    await api.setWebhook({
      url: 'https://example.com/hook',
      max_connections: 5,
      allowed_updates: ['message'],
      secret_token: undefined,
    })
    expect(JSON.parse(seen[0].body)).toEqual({
      url: 'https://example.com/hook',
      max_connections: 5,
      allowed_updates: ['message'],
    })
  })

  it('uploads a certificate as multipart with its file name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-cert-'))
    const path = join(dir, 'public.pem')
    writeFileSync(path, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
    const {root, seen} = await serve((_req, res) => json(res, 200, {ok: true, result: true}))
    await new BotApi({token: TOKEN, apiRoot: root}).setWebhook({
      url: 'https://example.com/h',
      certificate: {path},
      max_connections: 3,
    })
    expect(seen[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/)
    expect(seen[0].body).toContain('filename="public.pem"')
    expect(seen[0].body).toContain('BEGIN CERTIFICATE')
    expect(seen[0].body).toMatch(/name="max_connections"\r\n\r\n3\r\n/)
  })
})

describe('BotApi errors', () => {
  it('turns {ok:false} into an api error with code and description', async () => {
    const {root} = await serve((_req, res) => json(res, 401, {ok: false, error_code: 401, description: 'Unauthorized'}))
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('api')
    expect(e.code).toBe(401)
    expect(e.description).toBe('Unauthorized')
    expect(e.method).toBe('getMe')
    expectClean(e)
  })

  it('redacts the token when a server echoes it in a description', async () => {
    const {root} = await serve((req, res) =>
      json(res, 400, {ok: false, error_code: 400, description: `Bad Request: bad path ${req.url}`}),
    )
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.description).toContain('<token>')
    expectClean(e)
  })

  it('reports an HTML 502 page as an http error, not a JSON parse error', async () => {
    const {root} = await serve((_req, res) => {
      res.writeHead(502, {'content-type': 'text/html'})
      res.end(
        '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      )
    })
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getWebhookInfo())
    expect(e.kind).toBe('http')
    expect(e.code).toBe(502)
    expect(e.description).toMatch(/HTTP 502 Bad Gateway with an HTML page/)
    expect(e.message).not.toMatch(/Unexpected token|JSON\.parse/)
    expectClean(e)
  })

  it('reports a JSON 502 envelope as an api error with code 502', async () => {
    const {root} = await serve((_req, res) => json(res, 502, {ok: false, error_code: 502, description: 'Bad Gateway'}))
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('api')
    expect(e.code).toBe(502)
  })

  it('reports an empty body', async () => {
    const {root} = await serve((_req, res) => {
      res.writeHead(500)
      res.end()
    })
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('http')
    expect(e.code).toBe(500)
    expect(e.description).toMatch(/an empty body/)
  })

  it('reports JSON that is not the Bot API envelope', async () => {
    const {root} = await serve((_req, res) => json(res, 200, {hello: 'world'}))
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('http')
    expect(e.description).toMatch(/not Bot API JSON/)
  })

  it('times out a server that never answers, within the deadline', async () => {
    const {root} = await serve(() => {
      /* never answers */
    })
    const started = performance.now()
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root, timeoutMs: 300}).getMe())
    const ms = performance.now() - started
    // The error names the deadline that ended the wait (0.3 s, not another); the server never ends it itself.
    expect(e.kind).toBe('timeout')
    expect(e.description).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3s/)
    expect(ms).toBeGreaterThanOrEqual(250)
    expectClean(e)
  })

  it('times out a body that stalls after the headers', async () => {
    const {root} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.write('{"ok":true,')
    })
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).call('getMe', {}, {timeoutMs: 300}))
    expect(e.kind).toBe('timeout')
  })

  it('gives getUpdates its long-poll time on top of the deadline', async () => {
    const {root} = await serve((_req, res) => {
      setTimeout(() => json(res, 200, {ok: true, result: []}), 500)
    })
    // Answered after 500 ms: past the 200 ms deadline alone, well within it plus the 5 s poll at any load.
    const api = new BotApi({token: TOKEN, apiRoot: root, timeoutMs: 200})
    await expect(api.getUpdates({timeout: 5})).resolves.toEqual([])
  })

  it('reports a connection reset as a network error', async () => {
    const {root} = await serve((req) => req.socket.destroy())
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('network')
    expect(e.description).toMatch(/closed before an answer arrived/)
    expectClean(e)
  })

  it('reports an answer cut before its end as a network error, not as a body that is not JSON', async () => {
    const {root} = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-length': '100'})
      res.write('{"ok":true,"result":')
      setTimeout(() => res.socket?.destroy(), 20)
    })
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('network')
    expect(e.causeCode).toBe('ECONNRESET')
    expect(e.description).toMatch(/closed before an answer arrived \(ECONNRESET\)/)
    expectClean(e)
  })

  it('reports a redirect without following it, from its Location header', async () => {
    let followed = false
    const {root} = await serve((req, res) => {
      if (req.url === '/elsewhere') followed = true
      res.writeHead(307, {location: '/elsewhere'})
      res.end()
    })
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root}).getMe())
    expect(e.kind).toBe('http')
    expect(e.code).toBe(307)
    expect(e.description).toContain('a redirect to another path on the same server')
    expect(followed).toBe(false)
    expectClean(e)
  })

  it('reports connection refused on a closed port', async () => {
    const port = await closedPort()
    const e = await failure(new BotApi({token: TOKEN, apiRoot: `http://127.0.0.1:${port}`}).getMe())
    expect(e.kind).toBe('network')
    expect(e.causeCode).toBe('ECONNREFUSED')
    expect(e.description).toBe(`connection refused by 127.0.0.1:${port} (nothing listens there)`)
    expectClean(e)
  })

  it('reports the caller aborting as aborted', async () => {
    const {root} = await serve(() => {})
    const controller = new AbortController()
    const p = new BotApi({token: TOKEN, apiRoot: root}).getMe({signal: controller.signal})
    setImmediate(() => controller.abort())
    const e = await failure(p)
    expect(e.kind).toBe('aborted')
  })

  it('never puts the token in an error, even when it is in the api root', async () => {
    const port = await closedPort()
    const e = await failure(new BotApi({token: TOKEN, apiRoot: `http://127.0.0.1:${port}/x${TOKEN}`}).getMe())
    expectClean(e)
  })
})

describe('BotApi 429 handling', () => {
  it('waits retry_after seconds and retries once', async () => {
    const {root, seen} = await serve((_req, res, _b, n) => {
      if (n === 1)
        json(
          res,
          429,
          {ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: {retry_after: 1}},
          {'retry-after': '1'},
        )
      else json(res, 200, {ok: true, result: true})
    })
    const lines: string[] = []
    const retries: unknown[] = []
    const started = performance.now()
    const api = new BotApi({
      token: TOKEN,
      apiRoot: root,
      debug: (l) => lines.push(l),
      onRetry: (info) => retries.push(info),
    })
    await expect(api.deleteWebhook()).resolves.toBe(true)
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
    expect(seen).toHaveLength(2)
    expect(lines.join('\n')).toMatch(/429, waiting 1s/)
    expect(retries).toEqual([{method: 'deleteWebhook', retryAfter: 1, attempt: 1}])
  })

  it('reads the Retry-After header when parameters are missing', async () => {
    const {root, seen} = await serve((_req, res, _b, n) => {
      if (n === 1) json(res, 429, {ok: false, error_code: 429, description: 'Too Many Requests'}, {'retry-after': '1'})
      else json(res, 200, {ok: true, result: true})
    })
    await expect(new BotApi({token: TOKEN, apiRoot: root}).deleteWebhook()).resolves.toBe(true)
    expect(seen).toHaveLength(2)
  })

  it('does not wait longer than maxRetryAfter: fails at once with retryAfter', async () => {
    const {root, seen} = await serve((_req, res) =>
      json(res, 429, {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 600',
        parameters: {retry_after: 600},
      }),
    )
    const retries: unknown[] = []
    const e = await failure(
      new BotApi({token: TOKEN, apiRoot: root, maxRetryAfter: 5, onRetry: (r) => retries.push(r)}).getMe(),
    )
    // At once: no wait begun (each is announced to onRetry) and no second request; a 600 s wait is a hang.
    expect(retries).toEqual([])
    expect(e.code).toBe(429)
    expect(e.retryAfter).toBe(600)
    expect(seen).toHaveLength(1)
  })

  it('gives up after maxRetries waits', async () => {
    const {root, seen} = await serve((_req, res) =>
      json(res, 429, {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 1',
        parameters: {retry_after: 1},
      }),
    )
    const e = await failure(new BotApi({token: TOKEN, apiRoot: root, maxRetries: 1}).getMe())
    expect(e.code).toBe(429)
    expect(seen).toHaveLength(2)
  })

  it('stops waiting when the caller aborts', async () => {
    const {root} = await serve((_req, res) =>
      json(res, 429, {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 600',
        parameters: {retry_after: 600},
      }),
    )
    const controller = new AbortController()
    // Aborted once the 600 s wait has begun (told to onRetry): only the abort can end it within the test's time.
    const p = new BotApi({
      token: TOKEN,
      apiRoot: root,
      maxRetryAfter: 600,
      onRetry: () => controller.abort(),
    }).getMe({signal: controller.signal})
    const e = await failure(p)
    expect(e.kind).toBe('aborted')
  })
})

describe('BotApi debug lines', () => {
  it('log requests and answers without the token or the webhook secret', async () => {
    const {root} = await serve((req, res) =>
      json(res, 400, {ok: false, error_code: 400, description: `echo ${req.url}`}),
    )
    const lines: string[] = []
    const api = new BotApi({token: TOKEN, apiRoot: root, debug: (l) => lines.push(l)})
    await failure(api.setWebhook({url: 'https://example.com/h', secret_token: 'my_very_secret_value'}))
    const port = await closedPort()
    await failure(new BotApi({token: TOKEN, apiRoot: `http://127.0.0.1:${port}`, debug: (l) => lines.push(l)}).getMe())
    const all = lines.join('\n')
    expect(lines.length).toBeGreaterThanOrEqual(3)
    expect(all).toContain('→ setWebhook')
    expect(all).toContain('← setWebhook 400')
    expect(all).not.toContain('my_very_secret_value')
    expectNoToken(all)
  })
})
