/**
 * The bots we ship (each `bot init` template, examples/echo-bot) print their webhook path on
 * start-up masked: the first segment and at most 4 characters of `bot dev`'s random part, the
 * same rule as src/lib/mask-url.ts. Real processes in webhook mode against the emulator.
 */
import {randomBytes} from 'node:crypto'
import {rmSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {maskPathAndQuery} from '../../src/lib/mask-url.js'
import {PROJECT_ROOT} from '../support/paths.js'
import {TEMPLATES, cleanEnv, init, startProcess, tempDir} from '../init/support.js'
import {freePort} from '../../src/lib/free-port.js'

let emu: BotApiEmulator
let root: string
beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
  root = tempDir('bot-startup-mask-')
})
afterAll(async () => {
  await emu?.stop()
  if (root) rmSync(root, {recursive: true, force: true})
})

/** Start `src/main.ts` in `dir` in webhook mode with a `bot dev`-style path; its start-up output. */
async function startupLine(
  dir: string,
  username: string,
  ready: RegExp,
): Promise<{output: string; random: string; path: string}> {
  const {token} = emu.createBot({username})
  const random = randomBytes(12).toString('base64url')
  const path = `/webhook/${random}`
  const bot = startProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: dir,
    env: cleanEnv({
      BOT_TOKEN: token,
      BOT_API_ROOT: emu.apiRoot,
      BOT_MODE: 'webhook',
      PORT: String(await freePort()),
      WEBHOOK_PATH: path,
      WEBHOOK_SECRET: 'S3cret_for-tests',
    }),
  })
  try {
    await bot.waitForOutput(ready, 30_000)
    return {output: bot.output(), random, path}
  } finally {
    bot.child.kill('SIGKILL')
    await bot.exited
  }
}

function expectMasked({output, random, path}: {output: string; random: string; path: string}) {
  expect(output).toContain(maskPathAndQuery(path))
  expect(maskPathAndQuery(path)).toBe(`/webhook/${random.slice(0, 4)}…`)
  expect(output).not.toContain(random.slice(0, 5))
}

describe('the start-up line masks the webhook path', () => {
  for (const template of TEMPLATES)
    it(`template ${template}`, async () => {
      const dir = join(root, `${template}-bot`)
      const r = await init([dir, '--template', template, '--no-install', '--no-git', '--yes'])
      expect(r.code, r.stderr).toBe(0)
      symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      const started = await startupLine(dir, `${template}_mask_bot`, /is running \(webhook: POST \S+ on port \d+\)/)
      expectMasked(started)
    }, 90_000)

  it('examples/echo-bot', async () => {
    const started = await startupLine(
      join(PROJECT_ROOT, 'examples', 'echo-bot'),
      'echo_mask_bot',
      /echo-bot: webhook on :\d+\S*/,
    )
    expectMasked(started)
  })
})
