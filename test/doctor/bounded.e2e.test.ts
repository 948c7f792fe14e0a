/**
 * `bot doctor` against servers that accept connections and never answer must end within
 * its stated bound (30 s, plus --probe-seconds with the probe), report the timeout, and leave no
 * request running (the process exits right after the report). Real processes, loopback servers.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {doctorBoundMs} from '../../src/doctor/index.js'
import {runCli, type CliResult} from '../support/cli.js'
import {recordingServer, silentServer} from '../support/loopback-servers.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

const MARGIN_MS = 8000

function doctor(apiRoot: string, args: string[]): Promise<CliResult> {
  // The runner's own kill is far past the bound: a run that ends there fails the assertions below.
  return runCli(['doctor', '--json', ...args], {env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: apiRoot}, timeoutMs: 120_000})
}

function byId(r: CliResult): Record<string, {status: string; detail: string}> {
  const parsed = JSON.parse(r.stdout) as {checks: Array<{id: string; status: string; detail: string}>}
  return Object.fromEntries(parsed.checks.map((c) => [c.id, c]))
}

describe('bot doctor against a server that never answers', () => {
  it('ends within its bound, with and without the probe, and reports the timeout', async () => {
    const server = await silentServer()
    closers.push(() => server.close())
    const [withProbe, noProbe] = await Promise.all([
      doctor(server.url, ['--probe-seconds', '3']),
      doctor(server.url, ['--no-probe']),
    ])
    for (const [r, bound] of [
      [withProbe, doctorBoundMs({probe: true, probeSeconds: 3})],
      [noProbe, doctorBoundMs({probe: false, probeSeconds: 3})],
    ] as const) {
      expect(r.timedOut).toBe(false)
      expect(r.code).toBe(1)
      expect(r.ms).toBeLessThan(bound + MARGIN_MS)
      const checks = byId(r)
      expect(checks.reachability.status).toBe('fail')
      expect(checks.reachability.detail).toMatch(/no answer from 127\.0\.0\.1:\d+ .*within 10 s/)
      expect(checks.token.status).toBe('skipped')
    }
    expect(server.connections()).toBeGreaterThanOrEqual(2)
  }, 120_000)

  it('a root that answers but whose Bot API calls hang: getMe and getUpdates time out within the bound', async () => {
    // GET / answers; getMe hangs → the token check reports the timeout.
    const hangsGetMe = await recordingServer((req, res) => {
      if (req.method === 'GET' && req.url === '/') {
        res.writeHead(404)
        res.end('not here')
      }
      // every Bot API call: no answer, ever
    })
    closers.push(() => hangsGetMe.close())
    // getMe and getWebhookInfo answer; getUpdates (the probe) hangs.
    const hangsPolls = await recordingServer((req, res) => {
      const method = req.url?.split('/').pop()
      const answer = (result: unknown) => {
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(JSON.stringify({ok: true, result}))
      }
      if (req.method === 'GET') {
        res.writeHead(404)
        res.end()
      } else if (method === 'getMe') answer({id: 123456789, is_bot: true, first_name: 'Hang', username: 'hang_bot'})
      else if (method === 'getWebhookInfo') answer({url: '', has_custom_certificate: false, pending_update_count: 0})
    })
    closers.push(() => hangsPolls.close())

    const [a, b] = await Promise.all([
      doctor(hangsGetMe.url, ['--no-probe']),
      doctor(hangsPolls.url, ['--probe-seconds', '3']),
    ])
    expect(a.timedOut).toBe(false)
    expect(a.code).toBe(1)
    expect(a.ms).toBeLessThan(doctorBoundMs({probe: false, probeSeconds: 3}) + MARGIN_MS)
    expect(byId(a).token.status).toBe('fail')
    expect(byId(a).token.detail).toMatch(/did not answer in time/)

    expect(b.timedOut).toBe(false)
    expect(b.ms).toBeLessThan(doctorBoundMs({probe: true, probeSeconds: 3}) + MARGIN_MS)
    const probe = byId(b)['poller-probe']
    expect(['warn', 'fail']).toContain(probe.status)
    expect(probe.detail).toMatch(/did not answer in time|did not finish/)
    expect(hangsPolls.requests.some((q) => q.url.endsWith('/getUpdates'))).toBe(true)
  }, 120_000)
})
