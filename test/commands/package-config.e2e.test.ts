/**
 * `bot dev` with defaults in package.json ("bot": {"dev": {…}}), as real processes (needs
 * `npm run build`): the command and flags come from there; .env and the command line win; an
 * unknown key is exit 2 naming it, before anything is sent to the Bot API.
 */
import {mkdtempSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {once} from 'node:events'
import {createServer} from 'node:net'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {PROJECT_ROOT, runCli} from '../support/cli.js'

const PICKY = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'picky-bot.mjs')
let emu: BotApiEmulator
beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
})
afterAll(async () => {
  await emu.stop()
})

function project(dev: unknown, dotenv?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-pkgcfg-cli-'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({name: 'cfg', private: true, bot: {dev}}, null, 2))
  if (dotenv) writeFileSync(join(dir, '.env'), dotenv)
  return dir
}

async function closedPort(): Promise<number> {
  const s = createServer()
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  const {port} = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

describe('bot dev reads its defaults from package.json', () => {
  it('command and mode from "bot".dev (bot dev --offline, piped)', async () => {
    const cwd = project({command: ['node', PICKY], mode: 'polling', watch: false})
    const r = await runCli(['dev', '--offline'], {cwd, input: 'hello\n', timeoutMs: 90_000})
    expect(r.stdout).toContain('bot › ok: hello')
    expect(r.stderr).toMatch(/Offline: .*long polling/)
    expect(r.stderr).toContain(`\`node ${PICKY}\` runs as @offline_dev_bot`)
    expect(r.code, r.stderr).toBe(0)
  })

  it('a flag on the command line wins over package.json', async () => {
    const cwd = project({command: ['node', PICKY], mode: 'polling', watch: false})
    const r = await runCli(['dev', '--offline', '--mode', 'webhook'], {cwd, input: 'hello\n', timeoutMs: 90_000})
    expect(r.stderr).toMatch(/Offline: .*webhook over loopback/)
    expect(r.code, r.stderr).toBe(0)
  })

  it('.env wins over package.json; package.json applies when .env does not set it', async () => {
    const {token} = emu.createBot()
    const port = await closedPort()
    // package.json's api root is not http(s): used, it is bad input (exit 2) before any request.
    const used = await runCli(['dev', '--mode', 'polling', '--no-watch', '--', 'node', PICKY], {
      cwd: project({apiRoot: 'ftp://example.test'}),
      env: {BOT_TOKEN: token},
    })
    expect(used.code).toBe(2)
    expect(used.stderr).toContain('--api-root "ftp://example.test" is not an http(s) URL.')
    // With BOT_API_ROOT in .env, that one is used: a closed port on loopback, so "cannot reach", exit 1.
    const overridden = await runCli(['dev', '--mode', 'polling', '--no-watch', '--', 'node', PICKY], {
      cwd: project({apiRoot: 'ftp://example.test'}, `BOT_API_ROOT=http://127.0.0.1:${port}\n`),
      env: {BOT_TOKEN: token},
    })
    expect(overridden.stderr).toContain(`http://127.0.0.1:${port}`)
    expect(overridden.stderr).not.toContain('ftp://')
    expect(overridden.code).toBe(1)
  })

  it('an unknown key: exit 2 naming it and the file, nothing sent to the Bot API', async () => {
    const {token} = emu.createBot()
    const cwd = project({tunel: 'none', command: 'node bot.mjs'})
    const r = await runCli(['dev', '--mode', 'polling'], {cwd, env: {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot}})
    expect(r.code).toBe(2)
    const lines = r.stderr.trim().split('\n')
    expect(lines[0]).toBe(`✗ Unknown key "tunel" in "bot".dev in ${join(cwd, 'package.json')}.`)
    expect(lines[1]).toMatch(/^ {2}Known keys \(the flags of `bot dev` in camelCase\): command, /)
    expect(lines).toHaveLength(2)
    expect(r.stdout).toBe('')
    expect(emu.calls(token)).toEqual([])
  })

  it('a wrong type: exit 2 naming the key; --help still works', async () => {
    const cwd = project({port: 'eighty'})
    const r = await runCli(['dev', '--offline'], {cwd, input: ''})
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(
      `✗ "bot".dev.port in ${join(cwd, 'package.json')}: Expected an integer but received: eighty.`,
    )
    const help = await runCli(['dev', '--help'], {cwd})
    expect(help.code).toBe(0)
  })

  it.each(['grammy', 'gramio', 'telegraf'])(
    'bot init writes a "bot".dev section (%s) that bot dev --offline runs',
    async (template) => {
      const root = mkdtempSync(join(tmpdir(), 'bot-pkgcfg-init-'))
      const dir = join(root, 'p')
      const made = await runCli(['init', dir, '--template', template, '--no-install', '--no-git', '--yes'])
      expect(made.code, made.stderr).toBe(0)
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {bot?: {dev?: Record<string, unknown>}}
      expect(pkg.bot?.dev).toEqual({command: 'node --import tsx src/main.ts', mode: 'webhook'})
      if (template !== 'grammy') return
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      const r = await runCli(['dev', '--offline', '--no-watch'], {
        cwd: dir,
        input: 'hello\n',
        timeoutMs: 90_000,
        env: {BOT_STATE_DIR: join(dir, '.state')},
      })
      expect(r.stderr).toContain('`node --import tsx src/main.ts` runs as @offline_dev_bot')
      expect(r.stdout).toContain('bot › hello')
      expect(r.code, r.stderr).toBe(0)
    },
  )
})
