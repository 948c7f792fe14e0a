/**
 * Piped `bot dev --offline` (a CI script) exits 1 when the bot left a line without an answer or
 * failed an update, and 0 when every line got one; a real process with test/fixtures/bots/picky-bot.mjs.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'

const PICKY = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'picky-bot.mjs')

function offline(input: string, args: string[] = []) {
  return runCli(['dev', '--offline', '--no-watch', ...args, '--', 'node', PICKY], {input, timeoutMs: 90_000})
}

describe('piped bot dev --offline: the exit code says whether the bot answered', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`every line answered: exit 0, no verdict line (${mode})`, async () => {
      const r = await offline('hello\nagain\n', ['--mode', mode])
      expect(r.stdout).toContain('bot › ok: hello')
      expect(r.stdout).toContain('bot › ok: again')
      expect(r.stderr).not.toMatch(/exiting with code 1/)
      expect(r.code, r.stderr).toBe(0)
    })

    it(`a line the bot handles without replying: exit 1 and one line saying so (${mode})`, async () => {
      const r = await offline('hello\nignore me\n', ['--mode', mode])
      expect(r.stdout).toContain('bot › ok: hello')
      expect(r.stderr).toContain('✗ 1 line handled without a reply (of 2 lines piped in): exiting with code 1.')
      // The summary comes after the verdict and names the same exit code.
      const verdictAt = r.stderr.indexOf('exiting with code 1.')
      const summary = /■ bot dev --offline ended .*; exit code (\d+)\./.exec(r.stdout + r.stderr)
      expect(summary?.[1], r.stdout + r.stderr).toBe('1')
      if (r.stderr.includes('■')) expect(r.stderr.indexOf('■')).toBeGreaterThan(verdictAt)
      expect(r.code, r.stderr).toBe(1)
    })
  }

  it('an update the bot fails (500 from its webhook): exit 1, the failure counted', async () => {
    // (Last: a failed update is retried, and later lines of the chat would queue behind it.)
    // The chat gives up on "fail now" after --reply-timeout (5 s by default).
    const r = await offline('hello\nfail now\n', ['--mode', 'webhook', '--reply-timeout', '1'])
    expect(r.stdout).toContain('bot › ok: hello')
    expect(r.stderr).toMatch(/→ 500/)
    expect(r.stderr).toMatch(
      /✗ 1 line not handled in time, \d+ updates? failed \(of 2 lines piped in\): exiting with code 1\./,
    )
    expect(r.code, r.stderr).toBe(1)
  })

  it('the first line waits --reply-timeout like every other line (not 30 s): the docs and the chat agree', async () => {
    // The bot listens before the chat starts (webhook mode), so its start-up is not the first line's wait.
    const r = await offline('fail now\n', ['--mode', 'webhook', '--reply-timeout', '1'])
    expect(r.stdout + r.stderr).toMatch(
      /\(the bot has not handled "fail now" after 1\.\ds; sending on, it stays queued\)/,
    )
    // (The line names the wait that ended it: 1.x s, the reply timeout, not 30 s. No stopwatch.)
    expect(r.code).toBe(1)
  })

  it('--json: the verdict is an event, and the exit code is 1', async () => {
    const r = await offline('ignore this\n', ['--json'])
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; ok?: boolean; silent?: number; exitCode?: number})
    // The verdict, then the summary with the same exit code.
    expect(events.at(-2)).toMatchObject({type: 'offline-result', ok: false, silent: 1, unanswered: 0})
    expect(events.at(-1)).toMatchObject({type: 'summary', exitCode: 1})
    expect(events.filter((e) => e.type === 'offline-result')).toHaveLength(1)
    expect(r.code).toBe(1)
  })
})
