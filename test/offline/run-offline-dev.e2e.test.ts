/**
 * runOfflineDev (what `bot dev --offline` calls) with the real example bot (examples/echo-bot, grammY
 * run by tsx through its `dev:bot` script) as a child process, in webhook and polling mode: scripted
 * chat lines in, the bot's replies out, then a clean teardown with the bot's exit code.
 */
import {PassThrough} from 'node:stream'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {resolveBotCommand} from '../../src/dev/index.js'
import {runOfflineDev, type OfflineDevEvent} from '../../src/offline/index.js'
import {PROJECT_ROOT} from '../support/paths.js'

const ECHO_BOT = join(PROJECT_ROOT, 'examples', 'echo-bot')

function collect(stream: PassThrough): () => string {
  let text = ''
  stream.setEncoding('utf8').on('data', (d: string) => (text += d))
  return () => text
}

describe.each(['webhook', 'polling'] as const)('runOfflineDev, %s mode, examples/echo-bot', (mode) => {
  it('answers scripted lines and ends when the input ends', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const log = new PassThrough()
    const transcript = collect(output)
    const logText = collect(log)
    const events: OfflineDevEvent[] = []
    input.end('/start\nhello\n/ask\n:press Yes\n')
    const summary = await runOfflineDev({
      mode,
      command: resolveBotCommand([], ECHO_BOT),
      cwd: ECHO_BOT,
      watch: false,
      input,
      output,
      logOutput: log,
      onEvent: (event, print) => {
        events.push(event)
        if (event.type !== 'chat' && event.type !== 'bot-output') print(event.text)
      },
    })

    expect(transcript().split('\n')).toEqual([
      'you › /start',
      'bot › Hi You! I echo what you send. /help lists what I can do.',
      'you › hello',
      'bot › hello',
      'you › /ask',
      'bot › Do you like this bot?',
      '      [ Yes ] [ No ]',
      'you › [Yes]',
      'bot › (notification) Thanks!',
      'bot › (edited) You like it. 🎉',
      '',
    ])
    expect(summary).toMatchObject({
      mode,
      exitCode: 0,
      endedBy: 'chat',
      chat: {sent: 4, unanswered: 0, reason: 'input-ended'},
    })
    if (mode === 'webhook') expect(summary.relayed).toBe(4)

    const offline = events.find((e) => e.type === 'offline')
    expect(offline).toMatchObject({botUsername: 'offline_dev_bot', userId: 1111, chatId: 1111})
    const apiRoot = (offline as {apiRoot: string}).apiRoot
    expect(logText()).toContain(`Offline: Bot API emulator on ${apiRoot}`)
    // One start-up line (the ready event in offline words), not the relay/webhook/step lines.
    const readyEvent = events.find((e) => e.type === 'ready') as {text: string} | undefined
    expect(readyEvent?.text).toBe(
      `Offline: \`node --import tsx src/main.ts\` runs as @offline_dev_bot on the built-in emulator (${apiRoot}), ${mode === 'webhook' ? `webhook over loopback on port ${(readyEvent as {port?: number}).port}` : 'long polling'}. Sending each line of input as You (chat 1111).${(readyEvent as {chatUrl?: string}).chatUrl ? ` Chat page: ${(readyEvent as {chatUrl?: string}).chatUrl}` : ''}${(readyEvent as {inspectorUrl?: string}).inspectorUrl ? ` Inspector: ${(readyEvent as {inspectorUrl?: string}).inspectorUrl}` : ''}`,
    )
    expect(logText()).toContain(readyEvent!.text)
    expect(logText()).not.toContain('back on long polling')
    // Nothing leaves loopback: the webhook the session set pointed at 127.0.0.1.
    const ready = events.find((e) => e.type === 'ready') as {url?: string} | undefined
    if (mode === 'webhook') expect(ready?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // The emulator is stopped afterwards.
    await expect(fetch(`${apiRoot}/bot1:x/getMe`)).rejects.toThrow()
  })
})

describe('runOfflineDev, session ending first', () => {
  it('closes the chat when the bot exits by itself and reports its exit code', async () => {
    const input = new PassThrough() // never ends: the bot's exit must end everything
    const summary = await runOfflineDev({
      mode: 'polling',
      command: resolveBotCommand(['node', '-e', 'setTimeout(() => process.exit(3), 200)'], ECHO_BOT),
      cwd: ECHO_BOT,
      watch: false,
      input,
      onEvent: () => {},
    })
    expect(summary).toMatchObject({exitCode: 3, endedBy: 'session', reason: 'bot-exit'})
  })
})
