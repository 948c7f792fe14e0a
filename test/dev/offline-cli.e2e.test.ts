/** `bot dev --offline` as a real process: scripted chat lines on stdin, replies on stdout, both modes. */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {PROJECT_ROOT, runCli} from '../support/cli.js'

const ECHO_BOT = join(PROJECT_ROOT, 'examples', 'echo-bot')

describe('bot dev --offline', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers lines typed on stdin (${mode}), with no token and no network`, async () => {
      const result = await runCli(['dev', '--offline', '--no-watch', '--mode', mode], {
        cwd: ECHO_BOT,
        input: '/start\nhello\n',
        timeoutMs: 90_000,
      })
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/you › \/start\nbot › Hi .*\nyou › hello\nbot › hello/)
      // One start-up line instead of the relay/tunnel/webhook/step lines, and nothing about going back to long polling.
      const how = mode === 'webhook' ? 'webhook over loopback on port \\d+' : 'long polling'
      expect(result.stderr).toMatch(
        new RegExp(
          `^Offline: \`node --import tsx src/main\\.ts\` runs as @offline_dev_bot on the built-in emulator \\(http://127\\.0\\.0\\.1:\\d+\\), ${how}\\. Sending each line of input as You \\(chat 1111\\)\\. Chat page: http://127\\.0\\.0\\.1:\\d+/chat\\?key=\\w+ Inspector: http://127\\.0\\.0\\.1:\\d+/\\?key=\\w+$`,
          'm',
        ),
      )
      expect(result.stderr).not.toMatch(
        /Relay on|Loopback URL|Webhook set|Webhook deleted|Bot @offline_dev_bot|No other session|Ready:|▶|back on long polling|No webhook set/,
      )
      if (mode === 'webhook') expect(result.stderr).toMatch(/← #\d+ message chat 1111 "hello" → 200/)
      // Webhook mode counts failures (none); polling mode has no relay, so no count of its own.
      expect(result.stderr).toMatch(
        mode === 'webhook' ? /: 2 updates sent, 0 failures; exit code 0\.$/m : /: 2 updates sent; exit code 0\.$/m,
      )
      expect(result.stderr).not.toContain('relayed')
      expect(result.stderr).toMatch(/exit code 0/)
    })
  }

  it('--json gives events only, the chat included', async () => {
    const result = await runCli(['dev', '--offline', '--no-watch', '--json'], {
      cwd: ECHO_BOT,
      input: 'hi\n',
      timeoutMs: 90_000,
    })
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; event?: {type: string; lines?: string[]}})
    expect(events[0].type).toBe('offline')
    // The human output is shortened; the event stream is not: every step, the bot's start, the teardown.
    const types = new Set(events.map((e) => e.type))
    for (const type of ['step', 'bot-start', 'bot-listening', 'ready', 'update', 'teardown', 'summary'])
      expect(types, type).toContain(type)
    expect(result.stdout).not.toContain('back on long polling')
    expect(events.find((e) => e.type === 'chat' && e.event?.type === 'bot')?.event?.lines).toEqual(['bot › hi'])
    expect(events.at(-1)?.type).toBe('summary')
  })
})
