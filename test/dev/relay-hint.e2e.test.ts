/**
 * When bot dev's own relay answers 503 because the bot is down, the line about
 * Telegram's delivery error says so, instead of blaming "a proxy or load balancer"; and a mistyped
 * flag gets a suggestion, as a mistyped command does.
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {runCli} from '../support/cli.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  // Telegram waits longer than the relay holds (1 s here), so the relay's 503 is what it records.
  world = await devWorld({webhookReadTimeoutMs: 1_000_000})
})
afterEach(async () => {
  await world.close()
})

describe("Telegram's delivery error while the bot is down", () => {
  it("names bot dev's relay and the bot, not a proxy or load balancer", async () => {
    const project = join(world.dir, 'project') // (the watcher must not see the state folder)
    mkdirSync(project)
    const dev = startDev(world, {
      cwd: project,
      bot: 'crash-bot.mjs',
      args: ['--wait-for-fix', '--hold-timeout', '1', '--webhook-check', '300'],
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Waiting for a file change/, {timeoutMs: 20_000})
    world.emu.sendUserMessage(world.token, {text: 'while down'})
    const out = await dev.waitForOutput(
      /Telegram could not deliver to the webhook: "Wrong response from the webhook: 503/,
      {
        timeoutMs: 20_000,
      },
    )
    dev.kill('SIGINT')
    await dev.exited
    expect(out).toMatch(/bot dev's relay answered 503: your bot was down or restarting/)
    expect(out).not.toMatch(/proxy or load balancer/)
  })
})

describe('a mistyped flag', () => {
  it('gets the closest flag, like a mistyped command', async () => {
    const r = await runCli(['dev', '--offlin'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Nonexistent flag: --offlin. Did you mean --offline?')
    const no = await runCli(['dev', '--no-inspct'])
    expect(no.stderr).toContain('Did you mean --no-inspect?')
    const far = await runCli(['dev', '--zzzzzzzz'])
    expect(far.code).toBe(2)
    expect(far.stderr).not.toMatch(/Did you mean/)
  })
})
