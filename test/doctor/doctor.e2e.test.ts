/**
 * `bot doctor` as a real process against the emulator on loopback: each failing condition
 * reproduced for real, the healthy case, exit codes, --json, and no token in any output.
 */
import {execFileSync, spawn} from 'node:child_process'
import {createServer, type Server} from 'node:http'
import {createServer as createNetServer, type AddressInfo} from 'node:net'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {writeState} from '../../src/session-store/state.js'
import {BotApi} from '../../src/telegram/index.js'
import {BIN, cliEnv} from '../support/cli.js'
import {doctorWorld, expectNoToken, report, type DoctorWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], {stdio: 'pipe'})
    return true
  } catch {
    return false
  }
}

let world: DoctorWorld
const cleanups: Array<() => Promise<void> | void> = []

beforeAll(async () => {
  world = await doctorWorld()
})
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
afterAll(async () => {
  await world.close()
})

/** A fresh bot on the shared emulator, so tests do not see each other's state. */
function freshBot(username = 'doctor_case_bot') {
  return world.emu.createBot({username})
}

function doctorFor(token: string, args: string[], env: Record<string, string | undefined> = {}) {
  return world.doctor(args, {BOT_TOKEN: token, ...env})
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createNetServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

describe('bot doctor', () => {
  it('healthy: every check passes, exit 0, and the text report has one line per check and a summary', async () => {
    const bot = freshBot('healthy_bot')
    const json = await doctorFor(bot.token, ['--json', '--probe-seconds', '3'])
    expect(json.code).toBe(0)
    const r = report(json)
    expect(r.ok).toBe(true)
    expect(r.checks.map((c) => c.id)).toEqual([
      'config',
      'reachability',
      'token',
      'delivery',
      'sessions',
      'local-pollers',
      'poller-probe',
    ])
    for (const c of r.checks) expect(c.status, `${c.id}: ${c.detail}`).toBe('ok')
    expect(r.byId.token.detail).toContain('@healthy_bot')
    expect(r.byId.delivery.detail).toContain('long polling')
    expect(r.byId['poller-probe'].detail).toMatch(/No other poller within 3 s/)
    expect(r.byId['poller-probe'].detail).toMatch(/interrupts the other poller's pending getUpdates/)
    expect(Object.keys(r.checks[0]).sort()).toEqual(['detail', 'fix', 'id', 'status', 'title'])
    expect(json.stderr).toBe('')
    expectNoToken(json, bot.token)

    const text = await doctorFor(bot.token, ['--no-probe'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^✓ Configuration$/m)
    expect(text.stdout).toMatch(/^✓ Token accepted \(getMe\)\n {4}@healthy_bot/m)
    expect(text.stdout).toMatch(/^– Concurrent pollers \(409 probe\)\n {4}Skipped \(--no-probe\)\.$/m)
    expect(text.stdout).toMatch(/^All good: 6 ok, 1 skipped in \d+\.\d s\.$/m)
    expect(text.stdout).not.toMatch(/\u001B\[/) // NO_COLOR and not a TTY: no colours
    expectNoToken(text, bot.token)
  })

  it('without the probe the API requests go out together, not one after another', async () => {
    const bot = freshBot('timing_bot')
    // A loopback proxy in front of the emulator that holds every answer until all three requests have arrived: a
    // doctor that waited for one answer before its next request would leave the first held until the proxy's
    // deadline, and the test sees which of the two released them (events, not the clock).
    const EXPECTED = ['/', '/bot<token>/getMe', '/bot<token>/getWebhookInfo']
    const arrivals: string[] = []
    let releasedBy: 'all-arrived' | 'deadline' | undefined
    let abandoned = 0
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const deadline = setTimeout(() => {
      releasedBy ??= 'deadline'
      release()
    }, 20_000)
    cleanups.push(async () => clearTimeout(deadline))
    const proxy: Server = createServer(async (req, res) => {
      // a request its client gave up on while held (a doctor that timed out one check before the next) counts
      res.on('close', () => {
        if (!res.writableEnded) abandoned++
      })
      try {
        arrivals.push((req.url ?? '').replace(/\/bot[^/]+\//, '/bot<token>/'))
        if (arrivals.length === EXPECTED.length) {
          releasedBy ??= 'all-arrived'
          release()
        }
        const chunks: Buffer[] = []
        for await (const c of req) chunks.push(c as Buffer)
        const upstream = await fetch(`${world.emu.apiRoot}${req.url}`, {
          method: req.method,
          headers: {'content-type': req.headers['content-type'] ?? 'application/json'},
          body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
        })
        const body = Buffer.from(await upstream.arrayBuffer())
        await released
        res.writeHead(upstream.status, {'content-type': upstream.headers.get('content-type') ?? 'text/plain'}).end(body)
      } catch {
        res.destroy()
      }
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise<void>((r) => proxy.close(() => r())))
    const root = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`

    const result = await doctorFor(bot.token, ['--no-probe'], {BOT_API_ROOT: root})
    expect(result.code).toBe(0)
    expect([...arrivals].sort()).toEqual(EXPECTED)
    // all three were in flight at once: the last arrived while the first two were still held
    expect(releasedBy).toBe('all-arrived')
    expect(abandoned).toBe(0)
    expectNoToken(result, bot.token)
  })

  it('reachability shows the latency and notes proxy variables without their credentials', async () => {
    const bot = freshBot('proxy_bot')
    const result = await doctorFor(bot.token, ['--json', '--only', 'reachability'], {
      HTTPS_PROXY: 'http://alice:s3cret@proxy.internal:3128',
      NO_PROXY: 'localhost',
    })
    const r = report(result).byId.reachability
    expect(r.status).toBe('ok')
    expect(r.detail).toMatch(new RegExp(`^HTTP: 127\\.0\\.0\\.1:\\d+ answered \\d{3} in \\d+ ms$`, 'm'))
    expect(r.detail).toMatch(
      /^proxy variables set \(HTTPS_PROXY=http:\/\/proxy\.internal:3128, NO_PROXY=localhost\), but 127\.0\.0\.1:\d+ is loopback: bot connects to it directly$/m,
    )
    expect(r.detail).not.toContain('s3cret')
    expect(r.detail).not.toContain('alice')
  })

  it('revoked token (401): the token check fails with the @BotFather fix; API checks after it are skipped; exit 1', async () => {
    const bot = freshBot('revoked_bot')
    world.emu.revokeToken(bot.token)
    const result = await doctorFor(bot.token, ['--json', '--no-probe'])
    expect(result.code).toBe(1)
    const r = report(result)
    expect(r.ok).toBe(false)
    expect(r.byId.config.status).toBe('ok') // well-formed, just not valid any more
    expect(r.byId.token.status).toBe('fail')
    expect(r.byId.token.detail).toContain('401')
    expect(r.byId.token.fix).toMatch(/wrong or was revoked.*@BotFather/)
    expect(r.byId.delivery.status).toBe('skipped')
    expect(r.byId.sessions.status).toBe('skipped')
    expectNoToken(result, bot.token)

    const text = await doctorFor(bot.token, ['--no-probe'])
    expect(text.code).toBe(1)
    expect(text.stdout).toMatch(/^✗ Token accepted \(getMe\)$/m)
    expect(text.stdout).toMatch(/^ {4}→ The token is wrong or was revoked/m)
    expect(text.stdout).toMatch(/^Problems found: 1 failed/m)
    expectNoToken(text, bot.token)
  })

  it('malformed token: config names the problem, and it is never sent (no getMe)', async () => {
    const token = '123456789:too-short'
    const result = await doctorFor(token, ['--json'])
    expect(result.code).toBe(1)
    const r = report(result)
    expect(r.byId.config.status).toBe('fail')
    expect(r.byId.config.detail).toMatch(/malformed: the part after ":"/)
    expect(r.byId.token.status).toBe('fail')
    expect(r.byId.token.detail).toMatch(/Not sent: the token is malformed/)
    expect(r.byId.token.fix).toMatch(/@BotFather/)
    expect(r.byId['poller-probe'].status).toBe('skipped')
    expectNoToken(result, token)
  })

  it('no token at all: config fails with where to get one, the API checks are skipped, exit 1 (not a usage error)', async () => {
    const result = await world.doctor(['--json'], {BOT_TOKEN: undefined})
    expect(result.code).toBe(1)
    const r = report(result)
    expect(r.byId.config.status).toBe('fail')
    expect(r.byId.config.fix).toContain('@BotFather')
    expect(r.byId.reachability.status).toBe('ok')
    expect(r.byId.token.status).toBe('skipped')
  })

  it('unreachable api root (a closed loopback port): reachability fails on the refusal (not its deadline) with the fix; exit 1', async () => {
    const bot = freshBot('unreachable_bot')
    const port = await closedPort()
    const result = await doctorFor(bot.token, ['--json'], {BOT_API_ROOT: `http://127.0.0.1:${port}`})
    expect(result.code).toBe(1)
    const r = report(result)
    expect(r.byId.reachability.status).toBe('fail')
    expect(r.byId.reachability.detail).toContain(`cannot connect to 127.0.0.1:${port}`)
    expect(r.byId.reachability.detail).toContain('ECONNREFUSED')
    expect(r.byId.reachability.fix).toContain(`http://127.0.0.1:${port}`)
    expect(r.byId.token.status).toBe('skipped')
    expect(r.byId['poller-probe'].status).toBe('skipped')
    // Fast, shown by what ended the wait: the refused connection (ECONNREFUSED above, the check makes one request and
    // never retries), not the check's 10 s deadline, which would report "no answer … within 10 s" instead.
    expect(r.byId.reachability.detail).not.toMatch(/no answer|did not finish/)
    expectNoToken(result, bot.token)
  })

  it('a webhook with a delivery error (the receiver answers 500): delivery fails with the error explained', async () => {
    const bot = freshBot('webhook_error_bot')
    const receiver: Server = createServer((req, res) => {
      req.resume()
      res.writeHead(500).end('boom')
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise<void>((r) => receiver.close(() => r())))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    await new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).setWebhook({url})
    world.emu.sendUserMessage(bot.token, {text: 'hello'})
    await waitFor(() => Boolean(world.emu.getWebhookInfo(bot.token).last_error_message), {
      what: 'the emulator to record a delivery error',
    })

    const result = await doctorFor(bot.token, ['--json'])
    expect(result.code).toBe(1)
    const r = report(result)
    const d = r.byId.delivery
    expect(d.status).toBe('fail')
    expect(d.detail).toContain(`mode: webhook → ${url}`)
    expect(d.detail).toContain('Wrong response from the webhook: 500')
    expect(d.detail).toMatch(/the bot crashed or threw/)
    expect(d.detail).toMatch(/pending updates: [1-9]/)
    expect(d.detail).toContain('TLS: check skipped (http URL')
    expect(d.fix).toMatch(/bot's logs/)
    // A webhook means getUpdates gets 409 "webhook is active": a delivery finding, not a poller.
    expect(r.byId['poller-probe'].status).toBe('skipped')
    expect(r.byId['poller-probe'].detail).toMatch(/webhook is set.*not a second poller/)
    expectNoToken(result, bot.token)
  })

  it('a stale dev session (dead pid, its webhook still set): sessions fails with the fix', async () => {
    const bot = freshBot('stale_session_bot')
    // A pid that surely is dead: a process we started and saw exit.
    const gone = spawn(process.execPath, ['-e', '0'])
    const deadPid = gone.pid!
    await new Promise((r) => gone.on('exit', r))
    const url = `http://127.0.0.1:${await closedPort()}/dev-hook`
    await new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).setWebhook({url})
    writeState(
      {
        version: 1,
        botId: bot.id,
        botUsername: bot.username,
        pid: deadPid,
        startedAt: new Date().toISOString(),
        cwd: '/tmp/my-bot',
        mode: 'webhook',
        apiRoot: world.emu.apiRoot,
        webhook: {url},
      },
      world.stateDir,
    )
    cleanups.push(() =>
      new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).deleteWebhook().then(() => undefined),
    )

    const result = await doctorFor(bot.token, ['--json', '--no-probe'])
    expect(result.code).toBe(1)
    const s = report(result).byId.sessions
    expect(s.status).toBe('fail')
    expect(s.detail).toContain(`pid ${deadPid}`)
    expect(s.detail).toContain('is gone but its webhook is still set')
    expect(s.fix).toContain('bot webhook delete')
    expect(s.fix).toContain('bot dev')
    expect(s.fix).toContain('/tmp/my-bot')
    expectNoToken(result, bot.token)

    // Once the webhook is gone, the leftover state file is harmless.
    await new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).deleteWebhook()
    const after = await doctorFor(bot.token, ['--json', '--only', 'token,sessions'])
    expect(report(after).byId.sessions.status).toBe('ok')
    expect(after.code).toBe(0)
  })

  it('a working webhook whose allowed_updates leave out messages: delivery warns (exit 0) and says how to fix it', async () => {
    const bot = freshBot('allowed_bot')
    const receiver: Server = createServer((req, res) => {
      req.resume()
      res.writeHead(200).end()
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise<void>((r) => receiver.close(() => r())))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ok`
    await new BotApi({token: bot.token, apiRoot: world.emu.apiRoot}).setWebhook({
      url,
      allowed_updates: ['callback_query'],
    })
    const result = await doctorFor(bot.token, ['--json', '--only', 'token,delivery'])
    const d = report(result).byId.delivery
    expect(d.status).toBe('warn')
    expect(d.detail).toContain('allowed_updates: callback_query: messages are NOT delivered')
    expect(d.detail).toContain('pending updates: 0')
    expect(d.fix).toContain('--allowed-updates message')
    expect(result.code).toBe(0)
  })

  it('a running dev session is reported as running, not stale', async () => {
    const bot = freshBot('live_session_bot')
    writeState(
      {
        version: 1,
        botId: bot.id,
        pid: process.pid,
        startedAt: new Date().toISOString(),
        cwd: '/tmp/live',
        mode: 'polling',
        apiRoot: world.emu.apiRoot,
      },
      world.stateDir,
    )
    const s = report(await doctorFor(bot.token, ['--json', '--only', 'token,sessions'])).byId.sessions
    expect(s.status).toBe('ok')
    expect(s.detail).toContain(`\`bot dev\` (pid ${process.pid}`)
    expect(s.detail).toContain('is running')
  })

  it('the probe confirms no update: pending updates are the same before and after', async () => {
    const bot = freshBot('pending_bot')
    world.emu.sendUserMessage(bot.token, {text: 'one'})
    world.emu.sendUserMessage(bot.token, {text: 'two'})
    const before = world.emu.pendingUpdates(bot.token).map((u) => u.update_id)
    expect(before).toHaveLength(2)
    const result = await doctorFor(bot.token, ['--json', '--only', 'token,poller-probe', '--probe-seconds', '3'])
    expect(world.emu.pendingUpdates(bot.token).map((u) => u.update_id)).toEqual(before)
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('warn')
    expect(probe.detail).toMatch(/updates are waiting that nobody takes/)
    expect(result.code).toBe(0) // warnings allowed
    for (const call of world.emu.calls(bot.token).filter((c) => c.method === 'getUpdates')) {
      expect(call.params.offset).toBeUndefined()
      expect(call.params.allowed_updates).toBeUndefined()
      expect(Number(call.params.limit)).toBe(1)
    }
  })

  it('--only / --skip select checks; --list-checks lists them', async () => {
    const bot = freshBot('select_bot')
    const only = report(await doctorFor(bot.token, ['--json', '--only', 'config', '--only', 'token']))
    expect(only.checks.map((c) => c.id)).toEqual(['config', 'token'])
    const skip = report(await doctorFor(bot.token, ['--json', '--skip', 'poller-probe,local-pollers']))
    expect(skip.checks.map((c) => c.id)).toEqual(['config', 'reachability', 'token', 'delivery', 'sessions'])
    const list = await doctorFor(bot.token, ['--list-checks'])
    expect(list.code).toBe(0)
    expect(
      list.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['config', 'reachability', 'token', 'delivery', 'sessions', 'local-pollers', 'poller-probe'])
  })

  it('bad flags exit 2 with one line naming the value, before any API call', async () => {
    const bot = freshBot('flags_bot')
    for (const args of [
      ['--only', 'nope'],
      ['--skip', 'config,bogus'],
      ['--probe-seconds', '1'],
      ['--probe-seconds', 'abc'],
      ['--api-root', 'ftp://x'],
    ]) {
      const result = await doctorFor(bot.token, args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/^✗ /)
      expectNoToken(result, bot.token)
    }
    expect(world.emu.calls(bot.token)).toEqual([])
  })

  it.skipIf(!hasScript())('colours only on a TTY (under `script`), and not with NO_COLOR', async () => {
    const bot = freshBot('tty_bot')
    // Async: the emulator runs in this process and must keep answering.
    const onTty = (env: Record<string, string | undefined>) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn('script', ['-qec', `${process.execPath} ${BIN} doctor --only config,token`, '/dev/null'], {
          env: cliEnv({
            env: {BOT_TOKEN: bot.token, BOT_API_ROOT: world.emu.apiRoot, BOT_STATE_DIR: world.stateDir, ...env},
          }),
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
        const timer = setTimeout(() => child.kill('SIGKILL'), 40_000) // a hung run only (two fit in the test's 90 s)
        child.on('error', reject)
        child.on('close', () => {
          clearTimeout(timer)
          resolve(out)
        })
      })
    const coloured = await onTty({NO_COLOR: undefined})
    expect(coloured).toContain('\u001B[32m✓\u001B[39m \u001B[1mToken accepted (getMe)\u001B[22m')
    expect(coloured).not.toContain(bot.token.slice(bot.token.indexOf(':') + 1))
    const plain = await onTty({NO_COLOR: '1'})
    expect(plain).toMatch(/✓ Token accepted/)
    expect(plain).not.toContain('\u001B[')
  })

  it("back-to-back probes on an idle bot both find nothing (the probe's own 409 does not look like another poller)", async () => {
    const bot = freshBot('twice_bot')
    for (let i = 0; i < 2; i++) {
      const result = await doctorFor(bot.token, ['--json', '--only', 'token,poller-probe', '--probe-seconds', '3'])
      expect(report(result).byId['poller-probe'].status, `run ${i + 1}`).toBe('ok')
    }
  })
})
