/**
 * Issue 31 item 14, the right words and codes:
 * - `bot dev` stopping the bot itself exits 0, even when a wrapper (tsx, npm) reports the SIGTERM
 *   it passed on as 128 + 15 = 143;
 * - offline and polling sessions never speak of Telegram closing a connection or of 503s;
 * - --forward-to: a 401 from the user's server says the secret differs, the summary counts updates
 *   (not Telegram's retries of one), and no "relay → bot on port" line is printed without a bot.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'
import {BIN, cliEnv, runCli, startCli, PROCESS_WAIT_MS} from '../support/cli.js'
import {devWorld, fixture, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
const servers: ChildProcess[] = []
beforeEach(async () => {
  world = await devWorld({webhookReadTimeoutMs: 1_000_000})
})
afterEach(async () => {
  for (const s of servers.splice(0)) s.kill('SIGKILL')
  await world.close()
})

describe('the exit code when bot dev stops the bot', () => {
  it('is 0 after Ctrl-C though the wrapper around the bot exited 143', async () => {
    const dev = startDev(world, {bot: 'wrapper-bot.mjs', timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.timedOut, r.stderr).toBe(false)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/exit code 0\./)
  })

  for (const mode of ['webhook', 'polling'] as const) {
    it(`is 0 at the end of a piped offline chat (${mode}), which speaks of neither Telegram closing nor 503`, async () => {
      const r = await runCli(['dev', '--offline', '--mode', mode, '--', 'node', fixture('wrapper-bot.mjs')], {
        cwd: world.dir,
        input: 'hello\n',
        env: {BOT_STATE_DIR: world.stateDir},
        timeoutMs: 90_000,
      })
      expect(r.timedOut, r.stderr).toBe(false)
      expect(r.stdout).toContain('bot › echo: hello')
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).not.toMatch(/\b503\b|Telegram (closed|retries)/)
    })
  }
})

describe('waiting for a fix, offline and in polling mode', () => {
  /** `bot dev ARGS` with its stdin kept open (an offline chat ends with its input). */
  function waitingLine(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
    const child = spawn(process.execPath, [BIN, ...args], {cwd, env: cliEnv({env}), stdio: ['pipe', 'pipe', 'pipe']})
    servers.push(child)
    let out = ''
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no waiting line:\n${out}`)), PROCESS_WAIT_MS)
      const take = (d: Buffer) => {
        out += d.toString('utf8')
        const line = /Waiting for a file change[^\n]*\n/.exec(out)?.[0]
        if (line) {
          clearTimeout(timer)
          child.kill('SIGINT')
          resolve(line)
        }
      }
      child.stdout.on('data', take)
      child.stderr.on('data', take)
      child.on('exit', () => reject(new Error(`exited:\n${out}`)))
    })
  }

  for (const mode of ['webhook', 'polling'] as const) {
    it(`says what happens to the updates without 503 or Telegram (offline, ${mode})`, async () => {
      const dir = join(world.dir, `crash-${mode}`)
      mkdirSync(dir)
      writeFileSync(join(dir, 'bot.mjs'), 'process.exit(3)\n')
      const line = await waitingLine(
        ['dev', '--offline', '--mode', mode, '--wait-for-fix', '--', 'node', 'bot.mjs'],
        dir,
        {
          BOT_STATE_DIR: world.stateDir,
        },
      )
      expect(line).not.toMatch(/\b503\b|Telegram/)
    })
  }

  it('says the updates wait at Telegram, without 503 (online, polling)', async () => {
    const dir = join(world.dir, 'crash-online')
    mkdirSync(dir)
    writeFileSync(join(dir, 'bot.mjs'), 'process.exit(3)\n')
    const line = await waitingLine(
      ['dev', '--api-root', world.emu.apiRoot, '--mode', 'polling', '--wait-for-fix', '--', 'node', 'bot.mjs'],
      dir,
      {BOT_STATE_DIR: world.stateDir, BOT_TOKEN: world.token},
    )
    expect(line).not.toMatch(/\b503\b/)
    expect(line).toMatch(/updates wait at Telegram meanwhile/)
  })
})

describe('bot dev --forward-to with a server whose secret differs', () => {
  it('says so on the 401 line, counts the update once, and prints no "bot on port" relay line', async () => {
    const port = await freePort()
    const server = spawn(process.execPath, [fixture('echo-bot.mjs')], {
      env: {
        ...process.env,
        BOT_MODE: 'webhook',
        PORT: String(port),
        WEBHOOK_PATH: '/hook',
        WEBHOOK_SECRET: 'not-the-one-bot-dev-sends',
        BOT_TOKEN: world.token,
      },
      stdio: 'ignore',
    })
    servers.push(server)
    const dev = startCli(
      [
        'dev',
        '--api-root',
        world.emu.apiRoot,
        '--tunnel-host',
        world.lt.url,
        '--forward-to',
        `http://127.0.0.1:${port}/hook`,
      ],
      {
        cwd: world.dir,
        timeoutMs: 90_000,
        env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, WEBHOOK_SECRET: 'the-one-bot-dev-sends'},
      },
    )
    const out = await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    expect(out).toMatch(/Relay on http:\/\/127\.0\.0\.1:\d+ → your server at http:\/\/127\.0\.0\.1:\d+\/hook/)
    expect(out).not.toMatch(/bot on port/)
    const update = world.emu.sendUserMessage(world.token, {text: 'hi'})
    // Telegram (the emulator) sends it again after each failure: three tries of one update.
    const tries = new RegExp(`✗ #${update.update_id} message[^\\n]*→ 401[^\\n]*\\n`, 'g')
    await dev.waitForOutput(new RegExp(`(${tries.source}[^]*){3}`), {timeoutMs: 25_000})
    expect(dev.stdout() + dev.stderr()).toMatch(
      /→ 401 [^\n]*your server refused the secret: its WEBHOOK_SECRET differs from the one bot dev sends/,
    )
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/0 updates relayed, 1 failure[,;]/)
  })
})

describe('bot trigger reaction refused for allowed_updates', () => {
  it('names the flag that lets it through', async () => {
    const dir = join(world.dir, 'reaction')
    mkdirSync(dir)
    // An offline session whose chat stays open (stdin is kept open) with the echo bot.
    const child = spawn(process.execPath, [BIN, 'dev', '--offline', '--', 'node', fixture('echo-bot.mjs')], {
      cwd: dir,
      env: cliEnv({env: {BOT_STATE_DIR: world.stateDir}}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    servers.push(child)
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')))
    child.stdin.write('hello\n')
    await waitFor(() => out.includes('bot › echo: hello'), {what: 'the echo', timeout: 25_000})
    const r = await runCli(['trigger', 'reaction'], {cwd: dir, env: {BOT_STATE_DIR: world.stateDir}, timeoutMs: 90_000})
    expect(r.code, r.stderr).not.toBe(0)
    expect(r.stderr).toMatch(/allowed_updates/)
    expect(r.stderr).toMatch(/--allowed-updates message,callback_query,message_reaction/)
    child.kill('SIGINT')
  })
})
