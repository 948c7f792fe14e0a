/**
 * A bot that cannot start must not hang a session nobody watches. Without a
 * terminal on stdin (a pipe, CI), a bot that exits before it is up, or right after a restart, ends
 * the session at once: its last lines, a non-zero exit. On a terminal the session waits for a fix.
 */
import {copyFileSync, mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {cliEnv, runCli} from '../support/cli.js'
import {hasPty, runOnTerminal} from '../support/pty.js'
import {devWorld, fixture, startDev, type DevWorld} from './helpers.js'

/** A bot that throws while it starts. */
function crashingProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-early-exit-'))
  writeFileSync(join(dir, 'crash.js'), "console.log('starting')\nthrow new Error('boom at start')\n")
  return dir
}

describe('piped bot dev --offline with a bot that throws at start', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`ends the session with the bot's last lines and exit 1, within seconds (${mode})`, async () => {
      const dir = crashingProject()
      const r = await runCli(['dev', '--offline', '--mode', mode, '--', 'node', 'crash.js'], {
        cwd: dir,
        input: 'hi\n',
        env: {BOT_STATE_DIR: join(dir, 'state')},
        timeoutMs: 90_000,
      })
      expect(r.timedOut, r.stderr).toBe(false)
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/The bot exited before it was ready, and nobody is at a terminal to fix it/)
      // Its last lines, again, under the line that ends the session.
      expect(r.stderr).toMatch(/Its last lines:\n(?: {4}.*\n)* {4}Error: boom at start/)
      // It ended by itself (not killed as hung: timedOut false above) and waited for no fix: what "within seconds"
      // means, without a stopwatch a loaded machine would beat (the CLI alone takes seconds to start there).
      expect(r.stderr).not.toMatch(/Waiting for a file change/)
    })
  }
})

describe('piped bot dev (online) with a bot that cannot start', () => {
  let world: DevWorld
  beforeEach(async () => {
    world = await devWorld()
  })
  afterEach(async () => {
    await world.close()
  })

  it("a bot that exits before it listens ends the session with the bot's code, webhook deleted", async () => {
    const dev = startDev(world, {bot: 'crash-bot.mjs', args: ['--debounce', '50'], timeoutMs: 90_000})
    const r = await dev.exited
    expect(r.timedOut, r.stderr).toBe(false)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/The bot exited with code 3/)
    expect(r.stderr).toMatch(/nobody is at a terminal to fix it[^]*Its last lines:\n(?: {4}.*\n)* {4}Error: boom/)
    expect(world.emu.webhook(world.token)).toBeUndefined()
  })

  it('a bot that crashes right after a restart ends the session', async () => {
    const dir = join(world.dir, 'project')
    mkdirSync(dir)
    const botFile = join(dir, 'bot.mjs')
    copyFileSync(fixture('echo-bot.mjs'), botFile)
    const dev = startDev(world, {cwd: dir, bot: ['node', 'bot.mjs'], args: ['--debounce', '50'], timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    copyFileSync(fixture('crash-bot.mjs'), botFile) // a change that breaks it
    const r = await dev.exited
    expect(r.timedOut, r.stderr).toBe(false)
    expect(r.stderr).toMatch(/↻ bot\.mjs changed; restarting the bot/)
    expect(r.stderr).toMatch(
      /The bot exited before it was up again after the restart, and nobody is at a terminal to fix it/,
    )
    expect(r.code).toBe(3)
    expect(world.emu.webhook(world.token)).toBeUndefined()
  })
})

describe.skipIf(!hasPty)('on a terminal', () => {
  it('a bot that throws at start leaves the session waiting for a file change', async () => {
    const dir = crashingProject()
    const r = await runOnTerminal(['dev', '--offline', '--', 'node', 'crash.js'], {
      cwd: dir,
      // A person at a terminal: not a CI run (CI=true would end the session like a pipe does).
      env: cliEnv({env: {BOT_STATE_DIR: join(dir, 'state'), TERM: 'xterm', CI: undefined}}),
      steps: [{pattern: 'Waiting for a file change', send: '\u0003'}],
      timeoutS: 90, // bounds a hung session only
    })
    expect(r.timedOut, r.output).toBe(false)
    expect(r.steps, r.output).toBe(1)
    expect(r.output).not.toMatch(/nobody is at a terminal/)
  })
})
