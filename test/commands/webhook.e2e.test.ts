/**
 * `bot webhook set|info|delete` as real processes (`node bin/run.js …`, needs `npm run build`)
 * against the Bot API emulator on loopback: exit codes, output, and what the emulator recorded.
 */
import {spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {writeState} from '../../src/session-store/state.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {botIdOf} from '../../src/telegram/index.js'
import {hasScript, parseJsonOutput, runCli, runCliOnTerminal} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

let emu: BotApiEmulator
const servers: Server[] = []

beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
})
afterAll(async () => {
  await emu.stop()
})
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A loopback webhook receiver answering every POST with `status`; records secret headers. */
async function receiver(status = 200): Promise<{url: string; secrets: Array<string | undefined>}> {
  const secrets: Array<string | undefined> = []
  const server = createServer((req, res) => {
    secrets.push(req.headers['x-telegram-bot-api-secret-token'] as string | undefined)
    req.resume()
    req.on('end', () => {
      res.writeHead(status)
      res.end()
    })
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, secrets}
}

async function closedPort(): Promise<number> {
  const s = createServer()
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  const {port} = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

function newBot() {
  return emu.createBot({username: 'hook_test_bot'}).token
}

/** No dev session state unless a test writes one (never the user's ~/.local/state/bot). */
const emptyStateDir = mkdtempSync(join(tmpdir(), 'bot-state-empty-'))

function webhook(token: string, args: string[], env: Record<string, string> = {}) {
  return runCli(['webhook', ...args], {
    env: {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_STATE_DIR: emptyStateDir, ...env},
  })
}

const methods = (token: string) => emu.calls(token).map((c) => c.method)

function inject(token: string, n: number) {
  for (let i = 0; i < n; i++) emu.sendUserMessage(token, {text: `pending ${i}`, chatId: 1000 + i})
}

describe('bot webhook set', () => {
  it('sets every parameter and shows what it did, without printing the secret', async () => {
    const token = newBot()
    const {url} = await receiver()
    const dir = mkdtempSync(join(tmpdir(), 'bot-cert-'))
    const cert = join(dir, 'public.pem')
    writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n')
    const r = await webhook(token, [
      'set',
      url,
      '--secret-token',
      'S3cret_value-123',
      '--max-connections',
      '7',
      '--allowed-updates',
      'message, callback_query',
      '--ip-address',
      '127.0.0.1',
      '--certificate',
      cert,
    ])
    // The one line a secret given as a flag gets (argv is readable by every local user).
    expect(r.stderr).toBe(
      '! --secret-token is in the command line, which every user of this machine can read (ps, /proc): set WEBHOOK_SECRET in the environment (or .env) instead.\n',
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`✓ Webhook set: ${url}`)
    expect(r.stdout).toMatch(/secret token\s+set \(16 characters, not shown\)/)
    expect(r.stdout).toMatch(/max connections\s+7/)
    expect(r.stdout).toMatch(/allowed updates\s+message, callback_query/)
    expect(r.stdout).toMatch(/certificate\s+.*public\.pem \(\d+ bytes, uploaded\)/)
    expect(r.stdout).toMatch(/pending updates\s+kept \(0 waiting\)/)
    expect(r.stdout).not.toContain('S3cret_value-123')
    expect(emu.webhook(token)).toEqual({
      url,
      secretToken: 'S3cret_value-123',
      maxConnections: 7,
      allowedUpdates: ['message', 'callback_query'],
      ipAddress: '127.0.0.1',
      hasCustomCertificate: true,
    })
    const set = emu.calls(token).find((c) => c.method === 'setWebhook')!
    expect(set.params.drop_pending_updates).toBeUndefined()
  })

  it('takes the secret from WEBHOOK_SECRET (as in .env) and reports "nothing changed" the second time', async () => {
    const token = newBot()
    const {url} = await receiver()
    const first = await webhook(token, ['set', url], {WEBHOOK_SECRET: 'from_env_secret'})
    expect(first.code).toBe(0)
    expect(emu.webhook(token)?.secretToken).toBe('from_env_secret')
    const again = await webhook(token, ['set', url], {WEBHOOK_SECRET: 'from_env_secret'})
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('already set')
    expect(again.stdout).toContain('nothing changed')
  })

  it('reads .env in the working directory', async () => {
    const token = newBot()
    const {url} = await receiver()
    const dir = mkdtempSync(join(tmpdir(), 'bot-dotenv-'))
    writeFileSync(join(dir, '.env'), `BOT_TOKEN=${token}\nBOT_API_ROOT=${emu.apiRoot}\n`)
    const r = await runCli(['webhook', 'set', url], {cwd: dir})
    expect(r.code).toBe(0)
    expect(emu.webhook(token)?.url).toBe(url)
  })

  it('--json prints only the result object on stdout', async () => {
    const token = newBot()
    const {url} = await receiver()
    const before = await receiver()
    await webhook(token, ['set', before.url])
    const r = await webhook(token, ['set', url, '--allowed-updates', 'message', '--json'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const out = parseJsonOutput<Record<string, unknown>>(r)
    expect(out).toMatchObject({
      ok: true,
      changed: true,
      description: 'Webhook was set',
      url,
      previousUrl: before.url,
      secretToken: false,
      allowedUpdates: ['message'],
      dropPendingUpdates: false,
    })
  })

  it('shows the webhook it replaces', async () => {
    const token = newBot()
    const a = await receiver()
    const b = await receiver()
    await webhook(token, ['set', a.url])
    const r = await webhook(token, ['set', b.url])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`replaces\\s+${a.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`))
  })

  it('allows http, any port and up to 100000 connections with a local api root', async () => {
    const token = newBot()
    const {url} = await receiver()
    const r = await webhook(token, ['set', url, '--max-connections', '5000'])
    expect(r.code).toBe(0)
    expect(emu.webhook(token)?.maxConnections).toBe(5000)
  })

  it.each([
    ['a bad secret', ['--secret-token', 'no spaces allowed'], /--secret-token contains " "/],
    [
      'too many connections even for a local server',
      ['--max-connections', '100001'],
      /--max-connections "100001" is not allowed; it must be a whole number from 1 to 100000/,
    ],
    [
      'an unknown update type',
      ['--allowed-updates', 'messages'],
      /--allowed-updates "messages" is not an update type[\s\S]*Did you mean "message"/,
    ],
    [
      'a missing certificate',
      ['--certificate', '/nonexistent/cert.pem'],
      /--certificate \/nonexistent\/cert\.pem cannot be read/,
    ],
    ['a bad IP', ['--ip-address', '300.1.1.1'], /--ip-address "300\.1\.1\.1" is not an IP address/],
  ])('rejects %s with exit 2 and makes no API call', async (_name, extra, message) => {
    const token = newBot()
    const r = await webhook(token, ['set', 'http://127.0.0.1:9/hook', ...extra])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(message)
    expect(emu.calls(token)).toEqual([])
  })

  it('rejects a URL that does not parse, with no API call', async () => {
    const token = newBot()
    const r = await webhook(token, ['set', 'http//missing-colon'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/URL "http\/\/missing-colon" is not a valid absolute URL/)
    expect(emu.calls(token)).toEqual([])
  })

  it('refuses --drop-pending-updates without a terminal or --yes, and drops with --yes', async () => {
    const token = newBot()
    inject(token, 2)
    const {url} = await receiver()
    const refused = await webhook(token, ['set', url, '--drop-pending-updates'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/Refusing to drop 2 pending updates without --yes: there is no terminal/)
    expect(methods(token)).not.toContain('setWebhook')
    expect(emu.pendingUpdates(token)).toHaveLength(2)

    const dropped = await webhook(token, ['set', url, '--drop-pending-updates', '--yes'])
    expect(dropped.code).toBe(0)
    expect(dropped.stdout).toMatch(/pending updates\s+2 updates dropped/)
    expect(emu.pendingUpdates(token)).toHaveLength(0)
  })

  it('waits out a 429 from a second setWebhook within a second, then succeeds', async () => {
    const slow = await BotApiEmulator.start({timeScale: 1})
    try {
      const token = slow.createBot().token
      const a = await receiver()
      const b = await receiver()
      const env = {BOT_TOKEN: token, BOT_API_ROOT: slow.apiRoot}
      const first = await runCli(['webhook', 'set', a.url], {env})
      expect(first.code).toBe(0)
      const second = await runCli(['webhook', 'set', b.url], {env})
      expect(second.code).toBe(0)
      expect(slow.webhook(token)?.url).toBe(b.url)
      const sets = slow.calls(token).filter((c) => c.method === 'setWebhook')
      // Either the second run came more than a second later (no 429), or it met a 429 and retried.
      if (sets.length === 3) {
        expect(sets[1].error?.code).toBe(429)
        expect(second.stderr).toBe('… Telegram asked to slow down (429): retrying setWebhook in 1s.\n')
      } else {
        expect(sets).toHaveLength(2)
        expect(second.stderr).toBe('')
      }
    } finally {
      await slow.stop()
    }
  })
})

describe('bot webhook delete', () => {
  it('deletes the webhook and keeps pending updates', async () => {
    const token = newBot()
    const failing = await receiver(500)
    await webhook(token, ['set', failing.url])
    inject(token, 3)
    await waitFor(() => emu.getWebhookInfo(token).last_error_message, {what: 'a delivery error', timeout: 5000})
    const r = await webhook(token, ['delete'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`✓ Webhook deleted (was ${failing.url}). The bot is on long polling now.`)
    expect(r.stdout).toContain('3 pending updates kept')
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.pendingUpdates(token)).toHaveLength(3)
    const del = emu.calls(token).find((c) => c.method === 'deleteWebhook')!
    expect(del.params.drop_pending_updates).toBeUndefined()
  })

  it('says so when no webhook was set', async () => {
    const token = newBot()
    const r = await webhook(token, ['delete', '--json'])
    expect(r.code).toBe(0)
    expect(parseJsonOutput(r)).toEqual({
      ok: true,
      deleted: false,
      description: 'Webhook is already deleted',
      previousUrl: null,
      dropPendingUpdates: false,
      droppedUpdates: 0,
      pendingUpdateCount: 0,
    })
  })

  it('refuses to drop pending updates without a terminal and without --yes', async () => {
    const token = newBot()
    const {url} = await receiver(500)
    await webhook(token, ['set', url])
    inject(token, 4)
    const r = await webhook(token, ['delete', '--drop-pending-updates'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/✗ Refusing to drop 4 pending updates without --yes/)
    expect(methods(token)).not.toContain('deleteWebhook')
    expect(emu.webhook(token)?.url).toBe(url)
    expect(emu.pendingUpdates(token)).toHaveLength(4)
  })

  it.runIf(hasScript)('on a terminal, asks first: "n" changes nothing, "y" drops', async () => {
    const token = newBot()
    const {url} = await receiver(500)
    await webhook(token, ['set', url])
    inject(token, 2)
    const env = {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_STATE_DIR: emptyStateDir}
    const prompt = /Delete the webhook and drop 2 pending updates\? They are lost for good/
    const no = await runCliOnTerminal(['webhook', 'delete', '--drop-pending-updates'], {
      env,
      answers: [{prompt, input: 'n'}],
    })
    expect(no.code).toBe(1)
    expect(no.output).toContain('✗ Cancelled: nothing changed.')
    expect(methods(token)).not.toContain('deleteWebhook')
    expect(emu.pendingUpdates(token)).toHaveLength(2)

    const yes = await runCliOnTerminal(['webhook', 'delete', '--drop-pending-updates'], {
      env,
      answers: [{prompt, input: 'y'}],
    })
    expect(yes.code).toBe(0)
    expect(yes.output).toContain(`Webhook deleted (was ${url})`)
    expect(yes.output).toContain('2 pending updates dropped.')
    expect(emu.pendingUpdates(token)).toHaveLength(0)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('drops them with --yes and says how many', async () => {
    const token = newBot()
    inject(token, 2)
    const r = await webhook(token, ['delete', '--drop-pending-updates', '--yes', '--json'])
    expect(r.code).toBe(0)
    expect(parseJsonOutput(r)).toMatchObject({
      ok: true,
      dropPendingUpdates: true,
      droppedUpdates: 2,
      pendingUpdateCount: 0,
    })
    expect(emu.pendingUpdates(token)).toHaveLength(0)
    // The emulator keeps non-string JSON values as their raw text, as the Bot API server does.
    expect(String(emu.calls(token).find((c) => c.method === 'deleteWebhook')?.params.drop_pending_updates)).toBe('true')
  })
})

describe('bot webhook info', () => {
  it('shows long polling with the pending count', async () => {
    const token = newBot()
    inject(token, 2)
    const r = await webhook(token, ['info'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Mode\s+long polling/m)
    expect(r.stdout).toMatch(/^Pending updates\s+2$/m)
    expect(r.stdout).not.toMatch(/^URL/m)
  })

  it('shows a webhook with its settings', async () => {
    const token = newBot()
    const {url} = await receiver()
    await webhook(token, ['set', url, '--max-connections', '3', '--allowed-updates', 'callback_query'])
    const r = await webhook(token, ['info'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Mode\s+webhook$/m)
    expect(r.stdout).toMatch(new RegExp(`^URL\\s+${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'))
    expect(r.stdout).toMatch(/^Max connections\s+3$/m)
    expect(r.stdout).toMatch(/^Allowed updates\s+callback_query$/m)
    expect(r.stdout).toMatch(/^Certificate\s+none/m)
    expect(r.stdout).toContain('✓ No delivery error reported.')
    expect(r.stdout).toContain('allowed updates exclude "message"')
  })

  it('explains a real delivery error: the bot answers 500', async () => {
    const token = newBot()
    const {url} = await receiver(500)
    await webhook(token, ['set', url])
    inject(token, 1)
    await waitFor(() => emu.getWebhookInfo(token).last_error_message, {what: 'a delivery error', timeout: 5000})
    const r = await webhook(token, ['info'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /✗ Last delivery error \((just now|\d+ s ago)\): Wrong response from the webhook: 500 Internal Server Error/,
    )
    expect(r.stdout).toContain('the bot crashed or threw while handling an update')
    expect(r.stdout).toMatch(/Fix: Look at the bot's logs/)
    expect(r.stdout).toMatch(/^Pending updates\s+1$/m)

    const json = await webhook(token, ['info', '--json'])
    expect(json.code).toBe(0)
    const out = parseJsonOutput<{
      mode: string
      pendingUpdateCount: number
      lastError: {message: string; ageSeconds: number; explanation: {id: string}}
    }>(json)
    expect(out.mode).toBe('webhook')
    expect(out.pendingUpdateCount).toBe(1)
    expect(out.lastError.message).toBe('Wrong response from the webhook: 500 Internal Server Error')
    expect(out.lastError.explanation.id).toBe('http-5xx')
    expect(out.lastError.ageSeconds).toBeLessThan(60)
  })

  it('explains a secret mismatch: the bot answers 401', async () => {
    const token = newBot()
    const {url, secrets} = await receiver(401)
    await webhook(token, ['set', url, '--secret-token', 'what_telegram_sends'])
    inject(token, 1)
    await waitFor(() => emu.getWebhookInfo(token).last_error_message, {what: 'a delivery error', timeout: 5000})
    expect(secrets[0]).toBe('what_telegram_sends')
    const r = await webhook(token, ['info'])
    expect(r.stdout).toContain('Wrong response from the webhook: 401')
    expect(r.stdout).toContain('X-Telegram-Bot-Api-Secret-Token header does not match')
    expect(r.stdout).not.toContain('what_telegram_sends')
  })

  it('explains connection refused', async () => {
    const token = newBot()
    const port = await closedPort()
    await webhook(token, ['set', `http://127.0.0.1:${port}/hook`])
    inject(token, 1)
    await waitFor(() => emu.getWebhookInfo(token).last_error_message, {what: 'a delivery error', timeout: 5000})
    const r = await webhook(token, ['info', '--json'])
    const out = parseJsonOutput<{lastError: {message: string; explanation: {id: string; fix: string}}}>(r)
    expect(out.lastError.message).toBe('Connection refused')
    expect(out.lastError.explanation.id).toBe('connection-refused')
  })
})

describe('a webhook managed by `bot dev`', () => {
  /** A dev session state file for `token`, as `bot dev` writes it (no token in it). */
  function devState(token: string, pid: number, url: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'bot-state-'))
    writeState(
      {
        version: 1,
        botId: botIdOf(token)!,
        pid,
        startedAt: new Date().toISOString(),
        cwd: dir,
        mode: 'webhook',
        apiRoot: emu.apiRoot,
        webhook: {url},
      },
      dir,
    )
    return dir
  }

  it('info names the running session; set and delete warn before touching its webhook', async () => {
    const token = newBot()
    const {url} = await receiver()
    await webhook(token, ['set', url])
    const env = {BOT_STATE_DIR: devState(token, process.pid, url)}
    const info = await webhook(token, ['info'], env)
    expect(info.code).toBe(0)
    expect(info.stdout).toMatch(new RegExp(`^Set by\\s+\`bot dev\` \\(pid ${process.pid}, running\\)$`, 'm'))
    const json = parseJsonOutput<{devSession: unknown}>(await webhook(token, ['info', '--json'], env))
    expect(json.devSession).toMatchObject({pid: process.pid, running: true})

    const other = await receiver()
    const set = await webhook(token, ['set', other.url], env)
    expect(set.code).toBe(0)
    expect(set.stderr).toContain(`! \`bot dev\` (pid ${process.pid}) runs for this bot and manages its webhook`)
    await webhook(token, ['set', url])
    const del = await webhook(token, ['delete'], env)
    expect(del.code).toBe(0)
    expect(del.stderr).toContain(`! \`bot dev\` (pid ${process.pid}) set this webhook and is still running`)
  })

  it('info flags a webhook left by a session that is gone', async () => {
    const token = newBot()
    const {url} = await receiver()
    await webhook(token, ['set', url])
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
    const deadPid = Number(gone.stdout)
    const r = await webhook(token, ['info'], {BOT_STATE_DIR: devState(token, deadPid, url)})
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/no longer running/)
    expect(r.stdout).toContain(`✗ This webhook was left by a \`bot dev\` session that is gone (pid ${deadPid})`)
    expect(r.stdout).toMatch(/Fix: run `bot dev` again \(it repairs this\) or `bot webhook delete`/)
  })

  it('says nothing about a session for another webhook', async () => {
    const token = newBot()
    const {url} = await receiver()
    await webhook(token, ['set', url])
    const r = await webhook(token, ['info'], {
      BOT_STATE_DIR: devState(token, process.pid, 'https://elsewhere.example/hook'),
    })
    expect(r.stdout).not.toMatch(/Set by/)
  })
})

describe('API errors become one line and a fix', () => {
  it('401: a revoked token points at @BotFather', async () => {
    const token = newBot()
    emu.revokeToken(token)
    for (const args of [['info'], ['delete'], ['set', 'http://127.0.0.1:9/hook']]) {
      const r = await webhook(token, args)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(
        /^✗ Telegram rejected the token \(401 Unauthorized\)\.\n {2}The token is wrong or was revoked\. Get the current one from @BotFather/,
      )
    }
  })

  it('401 with --json: the error object on stdout', async () => {
    const token = newBot()
    emu.revokeToken(token)
    const r = await webhook(token, ['info', '--json'])
    expect(r.code).toBe(1)
    expect(parseJsonOutput(r)).toMatchObject({
      ok: false,
      error: {code: 'api_401', fix: expect.stringContaining('@BotFather')},
    })
  })

  it('a malformed token: exit 2 before any request (the shape is checked first)', async () => {
    const r = await webhook('bot123:not-a-real-token', ['info'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/The bot token \(BOT_TOKEN\) is malformed: it starts with "bot"/)
    expect(r.stderr).not.toContain('not-a-real-token')
    // (that nothing reaches the api root is shown in bad-input.e2e.test.ts with a recording server)
  })

  it('network: an api root where nothing listens', async () => {
    const token = newBot()
    const port = await closedPort()
    const r = await webhook(token, ['info'], {BOT_API_ROOT: `http://127.0.0.1:${port}`})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `✗ Cannot reach the Bot API at http://127.0.0.1:${port}: connection refused by 127.0.0.1:${port} (nothing listens there).`,
    )
    expect(r.stderr).toContain(`Check that a Bot API server is running at http://127.0.0.1:${port}`)
  })

  it('http: an api root that is not a Bot API server (an HTML page)', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(502, {'content-type': 'text/html'})
      res.end('<html><body>502 Bad Gateway</body></html>')
    })
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const r = await webhook(newBot(), ['info'], {BOT_API_ROOT: root})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`✗ ${root} answered HTTP 502 Bad Gateway with an HTML page, not the Bot API's JSON.`)
  })
})
