/**
 * Issue 31, a new user's path: a bot that crashed at start.
 * - item 9: on a terminal the keys work from start-up (before any Ready line), so `r` restarts a bot
 *   that exited at once, and the key is not echoed into the terminal;
 * - item 11: `bot trigger` and `bot replay` while the bot is down fail at once with one line that
 *   says so (its exit code, press r or save a file), instead of a 503 after the hold.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {cliEnv, runCli} from '../support/cli.js'
import {hasPty, runOnTerminal} from '../support/pty.js'
import {devWorld, fixture, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** A project whose bot exits with code 3 on its first start and runs the echo bot from then on. */
function crashOnceProject(): string {
  const dir = join(world.dir, 'project')
  mkdirSync(dir)
  // The mark lives outside the project folder, so writing it is no file change for the watcher.
  const mark = join(world.dir, 'started-once')
  writeFileSync(
    join(dir, 'bot.mjs'),
    `import {existsSync, writeFileSync} from 'node:fs'
const mark = ${JSON.stringify(mark)}
if (!existsSync(mark)) {
  writeFileSync(mark, '')
  console.error('Error: boom on the first start')
  process.exit(3)
}
await import(${JSON.stringify(fixture('echo-bot.mjs'))})
`,
  )
  return dir
}

describe.skipIf(!hasPty)('on a terminal, before the bot was ever ready', () => {
  it('r restarts a bot that exited at once, and neither r nor q is echoed', async () => {
    const dir = crashOnceProject()
    const r = await runOnTerminal(
      ['dev', '--api-root', world.emu.apiRoot, '--tunnel-host', world.lt.url, '--', 'node', 'bot.mjs'],
      {
        cwd: dir,
        env: cliEnv({
          env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, TERM: 'xterm', CI: undefined},
        }),
        steps: [
          {pattern: 'Waiting for a file change', send: 'r'},
          {pattern: 'Ready', send: 'q'},
        ],
        timeoutS: 90, // bounds a hung session only
      },
    )
    expect(r.timedOut, r.output).toBe(false)
    expect(r.steps, r.output).toBe(2)
    expect(r.output).toMatch(/The bot exited with code 3/)
    expect(r.output).toMatch(/↻ Restarting the bot \(r pressed/)
    // The terminal was in raw mode: the typed keys do not appear on a line of their own.
    const lines = r.output.split(/\r?\n/).map((l) => l.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '').trim())
    expect(lines.filter((l) => l === 'r' || l === 'q' || l.endsWith(' r') || l.startsWith('r↻'))).toEqual([])
    expect(r.output).not.toMatch(/\^C/)
    expect(r.exitCode, r.output).toBe(0)
  })
})

describe('bot trigger and bot replay while the bot is down', () => {
  it('fail at once with the exit code and what restarts it, not a 503 after the hold', async () => {
    const dir = join(world.dir, 'project')
    mkdirSync(dir)
    writeFileSync(join(dir, 'bot.mjs'), "console.error('Error: boom'); process.exit(3)\n")
    // No terminal here: --wait-for-fix keeps the session waiting as it would on one.
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      // The hold and the trigger's wait are 10 minutes: a trigger that waited for either would outlive its 90 s
      // (timedOut); only the answer at once ends it.
      args: ['--wait-for-fix', '--action-timeout', '600000', '--hold-timeout', '600'],
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Waiting for a file change/, {timeoutMs: 20_000})
    const env = {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir}
    for (const args of [
      ['trigger', 'message', 'hello', '--chat', '42'],
      ['replay', '--last'],
    ]) {
      const r = await runCli(args, {cwd: dir, env, timeoutMs: 90_000})
      expect(r.timedOut, r.stderr).toBe(false)
      expect(r.code, r.stderr).not.toBe(0)
      expect(r.stderr).toMatch(/The bot exited with code 3 and is not running: nothing was sent\./)
      expect(r.stderr).toMatch(/Press r in `bot dev`, or save a file, to restart it/)
      expect(r.stderr).not.toMatch(/\b503\b|did not take the update/)
    }
    dev.kill('SIGINT')
    await dev.exited
  }, 90_000)
})
