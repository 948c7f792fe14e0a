/**
 * Secrets in what `bot dev`, `bot webhook` and `bot init` print (issue 31, item 5), as real
 * processes against the emulator: a bot that logs its WEBHOOK_SECRET, WEBHOOK_PATH and WEBHOOK_URL
 * shows neither the secret nor the random path (`bot │` lines and `--json` `bot-output`); `--force`
 * shows the production webhook URL masked at takeover and at restore; `--token` on the command
 * line gives one warning naming BOT_TOKEN, as `--secret-token` does.
 */
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {runCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'

const PROD_SECRET_PATH = 'prodHookPathSecret0123456789'
const PROD_URL = `http://127.0.0.1:9/tg/${PROD_SECRET_PATH}`
const TOKEN_WARNING =
  /^! --token is in the command line, which every user of this machine can read \(ps, \/proc\): set BOT_TOKEN in the environment \(or \.env\) instead\.$/m

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

interface BotEnv {
  WEBHOOK_PATH: string
  WEBHOOK_SECRET: string
  WEBHOOK_URL: string
}

async function takeOverAndStop(w: DevWorld, json: boolean): Promise<{out: string; env: BotEnv}> {
  await fetch(`${w.emu.apiRoot}/bot${w.token}/setWebhook`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url: PROD_URL}),
  })
  const envOut = join(w.dir, `env-${json}.json`)
  const dev = startDev(w, {
    bot: 'loud-bot.mjs',
    // The token on the command line, not in the environment.
    args: ['--no-watch', '--force', '--token', w.token, ...(json ? ['--json'] : [])],
    env: {BOT_TOKEN: undefined, FIXTURE_ENV_OUT: envOut},
    timeoutMs: 90_000,
  })
  await dev.waitForOutput(json ? /"type":"ready"/ : /Ready/, {timeoutMs: 30_000})
  await waitFor(() => existsSync(envOut), {what: 'the bot to write its environment'})
  await dev.waitForOutput(/random part/)
  dev.kill('SIGINT')
  const result = await dev.exited
  expect(result.code, result.stderr).toBe(0)
  expect(w.emu.webhook(w.token)?.url).toBe(PROD_URL)
  assertNoToken(result, w.token)
  return {out: result.stdout + result.stderr, env: JSON.parse(readFileSync(envOut, 'utf8')) as BotEnv}
}

function expectNoSessionSecrets(out: string, env: BotEnv): void {
  const random = env.WEBHOOK_PATH.split('/').pop()!
  expect(random.length).toBeGreaterThan(8)
  expect(out).not.toContain(env.WEBHOOK_SECRET)
  expect(out).not.toContain(random)
  expect(out).not.toContain(PROD_SECRET_PATH)
  // The bot's lines are still there, with the secrets blanked and masked.
  expect(out).toContain('secret is <secret>; path is /webhook/')
}

describe('secrets in the output', () => {
  it('bot dev (text): the bot lines blank WEBHOOK_SECRET and mask WEBHOOK_PATH; --force masks the production URL; --token warns', async () => {
    world = await devWorld()
    const {out, env} = await takeOverAndStop(world, false)
    expectNoSessionSecrets(out, env)
    expect(out).toMatch(/Taking over the webhook http:\/\/127\.0\.0\.1:9\/tg\/prod… for this session \(--force\)/)
    expect(out).toMatch(/Restored the previous webhook http:\/\/127\.0\.0\.1:9\/tg\/prod…/)
    expect(out).toMatch(TOKEN_WARNING)
    expect(out.match(new RegExp(TOKEN_WARNING.source, 'gm'))).toHaveLength(1)
  })

  it('bot dev --json: bot-output events carry no secret, the takeover and restore lines mask the URL', async () => {
    world = await devWorld()
    const {out, env} = await takeOverAndStop(world, true)
    expectNoSessionSecrets(out, env)
    const events = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as {type: string; line?: string; text?: string})
    expect(events.filter((e) => e.type === 'bot-output').map((e) => e.line)).toContain(
      `secret is <secret>; path is /webhook/${env.WEBHOOK_PATH.split('/').pop()!.slice(0, 4)}…`,
    )
    expect(out).toMatch(TOKEN_WARNING)
  })

  it('bot webhook and bot init with --token warn once; from the environment, no warning', async () => {
    world = await devWorld()
    const w = world
    const flag = await runCli(['webhook', 'info', '--token', w.token, '--api-root', w.emu.apiRoot])
    expect(flag.code, flag.stderr).toBe(0)
    expect(flag.stderr).toMatch(TOKEN_WARNING)
    const env = await runCli(['webhook', 'info', '--api-root', w.emu.apiRoot], {env: {BOT_TOKEN: w.token}})
    expect(env.code, env.stderr).toBe(0)
    expect(env.stderr).not.toMatch(/--token is in the command line/)

    const dir = mkdtempSync(join(tmpdir(), 'init-token-'))
    const init = await runCli(['init', join(dir, 'b'), '--token', w.token, '--no-install', '--no-git', '--yes'], {
      timeoutMs: 90_000,
    })
    expect(init.code, init.stderr).toBe(0)
    expect(init.stderr).toMatch(
      /^! --token is in the command line, which every user of this machine can read \(ps, \/proc\): leave --token out and paste the token at the prompt/m,
    )
    assertNoToken(init, w.token)
  }, 90_000)
})
