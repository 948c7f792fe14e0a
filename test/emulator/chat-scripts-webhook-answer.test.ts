/**
 * When a chat script's step is done against a webhook bot: the bot's webhook answer says its handler ended, so a
 * step of a bot that awaits its calls waits no quiet window; a bot that sends after answering its webhook (a
 * handler that does not await) still has its late messages checked: a `bot:` step waits for its message, and from
 * the first call after an answer every step (and the script's end) waits the window again.
 */
import {Bot as GrammyBot} from 'grammy'
import {describe, expect, it} from 'vitest'
import {runChatScript, type DeliveryEvent} from '../../src/emulator/index.js'
import {setup} from './helpers.js'
import {runGrammy} from './bots.js'

/**
 * The late handlers answer their webhook at once and send once the emulator has read that answer (its 'delivery'
 * event for the update): after it whatever the machine's load, where a 100 ms delay was a bet on it.
 */
function grammyBot(token: string, apiRoot: string, answered: (updateId: number) => Promise<void>): GrammyBot {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  bot.command('later', (ctx) => {
    void answered(ctx.update.update_id)
      .then(() => ctx.reply('later'))
      .catch(() => {})
  })
  bot.command('two', (ctx) => {
    void answered(ctx.update.update_id)
      .then(() => ctx.reply('one'))
      .then(() => ctx.reply('two'))
      .catch(() => {})
  })
  bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
  return bot
}

async function started() {
  const {emu, token} = await setup({webhookReadTimeoutMs: 6_000_000})
  const done = new Set<number>()
  const waiting = new Map<number, () => void>()
  emu.on('delivery', (e: DeliveryEvent) => {
    if (!e.ok) return
    done.add(e.updateId)
    waiting.get(e.updateId)?.()
  })
  const answered = (updateId: number) =>
    done.has(updateId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(updateId, resolve))
  const stop = await runGrammy(emu, token, grammyBot(token, emu.apiRoot, answered), 'webhook', ['message'])
  return {emu, token, stop}
}

describe('chat scripts: a step ends with the webhook answer', () => {
  it('a bot that awaits its calls: no step waits the quiet window', async () => {
    const {emu, token, stop} = await started()
    try {
      // A 10-minute quiet window and step deadline: a step that waited the window would never end within the test.
      const result = await runChatScript(
        emu,
        token,
        'steps:\n  - user: a\n  - bot: a\n  - user: b\n  - bot: b\n  - user: c\n  - bot: c\n',
        {quietMs: 600_000, timeoutMs: 600_000},
      )
      expect(result.failures).toEqual([])
    } finally {
      await stop()
    }
  })

  it('a message sent after the webhook answer is waited for by its bot: step', async () => {
    const {emu, token, stop} = await started()
    try {
      const result = await runChatScript(
        emu,
        token,
        'steps:\n  - user: /later\n  - bot: later\n  - user: hi\n  - bot: hi\n  - silence: true\n',
        {quietMs: 1000},
      )
      expect(result.failures).toEqual([])
    } finally {
      await stop()
    }
  })

  it('once the bot sent after an answer, steps and the end wait the window: an extra late message fails', async () => {
    const {emu, token, stop} = await started()
    try {
      // the first late call comes during the script's last check: the end waits and sees "two"
      const atEnd = await runChatScript(
        emu,
        token,
        'steps:\n  - user: hi\n  - bot: hi\n  - user: /two\n  - bot: one\n',
        {
          quietMs: 1000,
        },
      )
      expect(atEnd.failures.map((f) => [f.line, f.key])).toEqual([[5, 'end']])
      expect(atEnd.failures[0].actual).toEqual(['text: "two"'])
      // the bot was seen sending late at the first step: the second step waits the window and gets both
      const next = await runChatScript(
        emu,
        token,
        'steps:\n  - user: /later\n  - bot: later\n  - user: /two\n  - bot: one\n  - user: hi\n  - bot: hi\n',
        {quietMs: 1000},
      )
      expect(next.failures.map((f) => [f.line, f.key])).toEqual([[6, 'user']])
      expect(next.failures[0].actual).toEqual(['text: "two"'])
    } finally {
      await stop()
    }
  })
})
