/**
 * The offline chat's `:`-commands: an unknown one is an error line and nothing reaches the bot; a
 * line starting with `::` is a message that starts with one colon. `bot dev --offline` as a real
 * process with piped input (the picky fixture bot answers each text with "ok: <text>"). Needs `npm run build`.
 */
import {describe, expect, it} from 'vitest'

import {fixture} from '../dev/helpers.js'
import {runCli} from '../support/cli.js'

describe('bot dev --offline: :unknown commands', () => {
  it('are an error line, not a message to the bot; piped, they make the exit code 1', async () => {
    const r = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('picky-bot.mjs')], {
      input: 'hello\n:foo bar\n::colon\n:help\n',
      timeoutMs: 90_000,
    })
    const out = r.stdout.split('\n')
    expect(out).toContain(
      '✗ Unknown command :foo. Commands: :press N | :press LABEL, :photo PATH, :file PATH, :pay, :save NAME, :help, :quit. To send a message that starts with ":", begin it with "::".',
    )
    // Nothing of ":foo" was sent: no "you ›" line for it, no answer, no update.
    expect(r.stdout).not.toMatch(/you › :foo|ok: :foo/)
    expect(r.stderr).not.toContain(':foo')
    // "::colon" is the message ":colon".
    expect(out).toContain('you › :colon')
    expect(out).toContain('bot › ok: :colon')
    expect(r.stdout).toContain(':press N | :press LABEL') // :help still works
    // Two lines reached the bot (hello, :colon), one was refused: a script learns about the typo.
    // The verdict first, then the summary naming the same exit code.
    expect(r.stderr).toContain(
      '✗ 1 unknown :command (of 3 lines piped in): exiting with code 1.\n■ bot dev --offline ended after',
    )
    expect(r.stderr).toMatch(/: 2 updates sent, 0 failures; exit code 1\./)
    expect(r.code).toBe(1)
  })

  it('--json: the error is a chat event of its own, and no user message', async () => {
    const r = await runCli(['dev', '--offline', '--no-watch', '--json', '--', 'node', fixture('picky-bot.mjs')], {
      input: ':nope\nhi\n',
      timeoutMs: 90_000,
    })
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; event?: {type: string; text?: string}; unknown?: number})
    const chat = events.filter((e) => e.type === 'chat').map((e) => e.event!)
    expect(chat.find((e) => e.type === 'error')?.text).toMatch(/^✗ Unknown command :nope\./)
    expect(chat.filter((e) => e.type === 'user').map((e) => e.text)).toEqual(['hi'])
    expect(events.at(-2)).toMatchObject({type: 'offline-result', ok: false, unknown: 1})
    expect(events.at(-1)).toMatchObject({type: 'summary', exitCode: 1})
    expect(r.code).toBe(1)
  })
})
