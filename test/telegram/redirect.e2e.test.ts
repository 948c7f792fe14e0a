/**
 * An api root that answers 3xx must never get the token sent on to where it points,
 * and a POST turned into a GET by a redirect must not look like a success. A loopback api root
 * redirects to a second loopback server that records every request: the second sees none.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {BotApi, BotApiError} from '../../src/telegram/index.js'
import {runCli} from '../support/cli.js'
import {recordingServer, type RecordingServer} from '../support/loopback-servers.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const SECRET = TOKEN.slice(TOKEN.indexOf(':') + 1)
const open: RecordingServer[] = []

afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
})

/** `elsewhere` records; `root` answers getWebhookInfo itself and redirects every other method there. */
async function redirectingRoot(status = 302): Promise<{root: RecordingServer; elsewhere: RecordingServer}> {
  const elsewhere = await recordingServer()
  const root = await recordingServer((req, res) => {
    if (req.url?.endsWith('/getWebhookInfo')) {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({ok: true, result: {url: '', has_custom_certificate: false, pending_update_count: 0}}))
      return
    }
    res.writeHead(status, {location: `${elsewhere.url}${req.url}`})
    res.end()
  })
  open.push(root, elsewhere)
  return {root, elsewhere}
}

describe('the Bot API client never follows a redirect', () => {
  for (const status of [301, 302, 307, 308]) {
    it(`${status}: an error naming the api root, and nothing reaches the other host`, async () => {
      const {root, elsewhere} = await redirectingRoot(status)
      const api = new BotApi({token: TOKEN, apiRoot: root.url})
      const error = await api.setWebhook({url: 'https://example.com/hook'}).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(BotApiError)
      const e = error as BotApiError
      expect(e.kind).toBe('http')
      expect(e.code).toBe(status)
      expect(e.isRedirect).toBe(true)
      expect(e.description).toContain(root.url)
      expect(e.description).toContain(`to http://127.0.0.1:${elsewhere.port}`)
      expect(e.message).not.toContain(SECRET)
      expect(root.requests).toHaveLength(1)
      expect(elsewhere.requests).toEqual([])
    })
  }
})

describe('commands against a redirecting api root', () => {
  it('bot webhook set: exit 1, the api root named, no "Webhook set", the other host never sees the token', async () => {
    const {root, elsewhere} = await redirectingRoot(302)
    const r = await runCli(['webhook', 'set', 'https://example.com/hook'], {
      env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: root.url},
    })
    expect(r.code).toBe(1)
    expect(r.stdout).not.toMatch(/Webhook set/)
    expect(r.stderr).toContain(`✗ The Bot API at ${root.url} redirects (HTTP 302)`)
    expect(r.stderr).toMatch(/--api-root \/ BOT_API_ROOT/)
    expect(root.requests.map((q) => q.url.split('/').pop())).toEqual(['getWebhookInfo', 'setWebhook'])
    expect(elsewhere.requests).toEqual([])
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it('bot webhook delete --json: the error object, nothing sent on', async () => {
    const {root, elsewhere} = await redirectingRoot(307)
    const r = await runCli(['webhook', 'delete', '--json'], {env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: root.url}})
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout) as {ok: boolean; error: {message: string}}
    expect(out.ok).toBe(false)
    expect(out.error.message).toContain(root.url)
    expect(elsewhere.requests).toEqual([])
  })

  it('bot doctor: the token check fails with the redirect named; the other host never sees a request', async () => {
    const {root, elsewhere} = await redirectingRoot(302)
    const r = await runCli(['doctor', '--json', '--no-probe', '--only', 'reachability,token'], {
      env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: root.url},
      timeoutMs: 90_000,
    })
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout) as {checks: Array<{id: string; status: string; detail: string}>}
    const token = report.checks.find((c) => c.id === 'token')!
    expect(token.status).toBe('fail')
    expect(token.detail).toContain(`${root.url} redirects (HTTP 302)`)
    expect(elsewhere.requests).toEqual([])
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })
})
