/** A real client library (grammY) talks to the emulator through the api proxy: calls, uploads and long polling. */
import {Bot, InputFile} from 'grammy'
import {describe, expect, it} from 'vitest'
import {setup} from '../emulator/helpers.js'
import {recordingProxy} from './api-proxy-helpers.js'
import {waitFor} from '../support/wait.js'

describe('api proxy with grammY', () => {
  it('records grammY calls (JSON, multipart upload, a failure) and sees its long-polled updates', async () => {
    const {emu, token} = await setup()
    const rec = await recordingProxy(emu.apiRoot)
    const bot = new Bot(token, {client: {apiRoot: rec.proxy.url}})

    const me = await bot.api.getMe()
    expect(me.username).toBe('test_bot')
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    const sent = await bot.api.sendMessage(42, '*bold*', {parse_mode: 'MarkdownV2'})
    expect(sent.text).toBe('bold')
    const doc = await bot.api.sendDocument(42, new InputFile(Buffer.alloc(4321, 1), 'report.pdf'), {
      caption: 'the report',
    })
    expect(doc.document?.file_size).toBe(4321)
    await expect(bot.api.editMessageText(42, sent.message_id, '*bold*', {parse_mode: 'MarkdownV2'})).rejects.toThrow(
      /message is not modified/,
    )

    await waitFor(() => rec.calls.length === 4, {what: 'four records'})
    const by = Object.fromEntries(rec.calls.map((c) => [c.method, c]))
    expect(by.getMe).toMatchObject({ok: true})
    expect(by.sendMessage).toMatchObject({
      ok: true,
      chatId: 42,
      params: {chat_id: 42, text: '*bold*', parse_mode: 'MarkdownV2'},
    })
    expect(by.sendDocument).toMatchObject({
      ok: true,
      chatId: 42,
      params: {caption: 'the report', document: {file: 'report.pdf', size: 4321}},
    })
    expect(by.editMessageText).toMatchObject({ok: false, errorCode: 400, chatId: 42})
    expect(by.editMessageText.description).toMatch(/^Bad Request: message is not modified/)
    expect(by.editMessageText.explanation).toMatch(/nothing changed/)

    // Long polling: the bot answers a user's message; the proxy sees the update and the reply.
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`))
    const started = new Promise<void>((resolve) => {
      void bot.start({onStart: () => resolve(), timeout: 5})
    })
    await started
    try {
      const update = emu.sendUserMessage(token, {text: 'hi there', userId: 777})
      const reply = await emu.waitForBotMessage(token, {chatId: 777, timeoutMs: 15_000})
      expect(reply.params.text).toBe('echo: hi there')
      await waitFor(
        () => rec.updates.some((list) => list.some((u) => (u as {update_id: number}).update_id === update.update_id)),
        {what: 'the update in onUpdates', timeout: 15_000},
      )
      await waitFor(() => rec.calls.some((c) => c.method === 'sendMessage' && c.chatId === 777 && c.ok), {
        what: 'the reply record',
        timeout: 15_000,
      })
    } finally {
      await bot.stop()
    }
    expect(JSON.stringify(rec.calls)).not.toContain(token.split(':')[1])
  })
})
