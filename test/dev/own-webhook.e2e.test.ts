/**
 * A bot that sets its own webhook at start (issue 31, item 10), under a real `bot dev` session with
 * the emulator as the Bot API and the loopback tunnel: a real Telegraf bot
 * (`bot.launch({webhook: {domain, hookPath, port, secretToken}})`) and a real grammY bot
 * (`bot.api.setWebhook(WEBHOOK_URL, {secret_token})` at start). WEBHOOK_URL is in their env from the
 * first start; their setWebhook is answered by the api proxy (never reaching the emulator, whose
 * webhook stays the session's: no foreign-webhook message) and said in one line; the relay
 * sends them the secret they asked for, so an update reaches them and they answer.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {PROCESS_WAIT_MS} from '../support/cli.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

const cases = [
  {name: 'Telegraf launch({webhook})', bot: 'telegraf-own-webhook.mjs'},
  {name: 'grammY setWebhook at start', bot: 'grammy-own-webhook.mjs'},
]

describe('a bot that sets its own webhook', () => {
  for (const c of cases)
    it(`${c.name}: answered by the session, which keeps its webhook; updates reach the bot with its secret`, async () => {
      world = await devWorld()
      const w = world
      const dev = startDev(w, {
        bot: ['node', new URL(`../fixtures/bots/${c.bot}`, import.meta.url).pathname],
        args: ['--no-watch', '--json'],
        timeoutMs: 90_000,
      })
      const events = () =>
        dev
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      await waitFor(() => events().find((e) => e.type === 'ready'), {
        what: () => `the ready event\n${dev.stdout()}\n${dev.stderr()}`,
        timeout: PROCESS_WAIT_MS,
      })
      await waitFor(() => w.recordedLines().includes('launched'), {
        what: () => `the bot's launch\n${w.recordedLines().join('\n')}\n${dev.stdout()}`,
        timeout: 20_000,
      })
      // WEBHOOK_URL from the first start.
      expect(w.recordedLines()[0]).toBe('env WEBHOOK_URL=set')
      // The bot's setWebhook never reached the emulator: its webhook is the session's, with the session's secret.
      expect(w.emu.calls(w.token).filter((call) => call.method.toLowerCase() === 'setwebhook')).toHaveLength(1)
      const hook = w.emu.webhook(w.token)
      expect(hook?.url).toContain('/webhook/')
      expect(hook?.secretToken).toBeDefined()
      expect(hook?.secretToken).not.toMatch(/own-secret/)

      // One line said so (the call itself is recorded as answered here: test/dev/own-webhook.test.ts).
      const said = events().filter((e) => e.type === 'info' && String(e.text).includes('called setWebhook itself'))
      expect(said).toHaveLength(1)
      expect(said[0].text).toContain('not sent to Telegram')

      // An update reaches the bot (which checks its own secret) and the bot answers.
      const update = w.emu.sendUserMessage(w.token, {text: 'hello', chatId: 77})
      const reply = await w.emu.waitForBotMessage(w.token, {chatId: 77, timeoutMs: 20_000})
      expect(reply.params.text).toBe('echo: hello')
      expect(w.recordedLines()).toContain(`got ${update.update_id} hello`)

      dev.kill('SIGINT')
      const result = await dev.exited
      expect(result.code, result.stderr).toBe(0)
      const all = result.stdout + result.stderr
      expect(all).not.toMatch(/foreign|set by someone else/i)
    })
})
