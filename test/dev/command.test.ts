import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {resolveBotCommand} from '../../src/dev/bot/command.js'
import {UsageError} from '../../src/lib/errors.js'

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-dev-cmd-'))
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), {recursive: true})
    writeFileSync(join(dir, name), text)
  }
  return dir
}

describe('resolveBotCommand', () => {
  it('uses the words after -- as they are, without a shell', () => {
    const cmd = resolveBotCommand(
      ['node', 'my bot.js', '--flag'],
      project({'package.json': '{"scripts":{"dev:bot":"tsx x.ts"}}'}),
    )
    expect(cmd).toMatchObject({file: 'node', args: ['my bot.js', '--flag'], shell: false, source: 'argv'})
    expect(cmd.display).toBe("node 'my bot.js' --flag")
  })

  it('prefers the dev:bot script, run through the shell with node_modules/.bin on PATH', () => {
    const dir = project({
      'package.json': JSON.stringify({main: 'index.js', scripts: {'dev:bot': 'tsx watch-free src/main.ts'}}),
      'index.js': '',
    })
    const cmd = resolveBotCommand([], dir)
    expect(cmd).toMatchObject({file: 'tsx watch-free src/main.ts', shell: true, source: 'dev:bot script'})
    expect(cmd.pathPrepend[0]).toBe(join(dir, 'node_modules', '.bin'))
    expect(cmd.pathPrepend).toContain(join(dir, '..', 'node_modules', '.bin'))
    expect(cmd.pathPrepend.at(-1)).toBe('/node_modules/.bin')
  })

  it('runs package.json "main" with node', () => {
    const dir = project({'package.json': '{"main":"lib/bot.mjs"}', 'lib/bot.mjs': ''})
    expect(resolveBotCommand([], dir, '/usr/bin/node')).toMatchObject({
      file: '/usr/bin/node',
      args: ['lib/bot.mjs'],
      shell: false,
      source: 'main',
    })
  })

  it('falls back to src/main.ts, src/index.ts, index.js in that order; TypeScript runs with node --import tsx', () => {
    const dir = project({'src/index.ts': '', 'index.js': '', 'src/main.ts': '', 'node_modules/tsx/package.json': '{}'})
    expect(resolveBotCommand([], dir, 'node')).toMatchObject({
      file: 'node',
      args: ['--import', 'tsx', 'src/main.ts'],
      display: 'node --import tsx src/main.ts',
    })
    const js = project({'index.js': ''})
    expect(resolveBotCommand([], js, 'node')).toMatchObject({file: 'node', args: ['index.js']})
  })

  it('explains what is missing', () => {
    expect(() => resolveBotCommand([], project({}))).toThrow(UsageError)
    expect(() => resolveBotCommand([], project({}))).toThrow(/No bot command: nothing after `--`, no "dev:bot" script/)
    expect(() => resolveBotCommand([], project({'src/main.ts': ''}))).toThrow(
      /src\/main.ts is TypeScript and tsx is not installed/,
    )
    expect(() => resolveBotCommand([], project({'package.json': '{"main":"dist/main.js"}'}))).toThrow(
      /"main" is dist\/main.js, which does not exist/,
    )
    expect(() => resolveBotCommand([], project({'package.json': '{oops'}))).toThrow(/is not valid JSON/)
  })
})

describe('botEnv', () => {
  it('sets the contract for webhook mode and replaces stale values', async () => {
    const {botEnv} = await import('../../src/dev/bot/process.js')
    const base = {PATH: '/bin', PORT: '1', WEBHOOK_SECRET: 'stale', BOT_API_ROOT: 'http://old', OTHER: 'kept'}
    expect(
      botEnv(
        {
          token: 't',
          mode: 'webhook',
          port: 5000,
          webhookPath: '/webhook/x',
          webhookSecret: 's',
          webhookUrl: 'https://u/webhook/x',
        },
        base,
      ),
    ).toEqual({
      PATH: '/bin',
      OTHER: 'kept',
      BOT_TOKEN: 't',
      BOT_MODE: 'webhook',
      PORT: '5000',
      WEBHOOK_PATH: '/webhook/x',
      WEBHOOK_SECRET: 's',
      WEBHOOK_URL: 'https://u/webhook/x',
      TSX_DISABLE_CACHE: '1',
    })
    expect(
      botEnv({token: 't', apiRoot: 'http://127.0.0.1:1', mode: 'polling', port: 5000, webhookSecret: 's'}, base),
    ).toEqual({
      PATH: '/bin',
      OTHER: 'kept',
      PORT: '1',
      BOT_TOKEN: 't',
      BOT_API_ROOT: 'http://127.0.0.1:1',
      BOT_MODE: 'polling',
      TSX_DISABLE_CACHE: '1',
    })
  })

  it('keeps loopback away from a proxy the bot inherits (and leaves NO_PROXY alone without one)', async () => {
    const {botEnv} = await import('../../src/dev/bot/process.js')
    const proxied = botEnv(
      {token: 't', mode: 'webhook', port: 5000},
      {HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: 'internal.corp'},
    )
    expect(proxied.NO_PROXY).toBe('internal.corp,localhost,127.0.0.1,::1')
    expect(proxied.no_proxy).toBe('localhost,127.0.0.1,::1')
    expect(botEnv({token: 't', mode: 'webhook'}, {https_proxy: 'http://p:1', no_proxy: '*'}).no_proxy).toBe('*')
    const direct = botEnv({token: 't', mode: 'webhook', port: 5000}, {PATH: '/bin'})
    expect(direct.NO_PROXY).toBeUndefined()
    expect(direct.no_proxy).toBeUndefined()
  })
})
