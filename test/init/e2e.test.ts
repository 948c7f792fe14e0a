/**
 * End to end, for each template: `bot init` generates a project in a temporary folder and installs
 * its dependencies for real with npm (from the registry; the shared npm cache makes repeats fast),
 * the project typechecks with its own TypeScript, and the bot runs under `bot dev` against the
 * emulator — in webhook mode through the relay and the loopback localtunnel server, and in polling
 * mode: /start gets its reply, a message is echoed, a forged request straight to the bot's port is
 * refused (401/403, nothing handled), and Ctrl-C exits cleanly with the webhook deleted.
 *
 * Slower than the rest (an npm install per template, ~5-60 s each); CI runs it with `npm test`.
 * Needs a build (`npm run build`) and the npm registry (or a warm npm cache).
 */
import {execFile} from 'node:child_process'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'

import getPort from 'get-port'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {startCli, type CliResult, type RunningCli} from '../support/cli.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'
import {TEMPLATES, fakeUpdate, init, tempDir, waitFor} from './support.js'

const run = promisify(execFile)
const INSTALL_TIMEOUT_MS = 5 * 60_000

let emu: BotApiEmulator
let lt: LocaltunnelServer
let root: string
beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
  lt = await startLocaltunnelServer()
  root = tempDir('bot-init-e2e-')
})
afterAll(async () => {
  await lt?.close().catch(() => {})
  await emu?.stop().catch(() => {})
  if (root) rmSync(root, {recursive: true, force: true})
})

function assertNoToken(result: Pick<CliResult, 'stdout' | 'stderr'>, token: string): void {
  const secret = token.split(':')[1]
  for (const text of [result.stdout, result.stderr]) {
    expect(text.includes(token) || text.includes(secret), `the token appears in the output:\n${text}`).toBe(false)
  }
}

describe.each(TEMPLATES)('template %s under bot dev', (template) => {
  let dir: string
  let stateDir: string

  beforeAll(async () => {
    dir = join(root, `${template}-e2e-bot`)
    stateDir = join(root, `state-${template}`)
    // A real install from the registry; prefer-offline reuses the shared cache when it has the packages.
    const r = await init([dir, '--template', template, '--pm', 'npm', '--no-git', '--yes', '--json'], {npm_config_prefer_offline: 'true'})
    expect(r.code, `bot init failed:\n${r.stdout}\n${r.stderr}`).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({installed: true, template})
  }, INSTALL_TIMEOUT_MS)

  it('typechecks with its own TypeScript', async () => {
    await run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'], {cwd: dir})
  }, 120_000)

  function startDev(token: string, args: string[]): RunningCli {
    return startCli(['dev', '--api-root', emu.apiRoot, '--no-watch', ...args], {
      cwd: dir,
      timeoutMs: 90_000,
      env: {BOT_TOKEN: token, BOT_STATE_DIR: stateDir},
    })
  }

  async function stopWithCtrlC(dev: RunningCli): Promise<CliResult> {
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
    // The bot itself stopped gracefully (its signal handler ran), not killed.
    expect(result.stdout + result.stderr).toMatch(/SIG(INT|TERM): stopping/)
    return result
  }

  it('webhook mode through the relay and the tunnel: /start, echo, forged requests refused, Ctrl-C deletes the webhook', async () => {
    const {token} = emu.createBot({username: `${template}_e2e_hook_bot`})
    const port = await getPort({host: '127.0.0.1'})
    const dev = startDev(token, ['--tunnel-host', lt.url, '--port', String(port)])
    let result: CliResult | undefined
    try {
      await dev.waitForOutput(/Ready: updates reach the bot/, {timeoutMs: 60_000})
      const webhook = emu.webhook(token)
      expect(webhook?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//) // the loopback tunnel's public URL
      expect(webhook?.secretToken).toBeTruthy()

      const chatId = 3003
      emu.sendUserMessage(token, {text: '/start', chatId, firstName: 'Grace'})
      const hello = await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000})
      expect(String(hello.params.text)).toContain('Hello, Grace')

      emu.sendUserMessage(token, {text: 'through the tunnel', chatId})
      await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000, predicate: (c) => c.params.text === 'through the tunnel'})

      // Forged requests straight to the bot's own port, on the path it serves (it prints it).
      const path = /webhook: POST (\S+) on port (\d+)/.exec(dev.stdout() + dev.stderr())
      expect(path?.[2]).toBe(String(port))
      const forgedChat = 6660
      for (const headers of [{}, {'x-telegram-bot-api-secret-token': 'not-the-secret'}]) {
        const res = await fetch(`http://127.0.0.1:${port}${path![1]}`, {
          method: 'POST',
          headers: {'content-type': 'application/json', ...headers},
          body: fakeUpdate(42, forgedChat, 'forged'),
        })
        expect([401, 403]).toContain(res.status)
      }
      // And through the public URL without the secret: the relay refuses it.
      const viaTunnel = await fetch(webhook!.url, {method: 'POST', headers: {'content-type': 'application/json'}, body: fakeUpdate(43, forgedChat, 'forged')})
      expect(viaTunnel.status).toBe(401)
      expect(emu.sentMessages(token, {chatId: forgedChat})).toEqual([])

      await waitFor(() => emu.pendingUpdates(token).length === 0, 'every update acknowledged')
    } finally {
      result = await stopWithCtrlC(dev)
    }
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.getWebhookInfo(token).url).toBe('')
    assertNoToken(result, token)
  }, 120_000)

  it('polling mode: /start, echo, Ctrl-C exits cleanly with no webhook set', async () => {
    const {token} = emu.createBot({username: `${template}_e2e_poll_bot`})
    const dev = startDev(token, ['--mode', 'polling'])
    let result: CliResult | undefined
    try {
      await dev.waitForOutput(/Ready: the bot runs on long polling/, {timeoutMs: 60_000})
      const chatId = 4004
      emu.sendUserMessage(token, {text: '/start', chatId, firstName: 'Linus'})
      const hello = await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000})
      expect(String(hello.params.text)).toContain('Hello, Linus')
      emu.sendUserMessage(token, {text: 'polled and echoed', chatId})
      await emu.waitForBotMessage(token, {chatId, timeoutMs: 10_000, predicate: (c) => c.params.text === 'polled and echoed'})
    } finally {
      result = await stopWithCtrlC(dev)
    }
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.pendingUpdates(token)).toEqual([])
    assertNoToken(result, token)
  }, 120_000)
})
