/**
 * A polling bot whose next getUpdates confirms an update before its handler answered it (python-telegram-bot's
 * Updater fetches while its handlers run): a `bot:` step that has nothing yet waits for the message until the
 * step's deadline, not only the quiet window after the confirm; `silence:` still ends after the window.
 */
import {Bot as GrammyBot} from 'grammy'
import {describe, expect, it} from 'vitest'
import {runChatScript} from '../../src/emulator/index.js'
import {setup} from './helpers.js'
import {runGrammy} from './bots.js'

describe('chat scripts: a polling bot that answers after its getUpdates confirmed the update', () => {
  it('a bot: step waits for the answer beyond the quiet window', async () => {
    const {emu, token} = await setup({webhookReadTimeoutMs: 6_000_000})
    let release: (() => void) | undefined
    let confirmed: () => void = () => {}
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    // the handler returns at once (grammY's loop then confirms the update with its next getUpdates) and answers
    // only when the test releases it, after the quiet window has passed with nothing sent
    bot.command('slow', (ctx) => {
      const updateId = ctx.update.update_id
      bot.api.config.use((prev, method, payload, signal) => {
        if (method === 'getUpdates' && Number((payload as {offset?: number}).offset) > updateId) confirmed()
        return prev(method, payload, signal)
      })
      release = () => void ctx.reply('done at last').catch(() => {})
    })
    bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
    const stop = await runGrammy(emu, token, bot, 'polling', ['message'])
    try {
      const quietMs = 50
      // the getUpdates that confirms the /slow update is on its way; then the window passes (a margin of 4)
      const seen = new Promise<void>((resolve) => {
        confirmed = () => setTimeout(resolve, quietMs * 4)
      })
      const run = runChatScript(emu, token, 'steps:\n  - user: /slow\n  - bot: done at last\n  - silence: true\n', {
        quietMs,
        timeoutMs: 60_000,
      })
      await seen
      release!()
      const result = await run
      expect(result.failures).toEqual([])
    } finally {
      await stop()
    }
  })
})
