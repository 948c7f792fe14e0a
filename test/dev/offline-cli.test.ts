/** `bot dev --offline` as a real process: scripted chat lines on stdin, replies on stdout, both modes. */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'

const ECHO_BOT = join(PROJECT_ROOT, 'examples', 'echo-bot')

describe('bot dev --offline', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers lines typed on stdin (${mode}), with no token and no network`, async () => {
      const result = await runCli(['dev', '--offline', '--no-watch', '--mode', mode], {cwd: ECHO_BOT, input: '/start\nhello\n', timeoutMs: 40_000})
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/you › \/start\nbot › Hi .*\nyou › hello\nbot › hello/)
      expect(result.stderr).toMatch(/Offline: Bot API emulator on http:\/\/127\.0\.0\.1:\d+/)
      if (mode === 'webhook') expect(result.stderr).toMatch(/Loopback URL http:\/\/127\.0\.0\.1:\d+ \(no tunnel\)[^]*→ 200/)
      // Webhook mode: both updates went through the relay; polling mode: the bot fetched them itself.
      expect(result.stderr).toContain(mode === 'webhook' ? '2 updates relayed, 0 failures' : '0 updates relayed, 0 failures')
      expect(result.stderr).toMatch(/exit code 0/)
    }, 45_000)
  }

  it('--json gives events only, the chat included', async () => {
    const result = await runCli(['dev', '--offline', '--no-watch', '--json'], {cwd: ECHO_BOT, input: 'hi\n', timeoutMs: 40_000})
    expect(result.code).toBe(0)
    const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as {type: string; event?: {type: string; lines?: string[]}})
    expect(events[0].type).toBe('offline')
    expect(events.find((e) => e.type === 'chat' && e.event?.type === 'bot')?.event?.lines).toEqual(['bot › hi'])
    expect(events.at(-1)?.type).toBe('summary')
  }, 45_000)
})
