/**
 * A long-polling bot (grammY's `bot.start()`) under plain `bot dev` (webhook mode).
 * The api proxy sees its getUpdates; the session switches to polling delivery, the same bot process:
 * our webhook deleted (pending updates kept) or the bridge stopped, the bot's getUpdates let through
 * without a single 409, every update answered and listed, one line saying so.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startLocaltunnelServer} from '../support/lt-server.js'
import {assertNoToken, devWorld, fixture, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

const BOT = ['node', fixture('grammy-polling-bot.mjs')]
const SWITCH_LINE =
  /! The bot polls for updates itself \(it called getUpdates\), so this session now runs it on long polling, same process \((.+?)\)\. To say so up front: `bot dev --mode polling`, or "bot": \{"dev": \{"mode": "polling"\}\} in package\.json\./

/** The bot's getUpdates that the emulator answered 409 (a conflict the bot would stop on). */
function conflicts(world: DevWorld): string[] {
  return world.emu
    .calls(world.token)
    .filter((c) => c.method.toLowerCase() === 'getupdates' && c.error?.code === 409)
    .map((c) => c.error!.description)
}

async function runsOnPolling(args: string[], env: Record<string, string> = {}): Promise<string> {
  const {emu, token} = world
  // Queued before the session starts: nothing may be lost by the switch.
  const early = emu.sendUserMessage(token, {text: 'early'})
  const dev = startDev(world, {
    bot: BOT,
    args: ['--no-watch', ...args],
    env,
    timeoutMs: 90_000,
    tunnel: !args.includes('--tunnel-host'),
  })
  const out = await dev.waitForOutput(/Ready: the bot runs on long polling/, {timeoutMs: 30_000})
  expect(out).toMatch(/polling as @dev_test_bot/)
  await waitFor(() => world.recorded().includes(early.update_id), {
    what: () => `the early update\n${dev.stdout()}\n${dev.stderr()}`,
    timeout: 20_000,
  })
  const later = emu.sendUserMessage(token, {text: 'later'})
  await waitFor(() => world.recorded().includes(later.update_id), {what: 'the later update', timeout: 15_000})
  await waitFor(() => emu.sentMessages(token).length === 2, {what: 'both answers'})
  expect(emu.sentMessages(token).map((c) => c.params.text)).toEqual(['echo: early', 'echo: later'])
  // Each update once, by the one bot process that was started.
  expect(world.recorded()).toEqual([early.update_id, later.update_id])
  expect(new Set(world.recordedLines().map((l) => l.split(' ')[3])).size).toBe(1)
  // No getUpdates met a 409 while the session ran (grammY's stop() later cuts its own last poll: not counted).
  expect(conflicts(world)).toEqual([])
  dev.kill('SIGINT')
  const result = await dev.exited
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).not.toMatch(/↳ getUpdates/)
  expect(result.stderr).not.toMatch(/The bot exited/)
  expect(emu.webhook(token)).toBeUndefined()
  expect(emu.pendingUpdates(token)).toEqual([])
  // The update log (the inspector's history) lists both, as polled updates.
  for (const u of [early, later]) expect(result.stdout).toMatch(new RegExp(`← #${u.update_id} message chat \\d+ "`))
  expect(result.stderr).not.toMatch(/has not opened port/)
  expect(result.stderr, result.stdout).toMatch(/■ bot dev ended after .*: 2 updates seen/)
  expect(result.stderr.match(new RegExp(SWITCH_LINE.source, 'g'))).toHaveLength(1)
  assertNoToken(result, world.token)
  return SWITCH_LINE.exec(result.stderr)![1]
}

describe('bot dev with a bot that polls by itself (webhook mode by default)', () => {
  it('tunnel: a bot that polls from its start; nothing lost, no 409', async () => {
    // Whether the tunnel was proved (and the webhook set) before the bot's first getUpdates is a race:
    // either way the switch says what it gave back.
    expect(['no webhook was set', 'webhook deleted, pending updates kept']).toContain(await runsOnPolling([]))
  })

  it('tunnel: a slow tunnel: the bot starts once the webhook URL is known (WEBHOOK_URL), then polls: the webhook is deleted, pending kept', async () => {
    // A tunnel server that takes 2 s to hand out a tunnel. Through a tunnel the bot starts once the
    // session's webhook URL is known (issue 31 item 10: WEBHOOK_URL from its first start), so a bot
    // that polls meets the session's webhook and gets it deleted (its own deleteWebhook is answered
    // by the session), with no 409 and pending updates kept.
    const slow = await startLocaltunnelServer({newTunnelDelayMs: 2000})
    try {
      expect(await runsOnPolling(['--tunnel-host', slow.url])).toBe('webhook deleted, pending updates kept')
      const deletes = world.emu.calls(world.token).filter((c) => c.method === 'deleteWebhook')
      for (const d of deletes) expect(String(d.params.drop_pending_updates ?? 'false')).toBe('false')
    } finally {
      await slow.close()
    }
  })

  it('tunnel: a bot that starts polling after the webhook was set gets it deleted, pending updates kept', async () => {
    const what = await runsOnPolling([], {FIXTURE_START_DELAY_MS: '2500'})
    expect(what).toBe('webhook deleted, pending updates kept')
    // The webhook had been set, and was deleted without dropping the queue.
    const calls = world.emu.calls(world.token)
    expect(calls.some((c) => c.method === 'setWebhook')).toBe(true)
    const deletes = calls.filter((c) => c.method === 'deleteWebhook')
    expect(deletes.length).toBeGreaterThan(0)
    for (const d of deletes) expect(String(d.params.drop_pending_updates ?? 'false')).toBe('false')
  })

  it('--tunnel none: the bridge stops polling and the bot polls; nothing lost, no 409', async () => {
    expect(await runsOnPolling(['--tunnel', 'none'], {FIXTURE_START_DELAY_MS: '1500'})).toBe(
      'the polling bridge stopped, pending updates kept',
    )
  })
})
