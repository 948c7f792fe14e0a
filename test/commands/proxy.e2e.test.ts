/**
 * Behind a proxy, end to end (real processes, needs `npm run build`): `bot webhook info` and
 * `bot doctor` reach the Bot API through HTTPS_PROXY / HTTP_PROXY, a forward proxy on loopback
 * (test/support/proxy.ts) that records what it saw. The api root is a made-up name
 * (https://api.telegram.test) that only the proxy maps: to a TLS front on loopback (a
 * certificate for that name, trusted through NODE_EXTRA_CA_CERTS) that passes requests to the
 * emulator. So a request that did not go through the proxy cannot succeed. NO_PROXY matching
 * it: direct; loopback: never proxied; a proxy that refuses or asks for credentials: one line
 * naming it, exit 1.
 */
import {once} from 'node:events'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {request} from 'node:http'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import {createServer} from 'node:net'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput, PROJECT_ROOT, runCli, startCli} from '../support/cli.js'
import {startProxy, type TestProxy} from '../support/proxy.js'
import {selfSignedCert} from '../support/tls.js'
import {waitFor} from '../support/wait.js'

const ROOT = 'https://api.telegram.test'
let emu: BotApiEmulator
let emuPort: number
let front: HttpsServer
let frontPort: number
let caFile: string
const proxies: TestProxy[] = []

beforeAll(async () => {
  // the proxy maps api.telegram.test to it: a name it serves besides its loopback ones
  emu = await BotApiEmulator.start({timeScale: 0.01, allowedHosts: ['api.telegram.test']})
  emuPort = Number(new URL(emu.apiRoot).port)
  const dir = mkdtempSync(join(tmpdir(), 'bot-proxy-tls-'))
  const {keyFile, certFile} = selfSignedCert(dir, {cn: 'api.telegram.test', san: 'DNS:api.telegram.test'})
  caFile = certFile
  // The TLS front: https://api.telegram.test (as the proxy routes it) → the emulator over http.
  front = createHttpsServer({key: readFileSync(keyFile), cert: readFileSync(caFile)}, (req, res) => {
    const upstream = request(
      {host: '127.0.0.1', port: emuPort, method: req.method, path: req.url, headers: req.headers},
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  front.listen(0, '127.0.0.1')
  await once(front, 'listening')
  frontPort = (front.address() as AddressInfo).port
})
afterAll(async () => {
  front?.closeAllConnections()
  await new Promise((r) => front?.close(r))
  await emu.stop()
})
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close()
})

/** A proxy that knows api.telegram.test: port 443 is the TLS front, port 80 the emulator itself. */
async function proxy(options: {auth?: string; plain?: boolean} = {}): Promise<TestProxy> {
  const p = await startProxy({hosts: {'api.telegram.test': options.plain ? emuPort : frontPort}, auth: options.auth})
  proxies.push(p)
  return p
}

async function closedPort(): Promise<number> {
  const s = createServer()
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  const {port} = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

function bot(env: Record<string, string>, args: string[]) {
  return runCli(args, {
    env: {BOT_STATE_DIR: '/nonexistent-bot-state', NODE_EXTRA_CA_CERTS: caFile, ...env},
    timeoutMs: 90_000,
  })
}

describe('bot behind a proxy', () => {
  it('bot webhook info goes through HTTPS_PROXY (CONNECT to the api host), token never seen by the proxy', async () => {
    const p = await proxy()
    const {token} = emu.createBot({username: 'proxy_info_bot'})
    const r = await bot({BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: p.url, HTTP_PROXY: p.url}, [
      'webhook',
      'info',
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/long polling \(no webhook set/)
    expect(p.seen.length).toBeGreaterThan(0)
    for (const s of p.seen)
      expect(s).toMatchObject({method: 'CONNECT', host: 'api.telegram.test', port: 443, status: 200})
    expect(JSON.stringify(p.seen)).not.toContain(token.split(':')[1])
    expect(emu.calls(token).map((c) => c.method)).toContain('getWebhookInfo')
  })

  it('an http:// api root goes through HTTP_PROXY (lower-case http_proxy honoured), not HTTPS_PROXY', async () => {
    const p = await proxy({plain: true})
    const {token} = emu.createBot()
    const r = await bot({BOT_TOKEN: token, BOT_API_ROOT: 'http://api.telegram.test', http_proxy: p.url}, [
      'webhook',
      'info',
    ])
    expect(r.code, r.stderr).toBe(0)
    expect(p.seen.map((s) => `${s.host}:${s.port}`)).toContain('api.telegram.test:80')
    // HTTPS_PROXY alone does not apply to http://, so the made-up name is looked up here and fails.
    const https = await bot({BOT_TOKEN: token, BOT_API_ROOT: 'http://api.telegram.test', HTTPS_PROXY: p.url}, [
      'webhook',
      'info',
    ])
    expect(https.code).toBe(1)
    expect(https.stderr).toMatch(/cannot resolve the host name api\.telegram\.test/)
  })

  it('bot doctor --no-probe: token and webhook checks pass through the proxy, reachability names it', async () => {
    const p = await proxy()
    const {token} = emu.createBot({username: 'proxy_doctor_bot'})
    const r = await bot(
      {
        BOT_TOKEN: token,
        BOT_API_ROOT: ROOT,
        HTTPS_PROXY: `http://alice:s3cret@127.0.0.1:${p.port}`,
        HTTP_PROXY: 'http://127.0.0.1:9',
      },
      ['doctor', '--no-probe', '--json'],
    )
    const report = parseJsonOutput<{checks: Array<{id: string; status: string; detail?: string}>}>(r)
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]))
    expect(byId.reachability.status, byId.reachability.detail).toBe('ok')
    expect(byId.reachability.detail).toMatch(/^HTTP: api\.telegram\.test answered \d{3} in \d+ ms$/m)
    expect(byId.reachability.detail).toContain(
      `proxy: bot reaches api.telegram.test through http://127.0.0.1:${p.port} (HTTPS_PROXY); a bot library needs its own proxy agent`,
    )
    expect(byId.token.status, byId.token.detail).toBe('ok')
    expect(r.stdout + r.stderr).not.toContain('s3cret')
    expect(p.seen.filter((s) => s.host === 'api.telegram.test').length).toBeGreaterThanOrEqual(2)
    expect(emu.calls(token).map((c) => c.method)).toContain('getMe')
  })

  it('NO_PROXY naming the host: the CLI goes direct (so it cannot resolve the made-up name), the proxy sees nothing', async () => {
    const p = await proxy()
    const {token} = emu.createBot()
    const r = await bot(
      {
        BOT_TOKEN: token,
        BOT_API_ROOT: ROOT,
        HTTPS_PROXY: p.url,
        HTTP_PROXY: p.url,
        NO_PROXY: 'example.org,api.telegram.test',
      },
      ['webhook', 'info'],
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/cannot resolve the host name api\.telegram\.test/)
    expect(p.seen).toEqual([])
  })

  it('loopback is never proxied (no NO_PROXY needed)', async () => {
    const p = await proxy()
    const {token} = emu.createBot()
    const r = await bot({BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, HTTPS_PROXY: p.url, HTTP_PROXY: p.url}, [
      'webhook',
      'info',
    ])
    expect(r.code, r.stderr).toBe(0)
    const d = await bot(
      {BOT_TOKEN: token, BOT_API_ROOT: `http://localhost:${emuPort}`, HTTPS_PROXY: p.url, HTTP_PROXY: p.url},
      ['doctor', '--no-probe', '--json'],
    )
    expect(d.stdout).toMatch(/is loopback: bot connects to it directly/)
    expect(p.seen).toEqual([])
  })

  it('a proxy that refuses: one line naming the proxy (host:port, no credentials) and the fix, exit 1', async () => {
    const port = await closedPort()
    const {token} = emu.createBot()
    const r = await bot({BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: `http://bob:pa55word@127.0.0.1:${port}`}, [
      'webhook',
      'info',
    ])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trim().split('\n')
    expect(lines).toEqual([
      `✗ Cannot reach the Bot API at ${ROOT}: the proxy 127.0.0.1:${port} (HTTPS_PROXY) refused the connection (nothing listens there).`,
      '  Check HTTPS_PROXY (a running proxy, credentials as http://user:password@host:port), or add api.telegram.test to NO_PROXY if it is reachable directly.',
    ])
    expect(r.stderr).not.toMatch(/fetch failed|pa55word|bob/)
    // bot doctor: the reachability check names the proxy, not the api host, as what refused.
    const d = await bot({BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: `http://bob:pa55word@127.0.0.1:${port}`}, [
      'doctor',
      '--no-probe',
      '--json',
      '--only',
      'reachability',
    ])
    expect(d.code).toBe(1)
    const check = parseJsonOutput<{checks: Array<{id: string; status: string; detail: string; fix?: string}>}>(d)
      .checks[0]
    expect(check).toMatchObject({id: 'reachability', status: 'fail'})
    expect(check.detail.split('\n')[0]).toBe(
      `HTTP: no answer through the proxy: the proxy 127.0.0.1:${port} (HTTPS_PROXY) refused the connection (nothing listens there)`,
    )
    expect(check.fix).toMatch(/^Check HTTPS_PROXY/)
    expect(d.stdout).not.toContain('pa55word')
  })

  it('a proxy answering 407: one line saying it wants credentials; with them in the URL, it works', async () => {
    const p = await proxy({auth: 'carol:k3y'})
    const {token} = emu.createBot()
    const denied = await bot({BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: p.url}, ['webhook', 'info'])
    expect(denied.code).toBe(1)
    expect(denied.stderr.split('\n')[0]).toBe(
      `✗ Cannot reach the Bot API at ${ROOT}: the proxy 127.0.0.1:${p.port} (HTTPS_PROXY) asks for credentials (407 Proxy Authentication Required).`,
    )
    const allowed = await bot(
      {BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: `http://carol:k3y@127.0.0.1:${p.port}`},
      ['webhook', 'info'],
    )
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(p.seen.at(-1)).toMatchObject({method: 'CONNECT', credentials: 'carol:k3y', status: 200})
    expect(allowed.stdout + allowed.stderr).not.toContain('k3y')
  })

  it('a proxy variable that is not an http(s) proxy URL: exit 2 naming it, nothing sent', async () => {
    const {token} = emu.createBot()
    const before = emu.calls(token).length
    const r = await bot({BOT_TOKEN: token, BOT_API_ROOT: ROOT, HTTPS_PROXY: 'socks5://127.0.0.1:1080'}, [
      'webhook',
      'info',
    ])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')[0]).toBe('✗ HTTPS_PROXY uses socks5://, which bot does not support.')
    expect(emu.calls(token).length).toBe(before)
    // bot doctor reports it (and connects directly, as nothing was installed).
    const d = await bot({BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, HTTPS_PROXY: 'socks5://127.0.0.1:1080'}, [
      'doctor',
      '--no-probe',
      '--json',
      '--only',
      'reachability',
    ])
    expect(d.stdout).toContain('proxy: HTTPS_PROXY uses socks5://, which bot does not support; bot connects directly')
  })

  it('bot dev --tunnel none: the bridge takes the updates through the proxy and the bot gets them', async () => {
    const p = await proxy()
    const {token} = emu.createBot()
    const dir = mkdtempSync(join(tmpdir(), 'bot-proxy-dev-'))
    const record = join(dir, 'record.txt')
    const dev = startCli(
      [
        'dev',
        '--tunnel',
        'none',
        '--no-watch',
        '--',
        'node',
        join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'echo-bot.mjs'),
      ],
      {
        cwd: dir,
        timeoutMs: 90_000,
        env: {
          BOT_TOKEN: token,
          BOT_API_ROOT: ROOT,
          HTTPS_PROXY: p.url,
          NODE_EXTRA_CA_CERTS: caFile,
          BOT_STATE_DIR: join(dir, 'state'),
          FIXTURE_RECORD: record,
        },
      },
    )
    try {
      await dev.waitForOutput(/Ready: updates reach the bot through the polling bridge/, {timeoutMs: 40_000})
      const sent = emu.sendUserMessage(token, {text: 'through the proxy', chatId: 5})
      await waitFor(() => existsSync(record) && readFileSync(record, 'utf8').includes(`${sent.update_id} `), {
        what: "the update in the bot's record",
        timeout: 20_000,
      })
      expect(readFileSync(record, 'utf8')).toContain(`${sent.update_id} 5 webhook`)
    } finally {
      dev.kill('SIGINT')
    }
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    expect(emu.calls(token).map((c) => c.method)).toContain('getUpdates')
    expect(emu.webhook(token)).toBeUndefined()
    expect(p.seen.length).toBeGreaterThan(0)
    expect(p.seen.every((s) => s.method === 'CONNECT' && s.host === 'api.telegram.test' && s.port === 443)).toBe(true)
  })
})
