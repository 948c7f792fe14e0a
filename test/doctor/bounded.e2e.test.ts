/**
 * `bot doctor` against servers that accept connections and never answer must end by its own
 * deadlines, report which one ended each wait, and leave no request running (the process exits
 * after the report). Real processes, loopback servers.
 *
 * No stopwatch: what ended a wait is in the report (the reachability check's "within 10 s", the
 * Bot API client's "did not answer in time", the probe's "did not finish"), and a request left
 * running against a server that never answers would hold the process open until the runner kills it
 * as hung (timedOut), far past the doctor's 33 s bound; nothing else would end it.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {PROCESS_LIFETIME_MS, runCli, type CliResult} from '../support/cli.js'
import {recordingServer, silentServer} from '../support/loopback-servers.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

function doctor(apiRoot: string, args: string[]): Promise<CliResult> {
  // The runner's own kill is a hang's bound, far past the doctor's: a run that ends there fails (timedOut).
  return runCli(['doctor', '--json', ...args], {
    env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: apiRoot},
    timeoutMs: PROCESS_LIFETIME_MS,
  })
}

function byId(r: CliResult): Record<string, {status: string; detail: string}> {
  const parsed = JSON.parse(r.stdout) as {checks: Array<{id: string; status: string; detail: string}>}
  return Object.fromEntries(parsed.checks.map((c) => [c.id, c]))
}

describe('bot doctor against a server that never answers', () => {
  it('ends by its own deadline, with and without the probe, and reports the timeout', async () => {
    const server = await silentServer()
    closers.push(() => server.close())
    const [withProbe, noProbe] = await Promise.all([
      doctor(server.url, ['--probe-seconds', '3']),
      doctor(server.url, ['--no-probe']),
    ])
    for (const r of [withProbe, noProbe]) {
      expect(r.timedOut, r.stderr).toBe(false)
      expect(r.code).toBe(1)
      const checks = byId(r)
      expect(checks.reachability.status).toBe('fail')
      expect(checks.reachability.detail).toMatch(/no answer from 127\.0\.0\.1:\d+ .*within 10 s/)
      expect(checks.token.status).toBe('skipped')
    }
    expect(server.connections()).toBeGreaterThanOrEqual(2)
  }, 120_000)

  it('a root that answers but whose Bot API calls hang: getMe and getUpdates end by their deadlines', async () => {
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
    expect(a.timedOut, a.stderr).toBe(false)
    expect(a.code).toBe(1)
    expect(byId(a).token.status).toBe('fail')
    expect(byId(a).token.detail).toMatch(/did not answer in time/)

    expect(b.timedOut, b.stderr).toBe(false)
    const probe = byId(b)['poller-probe']
    expect(['warn', 'fail']).toContain(probe.status)
    expect(probe.detail).toMatch(/did not answer in time|did not finish/)
    expect(hangsPolls.requests.some((q) => q.url.endsWith('/getUpdates'))).toBe(true)
  }, 120_000)
})
