/**
 * The webhook path of a `bot dev` session is a secret (half of what a forger needs): `bot webhook
 * info`, `bot webhook delete` and `bot webhook set` (the URL it replaces) never print it whole,
 * in text or --json; the query string neither. Real processes against the emulator on loopback.
 */
import {randomBytes} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {writeState} from '../../src/session-store/state.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {BotApi, botIdOf} from '../../src/telegram/index.js'
import {parseJsonOutput, runCli, type CliResult} from '../support/cli.js'

let emu: BotApiEmulator
beforeAll(async () => {
  emu = await BotApiEmulator.start({timeScale: 0.01})
})
afterAll(async () => {
  await emu.stop()
})

/** A `bot dev`-style webhook: /webhook/<random>, plus a query string with a secret of its own. */
async function devWebhook(token: string) {
  const random = randomBytes(12).toString('base64url')
  const query = randomBytes(9).toString('hex')
  // Port 9 on loopback: nothing is delivered in these tests (no updates are queued).
  const url = `http://127.0.0.1:9/webhook/${random}?k=${query}`
  await new BotApi({token, apiRoot: emu.apiRoot}).setWebhook({url})
  // A running session owns it (this test process's pid), as `bot dev` records it.
  const stateDir = mkdtempSync(join(tmpdir(), 'bot-state-mask-'))
  writeState(
    {
      version: 1,
      botId: botIdOf(token)!,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      cwd: stateDir,
      mode: 'webhook',
      apiRoot: emu.apiRoot,
      webhook: {url},
    },
    stateDir,
  )
  return {url, random, query, masked: `http://127.0.0.1:9/webhook/${random.slice(0, 4)}…?…`, stateDir}
}

function webhook(token: string, stateDir: string, args: string[]) {
  return runCli(['webhook', ...args], {env: {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_STATE_DIR: stateDir}})
}

function expectMasked(result: CliResult, hook: {random: string; query: string}) {
  for (const text of [result.stdout, result.stderr]) {
    // Not even the random part past its first 4 characters.
    expect(text).not.toContain(hook.random.slice(0, 5))
    expect(text).not.toContain(hook.query)
  }
}

describe('a webhook path is never printed whole', () => {
  it('bot webhook info: text and --json', async () => {
    const {token} = emu.createBot({username: 'mask_info_bot'})
    const hook = await devWebhook(token)
    const text = await webhook(token, hook.stateDir, ['info'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`^URL\\s+${hook.masked.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'))
    expect(text.stdout).toMatch(/Set by\s+`bot dev` \(pid \d+, running\)/)
    expectMasked(text, hook)

    const json = await webhook(token, hook.stateDir, ['info', '--json'])
    expect(json.code).toBe(0)
    const data = parseJsonOutput<{url: string; webhookInfo: {url: string}; devSession: unknown}>(json)
    expect(data.url).toBe(hook.masked)
    expect(data.webhookInfo.url).toBe(hook.masked)
    expect(data.devSession).toMatchObject({pid: process.pid, running: true})
    expectMasked(json, hook)
  })

  it('bot webhook delete: text and --json', async () => {
    const {token} = emu.createBot({username: 'mask_delete_bot'})
    let hook = await devWebhook(token)
    const text = await webhook(token, hook.stateDir, ['delete'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`Webhook deleted (was ${hook.masked}).`)
    expectMasked(text, hook)
    expect(emu.webhook(token)).toBeUndefined()

    hook = await devWebhook(token)
    const json = await webhook(token, hook.stateDir, ['delete', '--json'])
    expect(json.code).toBe(0)
    expect(parseJsonOutput<{previousUrl: string}>(json).previousUrl).toBe(hook.masked)
    expectMasked(json, hook)
  })

  it("bot webhook set: the replaced URL is masked (the new one is the user's own argument)", async () => {
    const {token} = emu.createBot({username: 'mask_set_bot'})
    const hook = await devWebhook(token)
    const next = 'http://127.0.0.1:9/production/hook'
    const text = await webhook(token, hook.stateDir, ['set', next])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`Webhook set: ${next}`)
    expect(text.stdout).toMatch(new RegExp(`replaces\\s+${hook.masked.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'))
    expectMasked(text, hook)
  })
})
