/**
 * The Python example of docs/emulator.md, run for real: examples/python-control-api/test_echo_bot.py starts
 * `bot emulator --json` (dist/: needs `npm run build`), runs the python-telegram-bot 13 echo bot against it in
 * long polling, and drives it through the control API. Debian's python3 with python3-python-telegram-bot
 * (.ci/run installs it). Outside CI the test is skipped when that package is missing.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, PROJECT_ROOT} from '../support/cli.js'
import {hasPtb, runUnittest} from './python-support.js'

describe('examples/python-control-api', () => {
  it.skipIf(!hasPtb && !process.env.CI)(
    'the PTB echo bot passes its unittest through the control API',
    async () => {
      const cwd = join(PROJECT_ROOT, 'examples', 'python-control-api')
      const {code, output} = await runUnittest('test_echo_bot', cwd, {BOT_CMD: `${process.execPath} ${BIN}`})
      expect(output).toMatch(/Ran 4 tests/)
      expect(output).toMatch(/\nOK\n/)
      expect(code, output).toBe(0)
      for (const name of [
        'test_start_greets_by_name',
        'test_echoes_text',
        'test_button_press_is_answered_and_edits_the_question',
        'test_survives_a_blocked_send',
      ]) {
        expect(output).toContain(`${name} (test_echo_bot.EchoBotTest.${name}) ...`) // each ran; "OK" above: all passed
      }
    },
    120_000,
  )
})
