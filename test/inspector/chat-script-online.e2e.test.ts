/**
 * An online conversation saved from the inspector becomes an offline test: `bot dev` (a real process) runs a real
 * grammY bot (test/fixtures/bots/script-bot.mjs) against the emulator standing in for Telegram (webhook through the
 * loopback tunnel, and long polling); a person with a real-looking name, id, username and phone number talks to it;
 * POST /api/chat-script saves the range as test/NAME.chat.yml, anonymised (none of those values in the file); then
 * `bot test` passes it offline (and so does runChatScript), on a new emulator.
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {assertNoToken, devWorld, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'
import {PROJECT_ROOT, runCli, jsonEvents} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const BOT = join(PROJECT_ROOT, 'test', 'fixtures', 'bots', 'script-bot.mjs')
const PERSON = {
  id: 734_110_592,
  firstName: 'Margarethe',
  lastName: 'Vestager',
  username: 'mvestager',
  phone: '+4520123456',
}

let world: DevWorld
const cleanups: Array<() => unknown> = []
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
  await world.close()
})

type Event = Record<string, any>

const events = (dev: RunningCli): Event[] => jsonEvents(dev.stdout())

/** Play a script file against script-bot.mjs in long polling, on a new emulator (as `bot test` plays it). */
async function replayOffline(file: string) {
  const emu = await BotApiEmulator.start({timeScale: 0.01})
  cleanups.push(() => emu.stop())
  const {token} = emu.createBot({username: 'offline_bot'})
  const child = spawn(process.execPath, [BOT], {
    env: {...process.env, BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_MODE: 'polling'},
    stdio: ['ignore', 'ignore', 'ignore'],
  })
  const exited = new Promise((resolve) => child.on('close', resolve))
  cleanups.push(() => {
    child.kill('SIGKILL')
    return exited
  })
  await waitFor(() => emu.isLongPolling(token), {what: 'the bot polling', timeout: 30_000})
  return emu.runChatScript(token, readFileSync(file, 'utf8'), {file, timeoutMs: 15_000})
}

describe.each(['webhook', 'polling'] as const)('Save as chat script from an online session (%s mode)', (mode) => {
  it('writes the conversation anonymised, and the bot passes it offline', async () => {
    const {emu, token} = world
    const dev = startDev(world, {bot: ['node', BOT], args: ['--no-watch', '--json', '--mode', mode], timeoutMs: 90_000})
    await waitFor(() => events(dev).some((e) => e.type === 'ready'), {what: 'bot dev ready', timeout: 60_000})
    const inspector = new URL(events(dev).find((e) => e.type === 'ready')!.inspectorUrl)
    const key = inspector.searchParams.get('key')!

    // Someone else talks to the bot first: not part of the script.
    emu.sendUserMessage(token, {text: 'before', userId: 5005, firstName: 'Other'})
    await emu.waitForBotMessage(token, {chatId: 5005, timeoutMs: 30_000})

    const chatId = PERSON.id
    emu.setUser(token, PERSON.id, {
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      username: PERSON.username,
      languageCode: 'da',
    })
    const say = async (text: string) => {
      emu.sendUserMessage(token, {text, userId: PERSON.id})
      return emu.waitForBotMessage(token, {chatId, timeoutMs: 30_000})
    }
    expect((await say('/start')).params.text).toBe(`Hi ${PERSON.firstName}! /menu shows the menu.`)
    const menu = await say('/menu')
    emu.sendCallbackQuery(token, {
      data: 'pizza',
      messageId: (menu.result as {message_id: number}).message_id,
      userId: PERSON.id,
    })
    // answerCallbackQuery names no chat
    await emu.waitForBotMessage(token, {timeoutMs: 30_000, predicate: (c) => c.method === 'answerCallbackQuery'})
    expect((await emu.waitForBotMessage(token, {chatId, timeoutMs: 30_000})).params.text).toBe(
      `You picked Pizza, ${PERSON.firstName}`,
    )
    await say(`call ${PERSON.phone}, @${PERSON.username}`)

    // The inspector lists the updates once each is handled, its calls attached.
    const list = async () => {
      const res = await fetch(`${inspector.origin}/api/updates`, {headers: {'x-bot-dev-key': key}})
      return (await res.json()) as Event[]
    }
    await waitFor(async () => (await list()).filter((e) => e.chatId === chatId && e.calls.length > 0).length === 4, {
      what: "the person's 4 updates with their calls in the inspector",
      timeout: 30_000,
    })
    const mine = (await list()).filter((e) => e.chatId === chatId).sort((a, b) => a.seq - b.seq)
    const before = (await list()).find((e) => e.chatId === 5005)!
    const res = await fetch(`${inspector.origin}/api/chat-script`, {
      method: 'POST',
      headers: {'x-bot-dev-key': key, 'content-type': 'application/json'},
      // From the other person's update on: the range is the first entry's chat, so start at the person's own.
      body: JSON.stringify({first: mine[0].seq, last: mine.at(-1)!.seq, name: 'online'}),
    })
    const answer = (await res.json()) as Event
    expect(res.status, JSON.stringify(answer)).toBe(201)
    expect(answer.path).toBe(join('test', 'online.chat.yml'))
    expect(before.seq).toBeLessThan(mine[0].seq)

    const file = join(world.dir, 'test', 'online.chat.yml')
    const text = readFileSync(file, 'utf8')
    for (const real of [
      PERSON.firstName,
      PERSON.lastName,
      PERSON.username,
      String(PERSON.id),
      PERSON.phone,
      '20123456',
    ])
      expect(text, `"${real}" in:\n${text}`).not.toContain(real)
    for (const secret of [token, token.split(':')[1], key]) expect(text).not.toContain(secret)
    expect(text).toContain('#   - names of 1 person → Ada (last names too)\n')
    expect(text).toContain('users:\n  ada: {first_name: Ada, last_name: Lovelace, username: ada, language_code: da}\n')
    expect(text).toContain(
      [
        '  - user: /start',
        '  - bot: Hi Ada! /menu shows the menu.',
        '  - user: /menu',
        '  - bot: {text: Menu, buttons: [[Pasta, Pizza], [Back]]}',
        '  - press: Pizza',
        '  - call: {method: answerCallbackQuery, text: Saved}',
        '  - bot: {edit: "You picked Pizza, Ada"}',
        '  - user: call +15550100, @ada',
        '  - bot: "echo: call +15550100, @ada"',
      ].join('\n'),
    )

    dev.child.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    assertNoToken(result, token)

    // Offline now: bot test runs the bot against its emulator, as new users in new chats, and it passes.
    const tested = await runCli(['test', 'test/online.chat.yml', '--mode', mode, '--', 'node', BOT], {
      cwd: world.dir,
      timeoutMs: 90_000,
    })
    expect(tested.code, tested.stdout + tested.stderr).toBe(0)
    expect(tested.stdout).toMatch(/^✓ test\/online\.chat\.yml {2}9 steps {2}\d+ ms$/m)
    // And the library's runner, as a vitest user plays it.
    const offline = await replayOffline(file)
    expect(offline.failures).toEqual([])
    expect(offline).toMatchObject({ok: true, ran: 9})
  }, 240_000)
})
