/**
 * `bot trigger payment` with a real Telegraf shop (test/fixtures/bots/telegraf-shop.mjs) in both
 * modes: against a webhook-mode session (the emulator as the api root; the pre-checkout query is
 * made up and the api proxy answers the bot's answerPreCheckoutQuery), and offline on long polling
 * (the emulator runs the payment). Paid and refused. Issue 23 item 7.
 */
import type {ChildProcess} from 'node:child_process'

import {afterAll, describe, expect, it} from 'vitest'

import type {TriggerResult} from '../../src/control/protocol.js'
import {recordLines, startOfflineSession} from '../inspector/offline-helpers.js'
import {parseJsonOutput, runCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {devWorld, startDev} from '../dev/helpers.js'

const running: ChildProcess[] = []
afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL')
})

describe('bot trigger payment with a Telegraf shop', () => {
  it('webhook mode: paid (answerPreCheckoutQuery answered by the api proxy), then refused', async () => {
    const world = await devWorld()
    try {
      const dev = startDev(world, {bot: 'telegraf-shop.mjs', args: ['--no-watch', '--json'], timeoutMs: 90_000})
      await dev.waitForOutput(/"type":"ready"/, {timeoutMs: 45_000})
      const trigger = (args: string[]) =>
        runCli(['trigger', ...args], {
          cwd: world.dir,
          env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir},
          timeoutMs: 90_000,
        })
      world.emu.sendUserMessage(world.token, {text: '/buy', userId: 5151, firstName: 'Cleo'})
      await waitFor(() => world.recordedLines().includes('invoice stars-pack'), {what: 'the invoice'})
      const r = await trigger(['payment', '--json'])
      expect(r.code, r.stderr).toBe(0)
      const result = parseJsonOutput<TriggerResult>(r)
      expect(result.flow).toMatchObject({status: 'paid', ok: true})
      const query = (result.flow!.entries[0].update as any).pre_checkout_query
      expect(query).toMatchObject({
        from: {id: 5151, first_name: 'Cleo'},
        total_amount: 25,
        invoice_payload: 'stars-pack',
      })
      await waitFor(() => world.recordedLines().includes(`paid ${result.flow!.chargeId} 25 XTR stars-pack`), {
        what: () => `the payment\n${world.recordedLines().join('\n')}`,
      })
      // The thank-you reached Cleo's chat (in the emulator).
      await waitFor(
        () =>
          world.emu.sentMessages(world.token, {chatId: 5151}).some((c) => c.params.text === 'Thanks for the Stars!'),
        {what: 'the thank-you'},
      )
      const refused = await trigger(['payment', '--set', 'invoice_payload=refuse'])
      expect(refused.code).toBe(1)
      expect(refused.stdout).toContain('refused by the bot (answerPreCheckoutQuery ok: false): "Out of stock"')
      dev.kill('SIGINT')
      expect((await dev.exited).code).toBe(0)
    } finally {
      await world.close()
    }
  }, 120_000)

  it('offline, long polling: the emulator runs the payment', async () => {
    const s = startOfflineSession(['--json', '--mode', 'polling'], running, {
      prefix: 'trig-telegraf-',
      bot: 'telegraf-shop.mjs',
      killAfterMs: 90_000,
    })
    await s.waitEvent('ready', (e) => e.type === 'ready')
    const buy = await s.control(['trigger', 'message', '/buy'])
    expect(buy.code, buy.stderr).toBe(0)
    await waitFor(() => recordLines(s.record).includes('invoice stars-pack'), {what: 'the invoice'})
    const r = await s.control(['trigger', 'payment', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const result = parseJsonOutput<TriggerResult>(r)
    expect(result.flow).toMatchObject({status: 'paid', ok: true})
    expect(result.flow!.entries.map((e) => e.source)).toEqual(['trigger', 'trigger'])
    await waitFor(() => recordLines(s.record).includes(`paid ${result.flow!.chargeId} 25 XTR stars-pack`), {
      what: () => `the payment\n${recordLines(s.record).join('\n')}`,
    })
    s.child.stdin!.end()
    expect(await s.exited).toBe(0)
  }, 120_000)
})
