/**
 * The terminal chat against a real emulator and a real grammY bot (in this process), in polling and
 * webhook mode: lines in through a stream, the bot's replies out, in order.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'

import {Bot, InlineKeyboard, webhookCallback} from 'grammy'
import {afterEach, describe, expect, it} from 'vitest'

import {startChat, type ChatEvent} from '../../src/offline/chat.js'
import {OFFLINE_TOKEN, startOfflineBackend, type OfflineBackend} from '../../src/offline/offline-env.js'
import {startOfflineChat} from '../../src/offline/index.js'
import {waitFor} from '../support/wait.js'
import {png} from '../emulator/media-fixtures.js'

function tinyBot(backend: OfflineBackend): Bot {
  const bot = new Bot(backend.token, {client: {apiRoot: backend.apiRoot}})
  bot.command('start', (ctx) => ctx.reply('Welcome!'))
  bot.command('two', async (ctx) => {
    await ctx.reply('first')
    await ctx.reply('second')
  })
  bot.command('ask', (ctx) =>
    ctx.reply('Coffee?', {reply_markup: new InlineKeyboard().text('Yes', 'c:yes').text('No', 'c:no')}),
  )
  bot.callbackQuery(/^c:(.*)$/, async (ctx) => {
    await ctx.answerCallbackQuery({text: `chose ${ctx.match[1]}`})
    await ctx.editMessageText(`Coffee: ${ctx.match[1]}`)
  })
  bot.command('photo', (ctx) => ctx.replyWithPhoto('https://example.org/cat.jpg', {caption: 'a cat'}))
  bot.command('menu', (ctx) =>
    ctx.reply('Pick a size', {reply_markup: {keyboard: [[{text: 'Small'}, {text: 'Large'}]], one_time_keyboard: true}}),
  )
  bot.on('message:photo', async (ctx) => {
    const largest = ctx.message.photo.at(-1)!
    const file = await ctx.getFile()
    const bytes = await (await fetch(`${backend.apiRoot}/file/bot${backend.token}/${file.file_path}`)).arrayBuffer()
    await ctx.reply(`photo ${largest.width}x${largest.height}, ${bytes.byteLength} bytes: ${ctx.message.caption ?? ''}`)
  })
  bot.on('message:document', (ctx) =>
    ctx.reply(`file ${ctx.message.document.file_name} ${ctx.message.document.file_size}: ${ctx.message.caption ?? ''}`),
  )
  bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
  return bot
}

function collect(stream: PassThrough): () => string {
  let text = ''
  stream.setEncoding('utf8').on('data', (d: string) => (text += d))
  return () => text
}

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function backendWithBot(mode: 'polling' | 'webhook'): Promise<{backend: OfflineBackend; bot: Bot}> {
  const backend = await startOfflineBackend({port: 0, timeScale: 0.05})
  cleanups.push(() => backend.stop())
  const bot = tinyBot(backend)
  if (mode === 'polling') {
    void bot.start({drop_pending_updates: false})
    cleanups.push(() => bot.stop())
  } else {
    const handle = webhookCallback(bot, 'http', {secretToken: 'chat-test-secret'})
    const server: Server = createServer((req, res) => void handle(req, res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise((r) => server.close(r)))
    const port = (server.address() as AddressInfo).port
    const res = await fetch(`${backend.apiRoot}/bot${backend.token}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url: `http://127.0.0.1:${port}/hook`, secret_token: 'chat-test-secret'}),
    })
    expect(((await res.json()) as {ok: boolean}).ok).toBe(true)
  }
  return {backend, bot}
}

describe.each(['polling', 'webhook'] as const)('terminal chat, bot in %s mode', (mode) => {
  it('sends each line as a user message and prints the replies in order, then ends with the input', async () => {
    const {backend} = await backendWithBot(mode)
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const events: ChatEvent[] = []
    const chat = startOfflineChat(backend, {input, output, onEvent: (e) => events.push(e)})
    input.end('/start\nhello\n/two\nlast one\n')
    const summary = await chat.done

    expect(transcript().split('\n')).toEqual([
      'you › /start',
      'bot › Welcome!',
      'you › hello',
      'bot › echo: hello',
      'you › /two',
      'bot › first',
      'bot › second',
      'you › last one',
      'bot › echo: last one',
      '',
    ])
    expect(summary).toEqual({sent: 4, replies: 5, unanswered: 0, silent: 0, unknown: 0, reason: 'input-ended'})
    // The emulator saw a bot_command entity on the command lines and none on plain text.
    const userMessages = events.filter((e) => e.type === 'user')
    expect(userMessages.map((e) => e.text)).toEqual(['/start', 'hello', '/two', 'last one'])
    expect(backend.emulator.pendingUpdates(backend.token)).toEqual([])
  })

  it('presses an inline button with :press and shows the callback answer and the edit', async () => {
    const {backend} = await backendWithBot(mode)
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output})
    input.end('/ask\n:press No\n:press 1\n')
    await chat.done
    expect(transcript().split('\n')).toEqual([
      'you › /ask',
      'bot › Coffee?',
      '      [ Yes ] [ No ]',
      'you › [No]',
      'bot › (notification) chose no',
      'bot › (edited) Coffee: no',
      // The edit without reply_markup removed the buttons: nothing left to press.
      '(no keyboard to press: the bot has not sent one)',
      '',
    ])
    const answers = backend.emulator.sentMessages(backend.token).filter((c) => c.method === 'answerCallbackQuery')
    expect(answers).toHaveLength(1)
  })
})

describe.each(['polling', 'webhook'] as const)('terminal chat, files, bot in %s mode', (mode) => {
  it(":photo and :file send the bytes at a path as the user's photo and document; a bad path sends nothing", async () => {
    const {backend} = await backendWithBot(mode)
    const dir = mkdtempSync(join(tmpdir(), 'bot-chat-files-'))
    const image = png(64, 48)
    writeFileSync(join(dir, 'cat.png'), image)
    writeFileSync(join(dir, 'my notes.txt'), 'remember the milk\n')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const events: ChatEvent[] = []
    const chat = startOfflineChat(backend, {input, output, onEvent: (e) => events.push(e)})
    input.end(
      [
        `:photo ${join(dir, 'cat.png')} a cat`,
        `:file "${join(dir, 'my notes.txt')}" for you`,
        `:photo ${join(dir, 'missing.png')}`,
        `:photo ${join(dir, 'my notes.txt')}`.replace('my notes.txt', 'my'),
        ':file',
      ].join('\n') + '\n',
    )
    const summary = await chat.done
    const lines = transcript().split('\n')
    expect(lines.slice(0, 4)).toEqual([
      'you › [photo cat.png] a cat',
      `bot › photo 64x48, ${image.length} bytes: a cat`,
      'you › [file my notes.txt] for you',
      'bot › file my notes.txt 18: for you',
    ])
    expect(lines[4]).toBe(`✗ Cannot read ${join(dir, 'missing.png')}: ENOENT.`)
    expect(lines[5]).toBe(`✗ Cannot read ${join(dir, 'my')}: ENOENT.`)
    expect(lines[6]).toBe('(usage: :file PATH [caption])')
    expect(summary).toMatchObject({sent: 2, replies: 2, unanswered: 0})
    expect(events.filter((e) => e.type === 'media').map((e) => (e as {media: string}).media)).toEqual([
      'photo',
      'document',
    ])
    // The emulator kept both files, as Telegram would: the bot could download the photo's bytes.
    expect(backend.emulator.pendingUpdates(backend.token)).toEqual([])
  })

  it(":photo with bytes that are no image is refused with the emulator's reason, nothing sent", async () => {
    const {backend} = await backendWithBot(mode)
    const dir = mkdtempSync(join(tmpdir(), 'bot-chat-files-'))
    writeFileSync(join(dir, 'not-an-image.png'), 'plain text, not a picture')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output})
    input.end(`:photo ${join(dir, 'not-an-image.png')}\nhello\n`)
    const summary = await chat.done
    const lines = transcript().split('\n')
    expect(lines[0]).toBe(
      `✗ ${join(dir, 'not-an-image.png')} is not a PNG, JPEG, GIF or WebP image: send it with :file.`,
    )
    expect(lines.slice(1, 3)).toEqual(['you › hello', 'bot › echo: hello'])
    expect(summary).toMatchObject({sent: 1})
  })
})

describe('terminal chat edge cases', () => {
  it('describes media in one line', async () => {
    const {backend} = await backendWithBot('polling')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output})
    input.end('/photo\n')
    await chat.done
    expect(transcript()).toContain('bot › [photo: cat.jpg] a cat\n')
  })

  it('pressing a reply-keyboard button sends its label as a message; :help lists the chat commands', async () => {
    const {backend} = await backendWithBot('polling')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output})
    input.end('/menu\n:p large\n:help\n:press 7\n')
    await chat.done
    const text = transcript()
    expect(text).toContain(
      ['you › /menu', 'bot › Pick a size', '      ‹ Small › ‹ Large ›', 'you › [Large]', 'bot › echo: Large', ''].join(
        '\n',
      ),
    )
    expect(text).toContain(':press N | :press LABEL')
    expect(text).toContain('(no button number 7; the last keyboard has: 1 Small, 2 Large)')
    expect(backend.emulator.pendingUpdates(backend.token)).toEqual([])
  })

  it('says so and moves on when the bot does not handle a line in time; the update stays queued', async () => {
    const backend = await startOfflineBackend({port: 0, timeScale: 0.05})
    cleanups.push(() => backend.stop())
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startChat({
      emulator: backend.emulator,
      token: backend.token,
      input,
      output,
      startupTimeoutMs: 200,
      replyTimeoutMs: 200,
    })
    input.end('anyone?\nstill nobody\n')
    const summary = await chat.done
    expect(summary).toMatchObject({sent: 2, replies: 0, unanswered: 2})
    expect(transcript()).toMatch(
      /^you › anyone\?\n\(the bot has not handled "anyone\?" after \d+\.\ds; sending on, it stays queued\)\nyou › still nobody\n/,
    )
    expect(backend.emulator.pendingUpdates(backend.token).map((u) => (u.message as {text: string}).text)).toEqual([
      'anyone?',
      'still nobody',
    ])
  })

  it('uses the chosen chat and user ids', async () => {
    const backend = await startOfflineBackend({port: 0, timeScale: 0.05, chatId: 4242, userId: 77, firstName: 'Ann'})
    cleanups.push(() => backend.stop())
    const bot = tinyBot(backend)
    void bot.start()
    cleanups.push(() => bot.stop())
    const input = new PassThrough()
    const chat = startOfflineChat(backend, {input})
    input.end('hi\n')
    const summary = await chat.done
    expect(summary.replies).toBe(1)
    const [reply] = backend.emulator.sentMessages(backend.token, {chatId: 4242})
    expect(reply.params.text).toBe('echo: hi')
    const update = backend.emulator
      .calls(backend.token)
      .find((c) => c.method === 'getUpdates' && Array.isArray(c.result) && c.result.length > 0)
    const message = (update!.result as Array<{message: {from: {id: number; first_name: string}}}>)[0].message
    expect(message.from).toMatchObject({id: 77, first_name: 'Ann'})
  })

  it('in interactive mode shows a prompt and redraws it after a bot line', async () => {
    const {backend} = await backendWithBot('polling')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output, interactive: true, onInterrupt: () => {}})
    input.write('hello\n')
    await backend.emulator.waitForBotMessage(backend.token, {timeoutMs: 10_000})
    input.end()
    await chat.done
    const text = transcript()
    expect(text).toContain('you › ')
    expect(text).toContain('bot › echo: hello')
    expect(text).not.toContain('you › hello\nbot') // the terminal echoes what was typed; the chat does not repeat it
  })

  it('in interactive mode keeps what was typed while the bot was still answering, in order (the prompt keeps the cursor)', async () => {
    const {backend} = await backendWithBot('polling')
    const input = new PassThrough()
    const output = new PassThrough()
    const transcript = collect(output)
    const chat = startOfflineChat(backend, {input, output, interactive: true, onInterrupt: () => {}})
    input.write('/start\n')
    await backend.emulator.waitForBotMessage(backend.token, {timeoutMs: 10_000})
    // The reply is in, but the chat still waits for the bot to settle before it shows the prompt again:
    // the user starts typing the next line meanwhile.
    input.write('h')
    // Once the bot has settled the chat shows the prompt again, with the "h" typed so far.
    await waitFor(() => transcript().includes('you › h'), {what: 'the prompt again, with the "h"'})
    expect(transcript()).toContain('you › h')
    for (const key of 'ello') {
      input.write(key) // key by key, as typed (a chunk of several characters reaches readline as a paste)
      await new Promise((r) => setImmediate(r))
    }
    input.write('\n')
    const reply = await backend.emulator.waitForBotMessage(backend.token, {timeoutMs: 10_000})
    input.end()
    await chat.done
    expect(reply.params.text).toBe('echo: hello')
  })

  it('close() ends the chat and stops listening', async () => {
    const backend = await startOfflineBackend({port: 0, timeScale: 0.05})
    cleanups.push(() => backend.stop())
    const input = new PassThrough()
    const chat = startOfflineChat(backend, {input})
    chat.close()
    expect((await chat.done).reason).toBe('closed')
    expect(backend.token).toBe(OFFLINE_TOKEN)
  })
})
