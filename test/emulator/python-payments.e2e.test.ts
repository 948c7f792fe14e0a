/**
 * Payments from Python: test/emulator/python/test_shop_bot.py runs the python-telegram-bot 13 shop bot
 * (python/shop_bot.py, long polling) against an emulator started here, and pays its Stars invoices through the
 * control API: paid and refunded (a second refund refused), refused at pre-checkout, timed out (the bot never
 * answers: Telegram's 10-second window, kept unscaled so that a loaded machine's python answers within it), an unknown
 * charge refunded. Debian's python3 with
 * python3-python-telegram-bot (.ci/run installs it); outside CI the test is skipped when that package is missing.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {PROJECT_ROOT} from '../support/cli.js'
import {setup} from './helpers.js'
import {hasPtb, runUnittest} from './python-support.js'

describe('payments from python-telegram-bot 13 through the control API', () => {
  it.skipIf(!hasPtb && !process.env.CI)(
    'a Stars shop: paid, refunded, refused, timed out, unknown charge',
    async () => {
      // Delays at timeScale 0.2, but the pre-checkout window is Telegram's 10 s of real time: scaled to 2 s, a
      // python bot on a loaded machine can miss it ('timeout' instead of 'paid').
      const {emu, token} = await setup({timeScale: 0.2, preCheckoutWindowMs: 10_000})
      const {code, output} = await runUnittest('test_shop_bot', join(PROJECT_ROOT, 'test', 'emulator', 'python'), {
        EMULATOR_API_ROOT: emu.apiRoot,
        EMULATOR_TOKEN: token,
        EMULATOR_CONTROL: emu.controlApiRoot,
      })
      expect(output).toMatch(/Ran 4 tests/)
      expect(output).toMatch(/\nOK\n/)
      expect(code, output).toBe(0)
      for (const name of [
        'test_1_a_paid_invoice_is_thanked_and_refunded_once',
        'test_2_a_refused_payment_shows_the_bots_message',
        'test_3_an_unanswered_pre_checkout_query_times_out',
        'test_4_refunding_an_unknown_charge',
      ]) {
        expect(output).toContain(`${name} (test_shop_bot.ShopBotTest.${name}) ... ok`)
      }
      // the emulator saw it too: three attempts, one of each outcome
      expect(emu.payments(token).map((p) => p.status)).toEqual(['paid', 'refused', 'timeout'])
    },
    120_000,
  )
})
