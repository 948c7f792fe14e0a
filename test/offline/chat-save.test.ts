/**
 * `:save NAME` in the terminal chat, against a real emulator and a real grammY bot (in this process, long polling):
 * the conversation so far becomes test/NAME.chat.yml in the project, the photo sent with `:photo` a fixture beside it;
 * an existing script is never overwritten and a bad name is refused, each with one line; `:help` lists the command.
 */
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'

import {Bot, InlineKeyboard} from 'grammy'
import {afterEach, describe, expect, it} from 'vitest'

import {startOfflineChat, type ChatEvent} from '../../src/offline/index.js'
import {startOfflineBackend} from '../../src/offline/offline-env.js'
import {png} from '../emulator/media-fixtures.js'
import {waitFor} from '../support/wait.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function chatWithBot() {
  const backend = await startOfflineBackend({port: 0, timeScale: 0.05})
  cleanups.push(() => backend.stop())
  const bot = new Bot(backend.token, {client: {apiRoot: backend.apiRoot}})
  bot.command('start', (ctx) => ctx.reply(`Welcome, ${ctx.from?.first_name}!`))
  bot.command('ask', (ctx) =>
    ctx.reply('Coffee?', {reply_markup: new InlineKeyboard().text('Yes', 'c:yes').text('No', 'c:no')}),
  )
  bot.callbackQuery(/^c:(.*)$/, async (ctx) => {
    await ctx.answerCallbackQuery({text: `chose ${ctx.match[1]}`})
    await ctx.editMessageText(`Coffee: ${ctx.match[1]}`)
  })
  bot.on('message:photo', (ctx) => ctx.reply(`A photo: ${ctx.message.caption ?? ''}`))
  void bot.start()
  cleanups.push(() => bot.stop())
  // Polling before the chat starts: a bot stopped while it starts rejects its start().
  await waitFor(() => backend.emulator.isLongPolling(backend.token), {what: 'the bot polling'})
  return backend
}

function collect(stream: PassThrough): () => string {
  let text = ''
  stream.setEncoding('utf8').on('data', (d: string) => (text += d))
  return () => text
}

describe(':save in the terminal chat', () => {
  it('writes the conversation so far as test/NAME.chat.yml with its photo beside it; never over a file; checks the name', async () => {
    const backend = await chatWithBot()
    const project = mkdtempSync(join(tmpdir(), 'chat-save-'))
    const picture = join(project, 'cat.png')
    const bytes = png(6, 6)
    writeFileSync(picture, bytes)
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const events: ChatEvent[] = []
    const chat = startOfflineChat(backend, {
      input,
      output,
      cwd: project,
      projectDir: project,
      onEvent: (e) => events.push(e),
    })
    input.end(`/start\n/ask\n:press Yes\n:photo cat.png cute\n:save coffee\n:save coffee\n:save ../up\n:save\n:help\n`)
    const summary = await chat.done

    const script = readFileSync(join(project, 'test', 'coffee.chat.yml'), 'utf8')
    expect(script).toBe(
      [
        '# Recorded in the offline chat (bot dev --offline, :save). Run it with: npx bot test',
        '',
        'users:',
        '  you: {first_name: You, username: offline_user}',
        'steps:',
        '  - user: /start',
        '  - bot: Welcome, You!',
        '  - user: /ask',
        '  - bot: {text: Coffee?, buttons: [[Yes, No]]}',
        '  - press: Yes',
        '  - call: {method: answerCallbackQuery, text: chose yes}',
        '  - bot: {edit: "Coffee: yes"}',
        '  - photo: {path: fixtures/cat.png, caption: cute}',
        '  - bot: "A photo: cute"',
        '',
      ].join('\n'),
    )
    expect(readFileSync(join(project, 'test', 'fixtures', 'cat.png')).equals(bytes)).toBe(true)
    // The runner reads it, and the same bot passes it (new user, new chat; the photo from the fixture).
    const file = join(project, 'test', 'coffee.chat.yml')
    const result = await backend.emulator.runChatScript(backend.token, script, {file})
    expect(result.failures).toEqual([])
    expect(result).toMatchObject({ok: true, steps: 9, ran: 9})
    const lines = transcript().split('\n')
    expect(lines).toContain(
      '✓ Saved test/coffee.chat.yml: 9 steps; files: test/fixtures/cat.png. Run it with: npx bot test test/coffee.chat.yml',
    )
    expect(lines).toContain(
      '✗ test/coffee.chat.yml exists already: pick another name, or delete it first to record it again',
    )
    expect(lines).toContain(
      '✗ "../up" cannot name a script: use letters, digits, - and _ (at most 64), e.g. start or buy-flow',
    )
    expect(lines).toContain('✗ give the script a name: :save NAME (letters, digits, - and _)')
    expect(transcript()).toMatch(/:save NAME +save the conversation so far as a chat script, test\/NAME\.chat\.yml/)
    expect(events.filter((e) => e.type === 'saved')).toEqual([
      expect.objectContaining({type: 'saved', path: join('test', 'coffee.chat.yml'), steps: 9}),
    ])
    expect(existsSync(join(project, 'up.chat.yml'))).toBe(false)
    // A :save is not a message: nothing more was sent, and no line counts as unanswered.
    expect(summary).toMatchObject({sent: 4, unanswered: 0, unknown: 0})
  })

  it(':pay waits for the bot to handle the successful_payment, so its thanks are saved (a polling bot, a slow handler)', async () => {
    const backend = await startOfflineBackend({port: 0, timeScale: 0.05})
    cleanups.push(() => backend.stop())
    const bot = new Bot(backend.token, {client: {apiRoot: backend.apiRoot}})
    bot.command('buy', (ctx) => ctx.replyWithInvoice('Pass', 'A pass', 'pass', 'XTR', [{label: 'Pass', amount: 1}]))
    bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
    // The bot takes longer over the payment than the chat's settle window: the chat must wait for the update itself.
    bot.on('message:successful_payment', async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      await ctx.reply('Thanks for paying!')
    })
    void bot.start()
    cleanups.push(() => bot.stop())
    await waitFor(() => backend.emulator.isLongPolling(backend.token), {what: 'the bot polling'})
    const project = mkdtempSync(join(tmpdir(), 'chat-save-'))
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output, projectDir: project, settleMs: 20})
    input.end('/buy\n:pay\n:save pay\n')
    const summary = await chat.done
    expect(transcript()).toContain('✓ Saved test/pay.chat.yml: 5 steps. Run it with: npx bot test test/pay.chat.yml')
    expect(readFileSync(join(project, 'test', 'pay.chat.yml'), 'utf8')).toContain(
      [
        '  - user: /buy',
        '  - bot: {invoice: Pass}',
        '  - pay: true',
        '  - call: {method: answerPreCheckoutQuery, ok: true}',
        '  - bot: Thanks for paying!',
        '',
      ].join('\n'),
    )
    expect(summary).toMatchObject({unanswered: 0, silent: 0})
  })

  it('says there is nothing to save before the first message', async () => {
    const backend = await chatWithBot()
    const project = mkdtempSync(join(tmpdir(), 'chat-save-'))
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output, projectDir: project})
    input.end(':save early\n')
    await chat.done
    expect(transcript()).toBe('✗ nothing to save yet: send the bot something first, then :save NAME\n')
    expect(existsSync(join(project, 'test'))).toBe(false)
  })
})
