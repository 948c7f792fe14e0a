/**
 * Recording in the offline chat, end to end: `bot dev --offline` (a real process) runs a real grammY bot
 * (test/fixtures/bots/script-bot.mjs) in webhook and in polling mode, the chat is piped in, `:save NAME` writes
 * test/NAME.chat.yml with the photo as a fixture; the file parses, `bot test` passes it (a new emulator: new users,
 * new chats) whichever mode the bot runs in; a changed answer fails it with the diff, `bot test --update` takes the
 * new answer and it passes again; runChatScript passes it too.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {parseChatScript} from '../../src/emulator/scripts/parse.js'
import {PROJECT_ROOT, runCli} from '../support/cli.js'
import {png} from '../emulator/media-fixtures.js'
import {waitFor} from '../support/wait.js'

const BOT = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'script-bot.mjs')

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

/** Play a script file against script-bot.mjs in long polling, on a new emulator (the runner, as `bot test` plays it). */
async function replay(file: string, env: Record<string, string> = {}) {
  const emu = await BotApiEmulator.start({timeScale: 0.01})
  cleanups.push(() => emu.stop())
  const {token} = emu.createBot({username: 'replay_bot'})
  const child = spawn(process.execPath, [BOT], {
    env: {...process.env, BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_MODE: 'polling', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise((resolve) => child.on('close', resolve))
  cleanups.push(() => {
    child.kill('SIGKILL')
    return exited
  })
  child.stdout.resume()
  child.stderr.resume()
  await waitFor(() => emu.isLongPolling(token), {what: 'the bot polling', timeout: 30_000})
  return emu.runChatScript(token, readFileSync(file, 'utf8'), {file, timeoutMs: 15_000})
}

describe.each(['webhook', 'polling'] as const)(':save in bot dev --offline, bot in %s mode', (mode) => {
  it('writes a script bot test passes; a changed answer fails it with the diff, --update takes it', async () => {
    const project = mkdtempSync(join(tmpdir(), 'record-offline-'))
    writeFileSync(join(project, 'cat.png'), png(8, 8))
    const input = ['/start', '/menu', ':press Pizza', ':photo cat.png on the sofa', 'hello', ':save talk', ''].join(
      '\n',
    )
    const r = await runCli(['dev', '--offline', '--no-watch', '--mode', mode, '--', 'node', BOT], {
      cwd: project,
      input,
      timeoutMs: 90_000,
    })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain(
      '✓ Saved test/talk.chat.yml: 11 steps; files: test/fixtures/cat.png. Run it with: npx bot test test/talk.chat.yml',
    )
    const file = join(project, 'test', 'talk.chat.yml')
    const text = readFileSync(file, 'utf8')
    expect(text).toBe(
      [
        '# Recorded in the offline chat (bot dev --offline, :save). Run it with: npx bot test',
        '',
        `bot: node ${BOT}`,
        'users:',
        '  you: {first_name: You, username: offline_user}',
        'steps:',
        '  - user: /start',
        '  - bot: Hi You! /menu shows the menu.',
        '  - user: /menu',
        '  - bot: {text: Menu, buttons: [[Pasta, Pizza], [Back]]}',
        '  - press: Pizza',
        '  - call: {method: answerCallbackQuery, text: Saved}',
        '  - bot: {edit: "You picked Pizza, You"}',
        '  - photo: {path: fixtures/cat.png, caption: on the sofa}',
        '  - bot: "A photo: on the sofa"',
        '  - user: hello',
        '  - bot: "echo: hello"',
        '',
      ].join('\n'),
    )
    expect(readFileSync(join(project, 'test', 'fixtures', 'cat.png')).equals(png(8, 8))).toBe(true)
    const script = parseChatScript(text, {file})
    expect(script.steps).toHaveLength(11)

    // bot test plays it (the script's bot: runs the bot) against a new emulator: new users, new chats.
    const test = (args: string[], env: Record<string, string> = {}) =>
      runCli(['test', 'test/talk.chat.yml', '--mode', mode, ...args], {cwd: project, env, timeoutMs: 90_000})
    const passed = await test([])
    expect(passed.code, passed.stdout + passed.stderr).toBe(0)
    expect(passed.stdout).toMatch(/^✓ test\/talk\.chat\.yml {2}11 steps {2}\d+ ms$/m)

    // The bot changed its greeting: the script fails at the /start answer, with what was expected and what came.
    const failed = await test([], {FIXTURE_GREETING: 'Hello'})
    expect(failed.code, failed.stdout + failed.stderr).toBe(1)
    expect(failed.stdout).toContain('test/talk.chat.yml:8  bot:')
    expect(failed.stdout).toContain(
      '- text: "Hi You! /menu shows the menu."\n    + text: "Hello You! /menu shows the menu."',
    )
    // --update takes the new answer; the script passes again, the rest of it unchanged.
    const updated = await test(['--update'], {FIXTURE_GREETING: 'Hello'})
    expect(updated.code, updated.stdout + updated.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(
      text.replace('bot: Hi You! /menu shows the menu.', 'bot: "Hello You! /menu shows the menu."'),
    )
    const again = await test([], {FIXTURE_GREETING: 'Hello'})
    expect(again.code, again.stdout + again.stderr).toBe(0)

    // The same with the library's runner (runChatScript), as a vitest user plays it.
    const replayed = await replay(file, {FIXTURE_GREETING: 'Hello'})
    expect(replayed.failures).toEqual([])
    expect(replayed).toMatchObject({ok: true, ran: 11})
  }, 300_000)
})
