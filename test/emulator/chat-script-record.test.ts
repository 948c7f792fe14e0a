/**
 * Recording a conversation as a chat script: a real grammY bot (long polling, in this process) against the emulator,
 * driven by the conversation API; the recorder (emulator/scripts/record.ts) keeps the updates and the bot's calls,
 * the writer (write.ts) turns them into steps and exact expectations, save.ts writes the file and its fixtures.
 */
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {Bot, InlineKeyboard, Keyboard} from 'grammy'
import {afterEach, describe, expect, it} from 'vitest'

import {recordConversation} from '../../src/emulator/scripts/record.js'
import {checkScriptName, saveChatScript, ScriptSaveError} from '../../src/emulator/scripts/save.js'
import {writeChatScript} from '../../src/emulator/scripts/write.js'
import {setup} from './helpers.js'
import {png} from './media-fixtures.js'

const stops: Array<() => unknown> = []
afterEach(async () => {
  while (stops.length) await stops.pop()!()
})

async function recordedBot() {
  const {emu, token} = await setup()
  const bot = new Bot(token, {client: {apiRoot: emu.apiRoot}})
  bot.command('start', (ctx) => ctx.reply(`Hi <b>${ctx.from?.first_name}</b>!`, {parse_mode: 'HTML'}))
  bot.command('menu', (ctx) =>
    ctx.reply('Menu', {
      reply_markup: new InlineKeyboard().text('Pasta', 'pasta').text('Pizza', 'pizza').row().text('Back', 'back'),
    }),
  )
  bot.command('size', (ctx) => ctx.reply('Which size?', {reply_markup: new Keyboard().text('Small').text('Large')}))
  bot.command('regexp', (ctx) => ctx.reply('/not a pattern/'))
  bot.callbackQuery(/^(pasta|pizza)$/, async (ctx) => {
    await ctx.answerCallbackQuery('Saved')
    await ctx.editMessageText(`You picked ${ctx.match[1] === 'pizza' ? 'Pizza' : 'Pasta'}`)
  })
  bot.hears(/^(Small|Large)$/, (ctx) => ctx.reply(`${ctx.match[1]} it is`, {reply_markup: {remove_keyboard: true}}))
  bot.on('message:photo', async (ctx) => {
    await ctx.replyWithChatAction('typing')
    await ctx.reply(`A photo: ${ctx.message.caption ?? ''}`)
  })
  bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
  const recorder = recordConversation(emu, token)
  void bot.start()
  stops.push(
    () => bot.stop(),
    () => recorder.stop(),
  )
  return {emu, token, recorder}
}

describe('recording a conversation as a chat script', () => {
  it("writes the user's steps and the bot's answers as exact expectations, in order", async () => {
    const {emu, token, recorder} = await recordedBot()
    const ada = emu.user(token, {firstName: 'Ada', languageCode: 'en'})
    await ada.send('/start')
    await ada.send('/menu')
    await ada.click('Pizza')
    await ada.send('/size')
    await ada.click('Large')
    await ada.send('/regexp')
    await ada.sendPhoto(png(8, 8), {caption: 'my cat'})
    const turns = recorder.turns()
    expect(turns.map((t) => Object.keys(t.update)[1])).toEqual([
      'message',
      'message',
      'callback_query',
      'message',
      'message',
      'message',
      'message',
    ])
    const written = writeChatScript(turns, {header: ['A test'], fixture: () => 'fixtures/cat.png'})
    expect(written.skipped).toEqual([])
    expect(written.yaml).toBe(
      [
        '# A test',
        '',
        'users:',
        '  ada: {first_name: Ada, username: tester, language_code: en}',
        'steps:',
        '  - user: /start',
        '  - bot: Hi Ada!',
        '  - user: /menu',
        '  - bot: {text: Menu, buttons: [[Pasta, Pizza], [Back]]}',
        '  - press: Pizza',
        '  - call: {method: answerCallbackQuery, text: Saved}',
        '  - bot: {edit: You picked Pizza}',
        '  - user: /size',
        '  - bot: {text: Which size?, keyboard: [[Small, Large]]}',
        '  - user: Large',
        '  - bot: {text: Large it is, keyboard: false}',
        '  - user: /regexp',
        '  - bot: "/not a pattern/"',
        '  - photo: {path: fixtures/cat.png, caption: my cat}',
        '  - bot: "A photo: my cat"',
        '',
      ].join('\n'),
    )
    expect(written.steps).toBe(15)

    // The runner reads it and the bot passes it again, as new users in new chats; the photo read from the fixture.
    const dir = join(mkdtempSync(join(tmpdir(), 'chat-record-')), 'test')
    const saved = saveChatScript(turns, {dir, name: 'recorded', fileBytes: () => ({data: png(8, 8), name: 'cat.png'})})
    const result = await emu.runChatScript(token, readFileSync(saved.path, 'utf8'), {file: saved.path})
    expect(result.failures).toEqual([])
    expect(result).toMatchObject({ok: true, steps: 15, ran: 15})
  })

  it('follows only the chats asked for, and stops listening when stopped', async () => {
    const {emu, token} = await setup()
    const recorder = recordConversation(emu, token, {chats: [7001]})
    emu.sendUserMessage(token, {text: 'mine', chatId: 7001, userId: 7001})
    emu.sendUserMessage(token, {text: 'theirs', chatId: 7002, userId: 7002})
    recorder.stop()
    emu.sendUserMessage(token, {text: 'after', chatId: 7001, userId: 7001})
    expect(recorder.turns().map((t) => (t.update.message as {text: string}).text)).toEqual(['mine'])
  })

  it('groups: the chat type and several users, each switched to with as:', async () => {
    const {emu, token, recorder} = await recordedBot()
    const ada = emu.user(token, {firstName: 'Ada', chatId: -4001})
    const bob = emu.user(token, {firstName: 'Bob', chatId: -4001})
    await ada.send('hello')
    await bob.send('hi')
    await ada.send('bye')
    const {yaml} = writeChatScript(recorder.turns())
    expect(yaml).toContain('chat: group\n')
    expect(yaml).toContain(
      'users:\n  ada: {first_name: Ada, username: tester}\n  bob: {first_name: Bob, username: tester}\n',
    )
    expect(yaml).toContain(
      [
        '  - user: hello',
        '  - bot: hello',
        '  - as: bob',
        '  - user: hi',
        '  - bot: hi',
        '  - as: ada',
        '  - user: bye',
        '  - bot: bye',
      ].join('\n'),
    )
    const result = await emu.runChatScript(token, yaml)
    expect(result.failures).toEqual([])
    expect(result.ok).toBe(true)
  })
})

describe('saving a chat script', () => {
  const turns = [
    {
      update: {
        update_id: 1,
        message: {
          message_id: 1,
          from: {id: 5, first_name: 'Ada'},
          chat: {id: 5, type: 'private'},
          date: 1,
          photo: [
            {file_id: 'small', width: 1, height: 1},
            {file_id: 'big', width: 8, height: 8},
          ],
        },
      },
      calls: [{method: 'sendMessage', params: {chat_id: 5, text: 'nice'}}],
    },
  ]

  it("writes NAME.chat.yml and the user's files beside it; never overwrites a script; reuses a fixture with the same bytes", () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chat-save-')), 'test')
    const bytes = png(8, 8)
    const saved = saveChatScript(turns, {
      dir,
      name: 'photo',
      fileBytes: (f) => (f.fileId === 'big' ? {data: bytes, name: 'cat.png'} : undefined),
    })
    expect(saved.path).toBe(join(dir, 'photo.chat.yml'))
    expect(readFileSync(saved.path, 'utf8')).toContain('  - photo: fixtures/cat.png\n  - bot: nice\n')
    expect(readFileSync(join(dir, 'fixtures', 'cat.png')).equals(bytes)).toBe(true)
    expect(saved.standIns).toEqual([])

    expect(() => saveChatScript(turns, {dir, name: 'photo'})).toThrow(ScriptSaveError)
    expect(() => saveChatScript(turns, {dir, name: 'photo'})).toThrow(
      /photo\.chat\.yml exists already: pick another name/,
    )

    // The same bytes again: the fixture is shared; other bytes under the same name: a new name, the old file kept.
    const again = saveChatScript(turns, {
      dir,
      name: 'photo-2.chat.yml',
      fileBytes: () => ({data: bytes, name: 'cat.png'}),
    })
    expect(again.fixtures).toEqual([])
    expect(readFileSync(again.path, 'utf8')).toContain('photo: fixtures/cat.png')
    const other = saveChatScript(turns, {dir, name: 'photo-3', fileBytes: () => ({data: png(9, 9), name: 'cat.png'})})
    expect(readFileSync(other.path, 'utf8')).toContain('photo: fixtures/cat-2.png')
    expect(readFileSync(join(dir, 'fixtures', 'cat.png')).equals(bytes)).toBe(true)
  })

  it('writes a stand-in for a file whose bytes are not at hand, and says so in the header', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chat-save-')), 'test')
    const saved = saveChatScript(turns, {dir, name: 'standin', header: ['Recorded']})
    expect(saved.standIns).toEqual(['fixtures/photo-1.png'])
    expect(
      saved.yaml.startsWith('# Recorded\n# fixtures/photo-1.png: stand-in for files whose bytes were not at hand.\n'),
    ).toBe(true)
    expect(
      readFileSync(join(dir, 'fixtures', 'photo-1.png'))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
  })

  it('refuses a bad name or an empty conversation, writing nothing', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chat-save-')), 'test')
    for (const bad of ['', '../escape', 'a/b', '.hidden', 'x'.repeat(65), 'sp ace'])
      expect(checkScriptName(bad), bad).toBeDefined()
    for (const good of ['start', 'buy-flow', 'v1.2', 'start.chat.yml'])
      expect(checkScriptName(good), good).toBeUndefined()
    expect(() => saveChatScript(turns, {dir, name: '../escape'})).toThrow(/cannot name a script/)
    expect(() => saveChatScript([], {dir, name: 'empty'})).toThrow(/nothing to save/)
    expect(existsSync(dir)).toBe(false)
  })
})
