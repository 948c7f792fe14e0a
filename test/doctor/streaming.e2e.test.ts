/**
 * `bot doctor` prints each check as soon as it and every check before it have finished, in the
 * declared order, not all at the end. A loopback Bot API whose getUpdates (the poller probe, the
 * last check) is held until the test has seen the earlier checks on the child's stdout: with
 * output at the end only, nothing would appear while getUpdates is held. --json stays one
 * document at the end.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, startCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

/** A Bot API that answers getMe and getWebhookInfo at once and holds every getUpdates until release(). */
async function slowPollApi() {
  const held: Array<{res: ServerResponse; closed: boolean}> = []
  let released = false
  let answeredPolls = 0
  const answer = (res: ServerResponse, result: unknown) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({ok: true, result}))
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on('end', () => {
      const method = req.url?.split('/').pop()?.split('?')[0]
      if (req.method === 'GET' && req.url === '/') return void res.writeHead(404).end('not here')
      if (method === 'getMe')
        return answer(res, {id: 123456789, is_bot: true, first_name: 'Slow', username: 'slow_poll_bot'})
      if (method === 'getWebhookInfo')
        return answer(res, {url: '', has_custom_certificate: false, pending_update_count: 0})
      if (method === 'getUpdates') {
        if (released) {
          answeredPolls++
          return answer(res, [])
        }
        const entry = {res, closed: false}
        res.on('close', () => (entry.closed = true))
        held.push(entry)
        return
      }
      res.writeHead(404).end(JSON.stringify({ok: false, error_code: 404, description: 'Not Found'}))
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    answeredPolls: () => answeredPolls,
    release() {
      released = true
      for (const h of held.splice(0))
        if (!h.closed) {
          answeredPolls++
          answer(h.res, [])
        }
    },
    async close() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

const TITLES = [
  'Configuration',
  'Bot API reachable',
  'Token accepted (getMe)',
  'Delivery mode (getWebhookInfo)',
  'Dev sessions',
  'Other local processes with this token',
]

describe('bot doctor streams its report', () => {
  it('the checks before a slow one are on stdout, in order, while it still runs; the slow one and the summary follow', async () => {
    const api = await slowPollApi()
    closers.push(() => api.close())
    const stateDir = mkdtempSync(join(tmpdir(), 'bot-doctor-stream-'))
    const doctor = startCli(['doctor', '--probe-seconds', '3'], {
      env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: api.url, BOT_STATE_DIR: stateDir},
      timeoutMs: 60_000,
    })
    closers.push(async () => {
      doctor.kill('SIGKILL')
      await doctor.exited
    })

    // The probe's getUpdates arrives and is held…
    await waitFor(() => api.held.length > 0, {what: "the probe's first getUpdates", timeout: 30_000})
    // …and the six checks before it appear on stdout while it is held, in their order.
    await doctor.waitForOutput('Other local processes with this token', {stream: 'stdout', timeoutMs: 30_000})
    const early = doctor.stdout()
    expect(api.held.some((h) => !h.closed)).toBe(true)
    expect(api.answeredPolls()).toBe(0)
    const positions = TITLES.map((t) => early.indexOf(t))
    expect(
      positions.every((p) => p >= 0),
      early,
    ).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(early).not.toContain('Concurrent pollers')
    expect(early).not.toMatch(/All good|Problems found|No failures/)

    api.release()
    const result = await doctor.exited
    expect(result.code).toBe(0)
    expect(result.stdout.startsWith(early)).toBe(true)
    expect(result.stdout.slice(early.length)).toMatch(/^✓ Concurrent pollers \(409 probe\)$/m)
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^All good: 7 ok in \d+\.\d s\.$/)
    // One line per check, each exactly once.
    for (const t of [...TITLES, 'Concurrent pollers (409 probe)']) expect(result.stdout.split(t).length - 1).toBe(1)
  }, 90_000)

  it('--json is still one document at the end', async () => {
    const api = await slowPollApi()
    closers.push(() => api.close())
    api.release()
    const stateDir = mkdtempSync(join(tmpdir(), 'bot-doctor-stream-'))
    const doctor = startCli(['doctor', '--probe-seconds', '3', '--json'], {
      env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: api.url, BOT_STATE_DIR: stateDir},
      timeoutMs: 60_000,
    })
    const result = await doctor.exited
    expect(result.code).toBe(0)
    const report = parseJsonOutput<{checks: Array<{id: string}>; ok: boolean}>(result)
    expect(report.ok).toBe(true)
    expect(report.checks.map((c) => c.id)).toEqual([
      'config',
      'reachability',
      'token',
      'delivery',
      'sessions',
      'local-pollers',
      'poller-probe',
    ])
    expect(result.stdout.trim().startsWith('{')).toBe(true)
  }, 90_000)
})
