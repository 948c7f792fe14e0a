/**
 * Items 13 and 14 (and item 2's first half): bad input exits 2 with one line and a fix, before
 * anything is sent, set, started or written. Every command runs as a real process against a
 * loopback api root that records each request: it must see none.
 */
import {once} from 'node:events'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createServer, type Server} from 'node:net'
import type {AddressInfo} from 'node:net'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {runCli, type CliResult} from '../support/cli.js'
import {recordingServer, type RecordingServer} from '../support/loopback-servers.js'

const GOOD = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const BAD_TOKENS = ['has space 123:abc', '123:short', '../../etc/passwd']
const BOT = ['--', process.execPath, '-e', 'setInterval(() => {}, 1000)']

let api: RecordingServer
beforeAll(async () => {
  api = await recordingServer()
})
afterAll(async () => {
  await api.close()
})
afterEach(() => {
  api.requests.length = 0
})

const listeners: Server[] = []
afterEach(async () => {
  for (const s of listeners.splice(0)) await new Promise((r) => s.close(r))
})

/** A port some other program listens on (127.0.0.1). */
async function busyPort(host = '127.0.0.1'): Promise<number> {
  const s = createServer()
  s.listen(0, host)
  await once(s, 'listening')
  listeners.push(s)
  return (s.address() as AddressInfo).port
}

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, {
    env: {BOT_TOKEN: GOOD, BOT_API_ROOT: api.url, BOT_STATE_DIR: '/nonexistent/never-written', ...env},
  })
}

/** Exit 2, one "✗ …" line and one fix line on stderr, nothing on stdout, no request. */
function expectRefused(r: CliResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2)
  const lines = r.stderr.trim().split('\n')
  expect(lines, r.stderr).toHaveLength(2)
  expect(lines[0]).toMatch(/^✗ /)
  expect(lines[0]).toMatch(message)
  expect(lines[1]).toMatch(/^ {2}\S/)
  expect(r.stdout).toBe('')
  expect(api.requests).toEqual([])
}

describe('a malformed token is refused by every command before any request', () => {
  const commands: Array<[string, string[]]> = [
    ['bot dev', ['dev', ...BOT]],
    ['bot webhook set', ['webhook', 'set', 'https://example.com/hook']],
    ['bot webhook info', ['webhook', 'info']],
    ['bot webhook delete', ['webhook', 'delete']],
  ]
  for (const [name, args] of commands)
    for (const token of BAD_TOKENS)
      it(`${name} with ${JSON.stringify(token)}`, async () => {
        const r = await run(args, {BOT_TOKEN: token})
        expectRefused(r, /^✗ The bot token \(BOT_TOKEN\) is malformed: /)
        expect(r.stderr).toMatch(/@BotFather/)
        expect(r.stderr).not.toContain(token)
      })

  it('the source is named: --token', async () => {
    const r = await run(['webhook', 'info', '--token', '123:short'])
    expectRefused(r, /The bot token \(--token\) is malformed: the part after ":"/)
  })

  it('bot doctor sends nothing with a malformed token either (the token check says why)', async () => {
    const r = await runCli(['doctor', '--json', '--no-probe'], {env: {BOT_TOKEN: '123:short', BOT_API_ROOT: api.url}})
    expect(r.code).toBe(1)
    const checks = Object.fromEntries(
      (JSON.parse(r.stdout) as {checks: Array<{id: string; status: string; detail: string}>}).checks.map((c) => [
        c.id,
        c,
      ]),
    )
    expect(checks.config.status).toBe('fail')
    expect(checks.token.status).toBe('fail')
    expect(checks.token.detail).toMatch(/Not sent: the token is malformed/)
    // Only the reachability check's GET / (which carries no token) reached the server.
    expect(api.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /'])
  })
})

describe('an explicit empty value is an error, not the default', () => {
  for (const flag of ['--public-url', '--tunnel-host', '--subdomain'])
    it(`bot dev ${flag} ''`, async () => {
      const r = await run(['dev', flag, '', ...BOT])
      expectRefused(r, new RegExp(`^✗ ${flag} is empty`))
    })

  for (const name of ['BOT_PUBLIC_URL', 'BOT_TUNNEL_HOST', 'BOT_TUNNEL_SUBDOMAIN'])
    it(`bot dev with ${name} set but empty (environment, then .env)`, async () => {
      expectRefused(await run(['dev', ...BOT], {[name]: ''}), new RegExp(`^✗ ${name} is empty`))
      const cwd = mkdtempSync(join(tmpdir(), 'bot-bad-input-'))
      writeFileSync(join(cwd, '.env'), `${name}=\n`)
      const r = await runCli(['dev', ...BOT], {cwd, env: {BOT_TOKEN: GOOD, BOT_API_ROOT: api.url}})
      expectRefused(r, new RegExp(`^✗ ${name} in \\.env is empty`))
    })

  it("bot dev --subdomain '' with a tunnel host: the tunnel server is never asked", async () => {
    const tunnel = await recordingServer()
    try {
      const r = await run(['dev', '--tunnel-host', tunnel.url, '--subdomain', '', ...BOT])
      expectRefused(r, /--subdomain is empty/)
      expect(tunnel.requests).toEqual([])
    } finally {
      await tunnel.close()
    }
  })

  it("bot doctor --api-root '' and --token ''", async () => {
    expectRefused(await run(['doctor', '--api-root', '']), /--api-root is empty/)
    expectRefused(await run(['doctor', '--token', '']), /--token is empty/)
  })

  it("bot emulator --host '' (it listened on every interface)", async () => {
    const r = await runCli(['emulator', '--host', '', '--port', '0'], {timeoutMs: 90_000})
    expect(r.timedOut).toBe(false)
    expectRefused(r, /--host is empty/)
  })
})

describe('bot dev: values checked before anything is set', () => {
  for (const value of ['2147484', '99999999999', '0', '-5', 'abc'])
    it(`--hold-timeout ${value}`, async () => {
      const r = await run(['dev', '--hold-timeout', value, ...BOT])
      expectRefused(r, /hold-timeout/)
    })

  it('--hold-timeout at the timer limit is accepted (the token check then runs)', async () => {
    const r = await run(['dev', '--hold-timeout', '2147483', ...BOT], {BOT_TOKEN: '123:short'})
    expectRefused(r, /The bot token/)
  })

  it('`bot dev --` with no command: exit 2, the webhook never set', async () => {
    const r = await run(['dev', '--'])
    expectRefused(r, /^✗ No bot command after `--`/)
  })

  it('a --port another program listens on', async () => {
    const port = await busyPort()
    const r = await run(['dev', '--port', String(port), ...BOT])
    expectRefused(r, new RegExp(`^✗ --port ${port} is already in use on 127\\.0\\.0\\.1`))
  })

  it('a --port another program listens on, on every interface', async () => {
    const port = await busyPort('0.0.0.0')
    expectRefused(await run(['dev', '--port', String(port), ...BOT]), /--port \d+ is already in use/)
  })

  it('a --relay-port in use: one line, not a raw EADDRINUSE', async () => {
    const port = await busyPort()
    const r = await run(['dev', '--relay-port', String(port), ...BOT])
    expectRefused(r, new RegExp(`^✗ --relay-port ${port} is already in use`))
    expect(r.stderr).not.toMatch(/EADDRINUSE/)
  })

  it('--port equal to --relay-port', async () => {
    expectRefused(
      await run(['dev', '--port', '45678', '--relay-port', '45678', ...BOT]),
      /--port and --relay-port are both 45678/,
    )
  })

  it('the same checks hold offline', async () => {
    const port = await busyPort()
    expectRefused(
      await run(['dev', '--offline', '--relay-port', String(port), ...BOT]),
      /--relay-port \d+ is already in use/,
    )
    expectRefused(await run(['dev', '--offline', '--']), /No bot command after `--`/)
  })
})
