/**
 * The base command's shared behaviour, through a real command (`bot webhook info`) run as a
 * process: flags > environment > .env, --json error shape, exit codes, BOT_DEBUG lines.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput, runCli} from '../support/cli.js'

let emu: BotApiEmulator
beforeAll(async () => {
  emu = await BotApiEmulator.start()
})
afterAll(async () => {
  await emu.stop()
})

function dirWithEnv(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-base-'))
  writeFileSync(join(dir, '.env'), lines.join('\n') + '\n')
  return dir
}

describe('configuration precedence: flags > environment > .env', () => {
  it('the environment wins over .env', async () => {
    const good = emu.createBot().token
    const dotenvOnly = emu.createBot().token
    const cwd = dirWithEnv([`BOT_TOKEN=${dotenvOnly}`, `BOT_API_ROOT=${emu.apiRoot}`])
    const r = await runCli(['webhook', 'info'], {cwd, env: {BOT_TOKEN: good}})
    expect(r.code).toBe(0)
    expect(emu.calls(good).map((c) => c.method)).toEqual(['getWebhookInfo'])
    expect(emu.calls(dotenvOnly)).toEqual([])
  })

  it('a flag wins over the environment', async () => {
    const good = emu.createBot().token
    const fromEnv = emu.createBot().token
    const r = await runCli(['webhook', 'info', '--token', good, '--api-root', emu.apiRoot], {
      env: {BOT_TOKEN: fromEnv, BOT_API_ROOT: 'http://127.0.0.1:9'},
    })
    expect(r.code).toBe(0)
    expect(emu.calls(good)).toHaveLength(1)
    expect(emu.calls(fromEnv)).toEqual([])
  })

  it('.env alone is enough', async () => {
    const token = emu.createBot().token
    const r = await runCli(['webhook', 'info'], {
      cwd: dirWithEnv([`BOT_TOKEN=${token}`, `BOT_API_ROOT=${emu.apiRoot}/`]),
    })
    expect(r.code).toBe(0)
    expect(emu.calls(token)).toHaveLength(1)
  })
})

describe('errors', () => {
  it('no token: exit 2, one line and a fix', async () => {
    const r = await runCli(['webhook', 'info'])
    expect(r.code).toBe(2)
    // (The .env files looked for are named: here the empty folder the CLI runs in, no package around it.)
    expect(r.stderr).toMatch(
      /^✗ No bot token: pass --token or set BOT_TOKEN \(in the environment or in \.env; no \.env in \/\S+\)\.\n {2}Get a token from @BotFather \(\/newbot\) and put BOT_TOKEN=… in \.env; `bot dev --offline` needs none\.\n$/,
    )
  })

  it('a bad --api-root: exit 2', async () => {
    const r = await runCli([
      'webhook',
      'info',
      '--token',
      '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1',
      '--api-root',
      'ftp://example.com',
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--api-root "ftp:\/\/example\.com" is not an http\(s\) URL/)
  })

  it('an unknown flag: exit 2, one line naming it and the command help', async () => {
    const r = await runCli(['webhook', 'info', '--nope'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('✗ Nonexistent flag: --nope\n  See `bot webhook info --help` for usage.\n')
  })

  // Each kind of oclif parse error (matched by its class, not its text): exit 2, one line, the help hint.
  it.each([
    {args: ['webhook', 'info', '--no-such-flag'], line: /^✗ Nonexistent flag: --no-such-flag\n/},
    {args: ['dev', '--offlin'], line: /^✗ Nonexistent flag: --offlin\. Did you mean --offline\?\n/},
    {args: ['dev', '--port', 'abc'], line: /^✗ Parsing --port .*abc/},
    {args: ['dev', '--port', '70000'], line: /^✗ Parsing --port .*65535/},
    {
      args: ['dev', '--mode', 'carrier-pigeon'],
      line: /^✗ Expected --mode=carrier-pigeon to be one of: webhook, polling/,
    },
    {args: ['webhook', 'set'], line: /^✗ Missing 1 required arg/},
    {args: ['replay', '1', '2'], line: /^✗ Unexpected argument: 2/},
  ])('a parse error for $args: exit 2, one line', async ({args, line}) => {
    const r = await runCli(args)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(line)
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(2)
    expect(r.stderr).toMatch(/\n {2}See `bot [a-z ]+ --help` for usage\.\n$/)
  })

  it('--json errors: {ok:false,error:{code,message,fix}} on stdout, nothing on stderr', async () => {
    const r = await runCli(['webhook', 'info', '--json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('')
    expect(parseJsonOutput(r)).toEqual({
      ok: false,
      error: {code: 'usage', message: expect.stringMatching(/^No bot token/), fix: expect.stringMatching(/@BotFather/)},
    })
  })

  it('BOT_DEBUG=1 adds redacted request lines on stderr, even with --json', async () => {
    const token = emu.createBot().token
    const r = await runCli(['webhook', 'info', '--json'], {
      env: {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_DEBUG: '1'},
    })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^\[debug\] → getWebhookInfo \{\}$/m)
    expect(r.stderr).toMatch(/^\[debug\] ← getWebhookInfo 200 in \d+ms \{"ok":true/m)
    expect(r.stderr).not.toContain(token.split(':')[1])
    expect(parseJsonOutput<{mode: string}>(r).mode).toBe('polling')
  })
})
