/**
 * Flood control as Telegram applies it (core.telegram.org/bots/faq: about 1 message per second per chat with short
 * bursts, 20 per minute per group, 30 per second in all), answered as the server answers a 429 (telegram-bot-api
 * Query.cpp `Query::set_retry_after_error`: `Too Many Requests: retry after N`, `parameters.retry_after`; the
 * `Retry-After` header), on the emulator's clock. Real grammY (with @grammyjs/auto-retry) and Telegraf recover.
 */
import {autoRetry} from '@grammyjs/auto-retry'
import {Bot as GrammyBot} from 'grammy'
import {Telegraf, TelegramError} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {CHAT_BURST, FloodControl, GROUP_PER_MINUTE, OVERALL_PER_SECOND} from '../../src/emulator/state/flood.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

describe('the limits, on an injected clock', () => {
  it('a chat: a burst, then one per second', () => {
    const f = new FloodControl()
    for (let i = 0; i < CHAT_BURST; i++) {
      expect(f.wait(1, false, 0)).toBeUndefined()
      f.count(1, false, 0)
    }
    expect(f.wait(1, false, 0)).toBe(1)
    expect(f.wait(2, false, 0)).toBeUndefined() // another chat is not limited by this one
    expect(f.wait(1, false, 999)).toBe(1)
    expect(f.wait(1, false, 1000)).toBeUndefined()
    f.count(1, false, 1000)
    expect(f.wait(1, false, 1500)).toBe(1) // 0.5 s to go: whole seconds, at least 1
  })

  it('a group: 20 per minute', () => {
    const f = new FloodControl()
    for (let i = 0; i < GROUP_PER_MINUTE; i++) {
      expect(f.wait(-5, true, i * 1000)).toBeUndefined()
      f.count(-5, true, i * 1000)
    }
    // the 21st at 20 s waits for the first to leave the minute (at 60 s)
    expect(f.wait(-5, true, 20_000)).toBe(40)
    expect(f.wait(-5, true, 60_001)).toBeUndefined()
  })

  it('in all: 30 per second', () => {
    const f = new FloodControl()
    for (let i = 0; i < OVERALL_PER_SECOND; i++) f.count(100 + i, false, 0)
    expect(f.wait(999, false, 10)).toBe(1)
    expect(f.wait(999, false, 1001)).toBeUndefined()
  })
})

describe('over HTTP', () => {
  it('answers 429 with the envelope, retry_after and Retry-After', async () => {
    // timeScale 1: the burst goes out well within a second (nothing here waits)
    const {emu, token, api} = await setup({floodControl: true, timeScale: 1})
    emu.sendUserMessage(token, {text: 'hi', chatId: 61, userId: 61})
    // sent at once: they arrive well within a second whatever the load (timeScale 1: nothing here waits)
    const answers = await Promise.all(
      Array.from({length: CHAT_BURST + 3}, (_, i) => api('sendMessage', {chat_id: 61, text: `m${i}`})),
    )
    expect(answers.filter((a) => a.json.ok).length).toBe(CHAT_BURST)
    const refused = answers.find((a) => !a.json.ok)!
    expect(refused.status).toBe(429)
    expect(refused.text).toBe(
      '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}',
    )
    expect(refused.headers.get('retry-after')).toBe('1')
    // edits, chat actions and other chats are not counted against this chat
    expect((await api('sendChatAction', {chat_id: 61, action: 'typing'})).json.ok).toBe(true)
    // without floodControl nothing is limited
    const off = await setup({timeScale: 1})
    off.emu.sendUserMessage(off.token, {text: 'hi', chatId: 62, userId: 62})
    for (let i = 0; i < 10; i++) expect((await off.api('sendMessage', {chat_id: 62, text: `m${i}`})).json.ok).toBe(true)
  })
})

/**
 * The bot's clock at the emulator's timeScale: a wait of a second or more (auto-retry's pause of retry_after
 * seconds) lasts timeScale times as long, so no test waits real seconds. Restored by the returned function.
 */
function botClockAt(scale: number): () => void {
  const real = globalThis.setTimeout
  const scaled = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    real(fn, typeof ms === 'number' && ms >= 1000 ? ms * scale : ms, ...args)) as unknown as typeof setTimeout
  globalThis.setTimeout = scaled
  return () => {
    globalThis.setTimeout = real
  }
}

// An emulated second lasts 200 ms: a burst sent at once surely arrives within it, and the retries are short.
const TIME_SCALE = 0.2
const COUNT = 8

/** The texts of the sendMessage calls that went to `chatId`, sorted, and how many were refused with 429. */
function sent(emu: Awaited<ReturnType<typeof setup>>['emu'], token: string, chatId: number) {
  const calls = emu
    .calls(token)
    .filter((c) => c.method === 'sendMessage' && String(c.params.chat_id) === String(chatId))
  return {
    texts: calls
      .filter((c) => c.result !== undefined)
      .map((c) => String(c.params.text))
      .sort(),
    refused: calls.filter((c) => c.error?.code === 429).length,
  }
}

const expected = Array.from({length: COUNT}, (_, i) => `n${i}`)

describe('real frameworks recover without losing a message', () => {
  it('grammY with @grammyjs/auto-retry', async () => {
    const restore = botClockAt(TIME_SCALE)
    const {emu, token} = await setup({floodControl: true, timeScale: TIME_SCALE})
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.api.config.use(autoRetry())
    // the burst at once, as a bot answering a broadcast does: it arrives within an emulated second whatever the load
    bot.command('burst', async (ctx) => {
      await Promise.all(expected.map((text) => ctx.reply(text)))
    })
    const running = bot.start({drop_pending_updates: false})
    try {
      await waitFor(() => emu.isLongPolling(token), {what: 'grammY to poll'})
      emu.sendUserMessage(token, {text: '/burst', userId: 63})
      await waitFor(() => sent(emu, token, 63).texts.length === COUNT, {what: 'all messages', timeout: 20_000})
      const result = sent(emu, token, 63)
      expect(result.texts).toEqual(expected)
      expect(result.refused).toBeGreaterThan(0)
    } finally {
      await bot.stop()
      await running
      restore()
    }
  })

  it('Telegraf, retrying after parameters.retry_after', async () => {
    const restore = botClockAt(TIME_SCALE)
    const {emu, token} = await setup({floodControl: true, timeScale: TIME_SCALE})
    const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    // Telegraf has no retry of its own: a 429 reaches the handler as a TelegramError carrying the server's parameters
    const reply = async (send: () => Promise<unknown>): Promise<void> => {
      for (;;) {
        try {
          await send()
          return
        } catch (error) {
          const retry = error instanceof TelegramError ? error.parameters?.retry_after : undefined
          if (retry === undefined) throw error
          await new Promise((r) => setTimeout(r, retry * 1000))
        }
      }
    }
    bot.command('burst', async (ctx) => {
      await Promise.all(expected.map((text) => reply(() => ctx.reply(text))))
    })
    let launched = false
    const running = bot.launch(() => {
      launched = true
    })
    try {
      await waitFor(() => launched && emu.isLongPolling(token), {what: 'Telegraf to poll'})
      emu.sendUserMessage(token, {text: '/burst', userId: 64})
      await waitFor(() => sent(emu, token, 64).texts.length === COUNT, {what: 'all messages', timeout: 20_000})
      const result = sent(emu, token, 64)
      expect(result.texts).toEqual(expected)
      expect(result.refused).toBeGreaterThan(0)
    } finally {
      bot.stop('test over')
      await running
      restore()
    }
  })
})
