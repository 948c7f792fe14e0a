/**
 * `bot init` on a terminal: a real pseudo-terminal from util-linux `script`, answering the
 * prompts (folder, framework, token) as a user would type them.
 */
import {spawnSync} from 'node:child_process'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {BIN} from '../support/paths.js'
import {cleanEnv, init, startProcess, tempDir} from './support.js'

const hasScript = spawnSync('script', ['--version']).status === 0
const TOKEN = '7000000002:AAGk2_interactive-Secret_part_987654321'

describe.skipIf(!hasScript)('bot init on a terminal', () => {
  it('asks for the folder, the framework and the token (masked), then writes .env', async () => {
    const cwd = tempDir()
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} init --no-install --no-git`
    const p = startProcess('script', ['-qefc', cmd, '/dev/null'], {
      cwd,
      env: cleanEnv({TERM: 'xterm', NO_COLOR: '1'}),
      stdin: 'pipe',
    })
    try {
      await p.waitForOutput(/Project folder/)
      p.child.stdin!.write('tty-bot\r')
      await p.waitForOutput(/Framework/)
      p.child.stdin!.write('\x1b[B') // arrow down: GramIO
      await p.waitForOutput(/❯ GramIO/)
      p.child.stdin!.write('\r')
      await p.waitForOutput(/Bot token.*BotFather/)
      p.child.stdin!.write(`${TOKEN}\r`)
      await p.waitForOutput(/Next steps/)
    } finally {
      p.child.stdin!.end()
    }
    const exit = await p.exited
    expect(exit.code, p.output()).toBe(0)
    const dir = join(cwd, 'tty-bot')
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies.gramio).toBe('0.10.0')
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(`BOT_TOKEN=${TOKEN}\n`)
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600)
    // The terminal showed only the mask.
    expect(p.output()).not.toContain(TOKEN.split(':')[1])
    expect(p.output()).toContain('•••')
  })

  it('Ctrl-C at a prompt exits 130 with nothing written', async () => {
    const cwd = tempDir()
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} init --no-install --no-git`
    const p = startProcess('script', ['-qefc', cmd, '/dev/null'], {
      cwd,
      env: cleanEnv({TERM: 'xterm', NO_COLOR: '1'}),
      stdin: 'pipe',
    })
    try {
      await p.waitForOutput(/Project folder/)
      p.child.stdin!.write('half\r')
      await p.waitForOutput(/Framework/)
      p.child.stdin!.write('\x03')
      await p.waitForOutput(/Cancelled: nothing was written/)
    } finally {
      p.child.stdin!.end()
    }
    expect((await p.exited).code).toBe(130)
    expect(readdirSync(cwd)).toEqual([])
  })

  it('asks nothing with --yes', async () => {
    const cwd = tempDir()
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} init --no-install --no-git --yes`
    const p = startProcess('script', ['-qefc', cmd, '/dev/null'], {cwd, env: cleanEnv({TERM: 'xterm', NO_COLOR: '1'})})
    const exit = await p.exited
    expect(exit.code, p.output()).toBe(0)
    expect(p.output()).not.toMatch(/Project folder|Framework|Bot token/)
    expect(JSON.parse(readFileSync(join(cwd, 'my-bot', 'package.json'), 'utf8')).dependencies.grammy).toBe('1.46.0')
  })
})

describe.skipIf(!hasScript)('bot init install on a terminal', () => {
  it.each([
    ['with a width: a spinner', 'stty cols 100 rows 30; '],
    ['without a width (columns 0): plain lines, no spinner', ''],
  ])('%s for the install; a failed install keeps the files and says how to retry', async (_what, sttyPrefix) => {
    const cwd = tempDir()
    const cmd = `${sttyPrefix}${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} init spin-bot --no-git --yes`
    // A real npm that can reach nothing: offline with an empty cache.
    const env = cleanEnv({
      TERM: 'xterm',
      NO_COLOR: '1',
      CI: undefined,
      npm_config_offline: 'true',
      npm_config_cache: join(cwd, 'empty-cache'),
      npm_config_registry: 'http://127.0.0.1:9/',
    })
    const p = startProcess('script', ['-qefc', cmd, '/dev/null'], {cwd, env})
    const exit = await p.exited
    expect(exit.code, p.output()).toBe(1)
    expect(p.output()).toContain('Installing dependencies (npm install)…')
    if (sttyPrefix) expect(p.output()).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏-] Installing dependencies/)
    else expect(p.output()).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
    expect(p.output()).toContain('Could not install dependencies')
    expect(p.output()).toContain('Retry with: cd spin-bot && npm install')
    expect(readFileSync(join(cwd, 'spin-bot', 'package.json'), 'utf8')).toContain('"name": "spin-bot"')
  })
})

describe('bot init without a terminal', () => {
  it('asks nothing when stdin is not a TTY, even without --yes', async () => {
    const cwd = tempDir()
    const r = await init(['--no-install', '--no-git'], {}, cwd)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout + r.stderr).not.toMatch(/Project folder|Framework|Bot token/)
    expect(JSON.parse(readFileSync(join(cwd, 'my-bot', 'package.json'), 'utf8')).name).toBe('my-bot')
  })
})
