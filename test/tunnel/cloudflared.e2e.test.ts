/**
 * The cloudflared provider against the loopback stand-in (test/support/fake-cloudflared.mjs), run as
 * a real process found on PATH or through BOT_CLOUDFLARED.
 */
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cloudflaredProvider, createProvider, TunnelError, type CloudflaredTunnel} from '../../src/tunnel/index.js'
import {alive, FAKE_CLOUDFLARED, fakeCloudflaredBin, type FakeBin} from './fake-cloudflared.js'
import {startEchoServer, type EchoServer} from './helpers.js'
import {waitFor} from '../support/wait.js'

let bin: FakeBin
let echo: EchoServer
beforeAll(async () => {
  bin = fakeCloudflaredBin()
  echo = await startEchoServer()
})
afterAll(async () => {
  bin.remove()
  await echo.close()
})

async function openError(promise: Promise<unknown>): Promise<TunnelError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(TunnelError)
    return err as TunnelError
  }
  throw new Error('expected open() to fail')
}

describe('cloudflared provider', () => {
  it('runs `cloudflared tunnel --no-autoupdate --url http://127.0.0.1:PORT`, takes the URL from the banner, is ready after "Registered", forwards', async () => {
    const argvFile = path.join(bin.dir, 'argv.json')
    const provider = createProvider('cloudflared', {
      env: bin.env({
        FAKE_CLOUDFLARED_ARGV_FILE: argvFile,
        FAKE_CLOUDFLARED_DELAY_MS: '0',
        FAKE_CLOUDFLARED_REGISTER_MS: '300',
      }),
    })
    expect(provider.name).toBe('cloudflared')
    const started = Date.now()
    const tunnel = (await provider.open({port: echo.port})) as CloudflaredTunnel
    try {
      // Not before "Registered tunnel connection" (printed 300 ms after the URL).
      expect(Date.now() - started).toBeGreaterThanOrEqual(250)
      expect(tunnel.provider).toBe('cloudflared')
      expect(tunnel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(tunnel.lastLines().some((l) => l.startsWith('INF Registered tunnel connection connIndex=0'))).toBe(true)
      const {argv, pid} = JSON.parse(readFileSync(argvFile, 'utf8')) as {argv: string[]; pid: number}
      expect(argv).toEqual(['tunnel', '--no-autoupdate', '--url', `http://127.0.0.1:${echo.port}`])
      expect(pid).toBe(tunnel.pid)
      const res = await fetch(`${tunnel.url}/hello?x=1`, {method: 'POST', body: 'hi'})
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({method: 'POST', url: '/hello?x=1', body: 'hi'})
    } finally {
      await tunnel.close()
    }
    expect(alive(tunnel.pid!)).toBe(false)
  })

  it("cloudflared's environment has no token or secret", async () => {
    const argvFile = path.join(bin.dir, 'argv-env.json')
    const token = '7000000001:AAE-envTest_SecretPart_0123456789ab'
    const env = bin.env({
      FAKE_CLOUDFLARED_ARGV_FILE: argvFile,
      FAKE_CLOUDFLARED_DELAY_MS: '0',
      BOT_TOKEN: token,
      MY_TELEGRAM_KEY: token,
      WEBHOOK_SECRET: 'hook-secret',
      TUNNEL_TOKEN: 'named-tunnel-token',
      KEEP_ME: 'yes',
    })
    const tunnel = await cloudflaredProvider({env}).open({port: echo.port})
    await tunnel.close()
    const seen = (JSON.parse(readFileSync(argvFile, 'utf8')) as {env: Record<string, string>}).env
    expect(seen.KEEP_ME).toBe('yes')
    expect(seen.PATH).toBe(env.PATH)
    for (const key of ['BOT_TOKEN', 'MY_TELEGRAM_KEY', 'WEBHOOK_SECRET', 'TUNNEL_TOKEN'])
      expect(seen[key]).toBeUndefined()
    expect(JSON.stringify(seen)).not.toContain('SecretPart')
  })

  it('the stand-in enforces the quick tunnel limit of requests in flight (429 beyond)', async () => {
    const tunnel = await cloudflaredProvider({
      env: bin.env({FAKE_CLOUDFLARED_DELAY_MS: '0', FAKE_CLOUDFLARED_MAX_INFLIGHT: '2'}),
    }).open({port: echo.port})
    try {
      const statuses = await Promise.all(
        [1, 2, 3].map(() => fetch(`${tunnel.url}/slow?delay=800`).then((r) => r.status)),
      )
      expect(statuses.sort()).toEqual([200, 200, 429])
    } finally {
      await tunnel.close()
    }
  })

  it('runs the program named by BOT_CLOUDFLARED (PATH without cloudflared)', async () => {
    const env = {
      ...bin.env({FAKE_CLOUDFLARED_DELAY_MS: '0'}),
      BOT_CLOUDFLARED: FAKE_CLOUDFLARED,
      PATH: path.dirname(process.execPath),
    }
    const tunnel = await cloudflaredProvider({env}).open({port: echo.port})
    await tunnel.close()
    expect(tunnel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('not installed: a TunnelError whose fix says how to install it or to use another tunnel', async () => {
    const err = await openError(
      cloudflaredProvider({env: {PATH: path.dirname(process.execPath)}}).open({port: echo.port}),
    )
    expect(err.reason).toBe('tunnel_missing')
    expect(err.message).toBe('cloudflared is not installed (not found on PATH)')
    expect(err.fix).toMatch(/install cloudflared/)
    expect(err.fix).toMatch(/--tunnel localtunnel/)
    expect(err.fix).toMatch(/--tunnel none/)
    const bad = await openError(
      cloudflaredProvider({env: {PATH: '', BOT_CLOUDFLARED: '/nonexistent/cloudflared'}}).open({port: echo.port}),
    )
    expect(bad.reason).toBe('tunnel_missing')
    expect(bad.message).toContain('BOT_CLOUDFLARED "/nonexistent/cloudflared" is not an executable file')
  })

  it('rate limited (429, error 1015): a TunnelError with the reason, and the child is gone', async () => {
    const err = await openError(
      cloudflaredProvider({env: bin.env({FAKE_CLOUDFLARED_FAIL: '429'})}).open({port: echo.port}),
    )
    expect(err.reason).toBe('tunnel_refused')
    expect(err.message).toMatch(/too many requests .*HTTP 429, Cloudflare error 1015/)
    expect(err.fix).toMatch(/wait a few minutes/)
  })

  it('no network: says cloudflared could not reach api.trycloudflare.com', async () => {
    const err = await openError(
      cloudflaredProvider({env: bin.env({FAKE_CLOUDFLARED_FAIL: 'network'})}).open({port: echo.port}),
    )
    expect(err.message).toMatch(/could not reach api\.trycloudflare\.com .*no such host/)
    expect(err.fix).toMatch(/check the network/)
    const req = await openError(
      cloudflaredProvider({env: bin.env({FAKE_CLOUDFLARED_FAIL: 'request'})}).open({port: echo.port}),
    )
    expect(req.message).toMatch(/could not get a quick tunnel from trycloudflare\.com/)
  })

  it('cannot reach the edge: the failure line ends the start-up', async () => {
    const err = await openError(
      cloudflaredProvider({env: bin.env({FAKE_CLOUDFLARED_FAIL: 'edge'})}).open({port: echo.port}),
    )
    expect(err.message).toMatch(/could not connect to Cloudflare's edge/)
    expect(err.fix).toMatch(/UDP port 7844/)
  })

  it('never registers: the start-up deadline, with the URL, the last error line and a fix; the child is killed', async () => {
    const argvFile = path.join(bin.dir, 'argv-never.json')
    const started = Date.now()
    const err = await openError(
      cloudflaredProvider({
        env: bin.env({FAKE_CLOUDFLARED_NEVER_REGISTER: '1', FAKE_CLOUDFLARED_ARGV_FILE: argvFile}),
      }).open({port: echo.port, timeoutMs: 1500}),
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    expect(err.reason).toBe('tunnel_unreachable')
    expect(err.message).toMatch(
      /cloudflared created http:\/\/127\.0\.0\.1:\d+ but registered no connection to Cloudflare's edge within 1\.5 s/,
    )
    expect(err.message).toContain('last: ERR Failed to dial a quic connection')
    expect(err.fix).toMatch(/UDP port 7844/)
    const {pid} = JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}
    expect(alive(pid)).toBe(false)
  })

  it('aborted while starting: tunnel_aborted, the child is killed', async () => {
    const argvFile = path.join(bin.dir, 'argv-abort.json')
    const controller = new AbortController()
    const pending = cloudflaredProvider({
      env: bin.env({FAKE_CLOUDFLARED_NEVER_REGISTER: '1', FAKE_CLOUDFLARED_ARGV_FILE: argvFile}),
    }).open({
      port: echo.port,
      signal: controller.signal,
    })
    await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}
        } catch {
          return undefined
        }
      },
      {what: 'the stand-in to start', timeout: 10_000},
    )
    controller.abort()
    const err = await openError(pending)
    expect(err.reason).toBe('tunnel_aborted')
    const {pid} = JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}
    expect(alive(pid)).toBe(false)
  })

  it('the child exits after start: one `down` event (a tunnel loss) with the reason', async () => {
    const tunnel = await cloudflaredProvider({
      env: bin.env({FAKE_CLOUDFLARED_EXIT_AFTER_MS: '200', FAKE_CLOUDFLARED_DELAY_MS: '0'}),
    }).open({port: echo.port})
    const downs: (Error | undefined)[] = []
    tunnel.on('down', (e) => downs.push(e))
    await waitFor(() => downs.length > 0, {what: 'the down event', timeout: 10_000})
    expect(downs[0]).toBeInstanceOf(TunnelError)
    expect(downs[0]!.message).toMatch(
      /^cloudflared exited with code 1: the quick tunnel http:\/\/127\.0\.0\.1:\d+ is gone \(last: ERR Serve tunnel error/,
    )
    // A listener added afterwards still hears it; it is emitted once.
    const late = await new Promise<Error | undefined>((resolve) => tunnel.on('down', resolve))
    expect(late).toBe(downs[0])
    expect(downs).toHaveLength(1)
    await tunnel.close()
  })

  it('close(): no `down`, the child is gone; SIGKILL when it ignores SIGTERM', async () => {
    const tunnel = (await cloudflaredProvider({
      env: bin.env({FAKE_CLOUDFLARED_IGNORE_TERM: '1', FAKE_CLOUDFLARED_DELAY_MS: '0'}),
    }).open({port: echo.port})) as CloudflaredTunnel
    let downs = 0
    tunnel.on('down', () => downs++)
    const pid = tunnel.pid!
    expect(alive(pid)).toBe(true)
    await Promise.all([tunnel.close(), tunnel.close()])
    expect(alive(pid)).toBe(false)
    await new Promise((r) => setImmediate(r))
    expect(downs).toBe(0)
  })

  it('the child dies with this process even without close()', async () => {
    const script = fileURLToPath(new URL('./fixtures/cloudflared-exit.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', script, String(echo.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: bin.env({FAKE_CLOUDFLARED_DELAY_MS: '0', FAKE_CLOUDFLARED_IGNORE_TERM: '1'}),
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c))
    child.stderr.on('data', (c: Buffer) => (out += c))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    const pid = Number(/cloudflared pid (\d+)/.exec(out)?.[1])
    expect(code, out).toBe(0)
    expect(pid).toBeGreaterThan(0)
    await waitFor(() => !alive(pid), {what: 'the orphaned stand-in to be gone', timeout: 5000})
  })
})

describe('cloudflared provider: programs that are not quite cloudflared', () => {
  it('a program that exits at once: tunnel_exited with its last line', async () => {
    const script = path.join(bin.dir, 'old-cloudflared')
    writeFileSync(
      script,
      '#!/bin/sh\necho "Incorrect Usage: flag provided but not defined: -no-autoupdate" >&2\nexit 1\n',
      {mode: 0o755},
    )
    const err = await openError(
      cloudflaredProvider({env: {...bin.env(), BOT_CLOUDFLARED: script}}).open({port: echo.port}),
    )
    expect(err.reason).toBe('tunnel_exited')
    expect(err.message).toBe(
      'cloudflared exited with code 1 before the tunnel was ready: Incorrect Usage: flag provided but not defined: -no-autoupdate',
    )
  })

  it('a wrapper script that does not exec: close() stops the whole process group', async () => {
    const argvFile = path.join(bin.dir, 'argv-wrapped.json')
    const script = path.join(bin.dir, 'wrapped-cloudflared')
    writeFileSync(script, `#!/bin/sh\n"${process.execPath}" "${FAKE_CLOUDFLARED}" "$@"\necho wrapper-done >&2\n`, {
      mode: 0o755,
    })
    const tunnel = (await cloudflaredProvider({
      env: {
        ...bin.env({FAKE_CLOUDFLARED_DELAY_MS: '0', FAKE_CLOUDFLARED_ARGV_FILE: argvFile}),
        BOT_CLOUDFLARED: script,
      },
    }).open({port: echo.port})) as CloudflaredTunnel
    const {pid: innerPid} = JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}
    expect(innerPid).not.toBe(tunnel.pid)
    expect(alive(innerPid)).toBe(true)
    await tunnel.close()
    await waitFor(() => !alive(innerPid), {what: 'the wrapped stand-in to be gone', timeout: 5000})
  })
})
