/**
 * Keys in a terminal session (a real pseudo-terminal): r restarts the bot, o opens
 * the inspector (here $BROWSER, a script that writes down what it was given), c clears the screen,
 * q quits as Ctrl-C, h lists them; shown once in the Ready line. Off when stdin is not a terminal;
 * in the --offline chat (stdin is the chat) they are the chat commands :r and :o.
 */
import {chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {devWorld, fixture, startDev, type DevWorld} from '../dev/helpers.js'
import {cliEnv, runCli} from '../support/cli.js'
import {hasPty, runOnTerminal} from '../support/pty.js'
import {waitFor} from '../support/wait.js'

/** A stand-in browser: appends the URL it is asked to open to `opened`. */
function fakeBrowser(dir: string): {browser: string; opened: () => string[]} {
  const opened = join(dir, 'opened.txt')
  const browser = join(dir, 'browser.sh')
  writeFileSync(browser, `#!/bin/sh\necho "$1" >> '${opened}'\n`)
  chmodSync(browser, 0o755)
  return {browser, opened: () => (existsSync(opened) ? readFileSync(opened, 'utf8').split('\n').filter(Boolean) : [])}
}

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

describe.skipIf(!hasPty)('keys in a terminal session', () => {
  it('h lists them, r restarts the bot, o opens the inspector, c clears the screen, q quits as Ctrl-C', async () => {
    const {browser, opened} = fakeBrowser(world.dir)
    const r = await runOnTerminal(
      [
        'dev',
        '--api-root',
        world.emu.apiRoot,
        '--tunnel-host',
        world.lt.url,
        '--no-watch',
        '--',
        'node',
        fixture('echo-bot.mjs'),
      ],
      {
        cwd: world.dir,
        env: cliEnv({
          env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, BROWSER: browser, TERM: 'xterm', NO_COLOR: '1'},
        }),
        steps: [
          {pattern: 'Keys: r restart · o inspector · w chat · c clear · q quit · h help\\.', send: 'h'},
          {pattern: 'q  quit', send: 'r'},
          {pattern: 'Restarting the bot \\(r pressed[\\s\\S]*Bot listening on port', send: 'o'},
          {pattern: 'Opening the inspector: http://127\\.0\\.0\\.1:\\d+/\\?code=', send: 'c'},
          {pattern: '\\x1b\\[2J', send: 'q'},
        ],
        timeoutS: 90, // bounds a hung session only
      },
    )
    expect(r.timedOut, r.output).toBe(false)
    expect(r.steps, r.output).toBe(5)
    expect(r.exitCode, r.output).toBe(0)
    // The hint once, on the Ready line.
    expect(r.output.match(/Keys: r restart/g)).toHaveLength(1)
    expect(r.output).toMatch(/● Ready: .*Keys: r restart/)
    // Two bot processes: the restart was real.
    expect(r.output.match(/▶ node .*echo-bot\.mjs \(pid \d+/g)).toHaveLength(2)
    expect(opened()).toHaveLength(1)
    // A one-time code, not the key: the browser's argv is public.
    expect(opened()[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=[0-9a-f]{32}$/)
    // q quits as Ctrl-C does: the webhook deleted.
    expect(r.output).toMatch(/Webhook deleted \(pending updates kept\)/)
    expect(world.emu.webhook(world.token)).toBeUndefined()
  })

  it('Ctrl-C still quits (raw mode): once for teardown', async () => {
    const r = await runOnTerminal(
      [
        'dev',
        '--api-root',
        world.emu.apiRoot,
        '--tunnel-host',
        world.lt.url,
        '--no-watch',
        '--',
        'node',
        fixture('echo-bot.mjs'),
      ],
      {
        cwd: world.dir,
        env: cliEnv({env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, TERM: 'xterm', NO_COLOR: '1'}}),
        steps: [{pattern: 'Keys: r restart', send: '\u0003'}],
        timeoutS: 90, // bounds a hung session only
      },
    )
    expect(r.timedOut, r.output).toBe(false)
    expect(r.exitCode, r.output).toBe(0)
    expect(world.emu.webhook(world.token)).toBeUndefined()
  })
})

describe('without a terminal', () => {
  it('no keys: the Ready line has no hint, and typed letters do nothing', async () => {
    const dev = startDev(world)
    await dev.waitForOutput(/Ready/)
    dev.child.stdin?.write('rq')
    const update = world.emu.sendUserMessage(world.token, {text: '/start'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update'})
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.code).toBe(0)
    expect(r.stderr).not.toMatch(/Keys:|Restarting the bot/)
  })
})

describe('bot dev --offline: the chat commands :r and :o', () => {
  it(':r restarts the bot, :o opens the inspector; :help lists them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-offline-keys-'))
    const {browser, opened} = fakeBrowser(dir)
    const r = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('inspector-bot.mjs')], {
      cwd: dir,
      input: 'before\n:r\nafter\n:o\n:help\n',
      env: {BOT_STATE_DIR: join(dir, 'state'), BROWSER: browser},
      timeoutMs: 90_000,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('bot › echo: before')
    expect(r.stdout).toContain('bot › echo: after')
    expect(r.stderr).toMatch(/↻ Restarting the bot \(:r; updates are held meanwhile\)/)
    expect(r.stderr.match(/▶ node .*inspector-bot\.mjs/g)?.length ?? 0).toBe(1) // the restart's (the first is in the start-up line)
    expect(opened()).toHaveLength(1)
    expect(opened()[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=[0-9a-f]{32}$/)
    expect(r.stdout + r.stderr).toMatch(/:r {24}restart the bot/)
  })
})
