/**
 * End to end: a real `bot dev --offline` session (bin/run.js, --json, the echo bot) and the real
 * `bot trigger` / `bot replay` processes finding it through its control record. The bot's answers
 * are observed in the session's own output (its chat events). Then a webhook-mode session against the
 * emulator (loopback tunnel) with a bot whose Bot API calls fail: the trigger's line shows them.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync, readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cliEnv, parseJsonOutput, PROJECT_ROOT, runCli} from '../support/cli.js'
import type {UpdateEntry} from '../../src/inspector/types.js'
import {devWorld, startDev, type DevWorld} from '../dev/helpers.js'
import {waitFor} from '../support/wait.js'

const ECHO_BOT = join(PROJECT_ROOT, 'examples', 'echo-bot')

interface DevEventLine {
  type: string
  event?: {type: string; lines?: string[]}
}

describe('bot trigger and bot replay with a running bot dev --offline', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'trig-e2e-state-'))
  const env = {BOT_STATE_DIR: stateDir}
  let dev: ChildProcess
  let stdout = ''
  let stderr = ''
  let exited: Promise<number | null>
  const dump = () => `stdout: ${stdout}\nstderr: ${stderr}`
  const events = (): DevEventLine[] =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as DevEventLine]
        } catch {
          return []
        }
      })
  const botLines = () =>
    events().flatMap((e) => (e.type === 'chat' && e.event?.type === 'bot' ? (e.event.lines ?? []) : []))
  const records = () => readdirSync(stateDir).filter((n) => /^control-\d+\.json$/.test(n))

  beforeAll(async () => {
    // stdin stays open: the session runs until it is closed.
    dev = spawn(process.execPath, [BIN, 'dev', '--offline', '--no-watch', '--json'], {
      cwd: ECHO_BOT,
      env: cliEnv({env}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    dev.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    dev.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    exited = new Promise((resolve) => dev.once('close', (code) => resolve(code)))
    await waitFor(() => records().length === 1 && events().some((e) => e.type === 'ready'), {
      timeout: 45_000,
      what: () => `ready event and control record\n${dump()}`,
    })
  }, 60_000)

  afterAll(async () => {
    if (dev.exitCode === null) {
      dev.stdin!.end()
      const timer = setTimeout(() => dev.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(timer)
    }
  }, 40_000)

  it('bot trigger message hi: the bot answers in the session', async () => {
    const r = await runCli(['trigger', 'message', 'hi'], {cwd: ECHO_BOT, env, timeoutMs: 90_000})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^✓ update #\d+ message "hi" delivered/)
    await waitFor(() => botLines().includes('bot › hi'), {
      timeout: 20_000,
      what: () => `bot › hi in the session output\n${dump()}`,
    })
  })

  it('bot replay --last delivers it again: the bot answers again', async () => {
    const before = botLines().filter((l) => l === 'bot › hi').length
    expect(before).toBeGreaterThanOrEqual(1)
    const r = await runCli(['replay', '--last', '--json'], {cwd: ECHO_BOT, env, timeoutMs: 90_000})
    expect(r.code, r.stderr).toBe(0)
    const entry = parseJsonOutput<UpdateEntry>(r)
    expect(entry.type).toBe('message')
    expect(entry.source).toBe('replay')
    await waitFor(() => botLines().filter((l) => l === 'bot › hi').length === before + 1, {
      timeout: 20_000,
      what: () => `a second bot › hi\n${dump()}`,
    })
  })

  it('bot trigger callback and bot trigger update - reach the same session', async () => {
    const cb = await runCli(['trigger', 'callback', 'noop', '--message-id', '1', '--json'], {
      cwd: ECHO_BOT,
      env,
      timeoutMs: 90_000,
    })
    expect(cb.code, cb.stderr).toBe(0)
    expect(parseJsonOutput<UpdateEntry>(cb).type).toBe('callback_query')
    const up = await runCli(['trigger', 'update', '-'], {
      cwd: ECHO_BOT,
      env,
      timeoutMs: 90_000,
      input: JSON.stringify({
        message: {
          message_id: 1,
          from: {id: 1111, is_bot: false, first_name: 'You'},
          chat: {id: 1111, type: 'private'},
          date: Math.floor(Date.now() / 1000),
          text: 'from a file',
        },
      }),
    })
    expect(up.code, up.stderr).toBe(0)
    expect(up.stdout).toMatch(/^✓ update #\d+ message "from a file" delivered/)
  }, 130_000)

  it('at exit the control record is removed; then: no session, exit 1 with the fix', async () => {
    dev.stdin!.end()
    const timer = setTimeout(() => dev.kill('SIGKILL'), 30_000)
    expect(await exited).toBe(0)
    clearTimeout(timer)
    expect(records()).toEqual([])
    const r = await runCli(['trigger', 'message', 'hi'], {cwd: ECHO_BOT, env})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Start `bot dev` (or `bot dev --offline`) in this folder first.')
  })
})

describe('bot trigger with a running bot dev (webhook mode, the emulator as api root)', () => {
  let world: DevWorld
  beforeAll(async () => {
    world = await devWorld()
  })
  afterAll(() => world.close())

  it('the synthetic update reaches the real bot, and its failed Bot API calls get a ↳ line', async () => {
    const dev = startDev(world, {bot: 'inspector-bot.mjs', args: ['--no-watch', '--json'], timeoutMs: 90_000})
    await dev.waitForOutput(/"type":"ready"/, {timeoutMs: 45_000})
    const env = {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir}
    try {
      // The fixture answers /missing with a sendMessage to a chat that does not exist.
      const r = await runCli(['trigger', 'message', '/missing', '--chat', '4242'], {
        cwd: world.dir,
        env,
        timeoutMs: 90_000,
      })
      expect(r.code, r.stderr).toBe(0)
      const [first, ...rest] = r.stdout.trimEnd().split('\n')
      expect(first).toMatch(/^✓ update #(\d+) message "\/missing" delivered → 200 in \d+ ms$/)
      expect(rest[0]).toBe('  ↳ sendMessage 400 Bad Request: chat not found')
      const updateId = Number(/#(\d+)/.exec(first)![1])
      await waitFor(() => world.recordedLines().includes(`${updateId} message /missing`), {
        what: 'the bot recording the triggered update',
        timeout: 15_000,
      })
      expect(r.stdout + r.stderr).not.toContain(world.token.split(':')[1])

      // A button press Telegram never saw: the api proxy answers the bot's answerCallbackQuery itself.
      const cb = await runCli(['trigger', 'callback', 'like:1', '--message-id', '5', '--chat', '4242', '--json'], {
        cwd: world.dir,
        env,
        timeoutMs: 90_000,
      })
      expect(cb.code, cb.stderr).toBe(0)
      const entry = parseJsonOutput<UpdateEntry>(cb)
      expect(entry).toMatchObject({type: 'callback_query', source: 'trigger', chatId: 4242, answer: {status: 200}})
      expect((entry.update as any).callback_query).toMatchObject({
        data: 'like:1',
        from: {id: 4242},
        message: {message_id: 5, chat: {id: 4242, type: 'private'}},
      })
      expect(entry.calls).toEqual([
        expect.objectContaining({method: 'answerCallbackQuery', ok: true, answeredLocally: true}),
      ])
      expect(world.emu.calls(world.token).some((c) => c.method === 'answerCallbackQuery')).toBe(false)
      await waitFor(() => world.recordedLines().includes(`${entry.updateId} callback like:1`), {
        what: 'the bot recording the button press',
        timeout: 15_000,
      })
    } finally {
      dev.kill('SIGINT')
      await dev.exited
    }
  }, 120_000)
})
