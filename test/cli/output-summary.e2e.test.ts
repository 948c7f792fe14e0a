/**
 * The closing line of `bot dev` per mode, from real sessions (the CLI as a process, the emulator as
 * Telegram on loopback, a loopback localtunnel server): webhook mode counts every failed update once (a
 * 5xx from the bot; one Telegram gave up on while it was held: 499; Telegram's retries of it are the same
 * update), polling mode has no relay and says nothing about "relayed". Needs `npm run build`.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {devWorld, startDev, type DevWorld} from '../dev/helpers.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

const summaryOf = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('■ bot dev ended')) ?? ''

describe('bot dev: the summary counts what happened, per mode', () => {
  it('webhook mode: an update Telegram stopped waiting for while it was held (499) is a failure, not "0 failures"', async () => {
    // The emulator stops waiting after 2 s (a read timeout of 200 s at timeScale 0.01), like Telegram closing the
    // connection; the bot takes 4 s to listen (at least: a loaded machine only adds), so the update is held
    // meanwhile and given up on at least once. 2 s, not a scaled 600 ms: the retry, once the bot listens, must be
    // answered within it even on a loaded machine.
    await world.close()
    world = await devWorld({webhookReadTimeoutMs: 200_000})
    const {emu, token} = world
    const dev = startDev(world, {
      bot: 'slow-start-bot.mjs',
      env: {FIXTURE_START_DELAY_MS: '4000'},
      args: ['--no-watch', '--json'],
    })
    await waitFor(() => emu.webhook(token) !== undefined, {what: 'the webhook', timeout: 20_000})
    const update = emu.sendUserMessage(token, {text: 'held'})
    // Telegram's retry reaches the bot once it listens.
    await waitFor(() => world.recorded().includes(update.update_id), {
      what: 'the retried update to reach the bot',
      timeout: 20_000,
    })
    await dev.waitForOutput(/"type":"update"[^\n]*"status":200/)
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; status?: number; failures?: number; relayed?: number; text: string})
    const gone = events.filter((e) => e.type === 'update' && e.status === 499)
    expect(gone.length, result.stdout).toBeGreaterThan(0)
    const summary = events.find((e) => e.type === 'summary')!
    // One update: held and given up on (499), then retried and answered 200. It failed once: one failure.
    expect(summary.failures).toBe(1)
    expect(summary.relayed).toBe(1)
    expect(summary.text).toMatch(/: 1 update relayed, 1 failure[;,]/)
    expect(summary.text).not.toContain('0 failures')
  })

  it('webhook mode: a 5xx from the bot is a failure in the summary', async () => {
    const {emu, token} = world
    const statuses: number[] = []
    emu.on('delivery', (d) => {
      if (d.token === token && d.status !== undefined) statuses.push(d.status)
    })
    const dev = startDev(world, {bot: 'error-bot.mjs'})
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => statuses.filter((s) => s === 500).length >= 2, {what: 'two 500 deliveries (a retry)'})
    await dev.waitForOutput(/→ 500[^\n]*\n[^]*→ 500/, {stream: 'stdout'})
    dev.kill('SIGINT')
    const result = await dev.exited
    // Every failed update has its line: the two 500s, and a retry that was on its way when the
    // session stopped (answered 503 or given up on, 499) when there was one.
    const lines = result.stdout.split('\n')
    expect(lines.filter((l) => / ✗ #\d+ message .*→ 500 /.test(l)).length).toBeGreaterThanOrEqual(2)
    // Each try of the one update has its line; the summary counts the update once.
    const failed = new Set(lines.flatMap((l) => / ✗ #(\d+) message .*→ \d{3} /.exec(l)?.[1] ?? []))
    expect(failed.size, result.stdout).toBe(1)
    expect(summaryOf(result.stderr), result.stdout).toMatch(/: 0 updates relayed, 1 failure; exit code 0\.$/)
  })

  it('webhook mode: a delivery under way when the session stops is shown and counted before the summary', async () => {
    // devWorld keeps Telegram's 60 s read timeout (not the scaled 600 ms): the third delivery must still be with the bot
    // (3 s) when the session stops, not given up on and tried a fourth time by then on a loaded machine.
    const {emu, token} = world
    const statuses: number[] = []
    emu.on('delivery', (d) => {
      if (d.token === token && d.status !== undefined) statuses.push(d.status)
    })
    const dev = startDev(world, {bot: 'slow-error-bot.mjs'})
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => statuses.filter((s) => s === 500).length >= 2, {what: 'two 500 deliveries (a retry)'})
    // The third delivery is now with the bot, which takes 3 s to answer: stop meanwhile.
    await waitFor(() => world.recordedLines().length >= 3, {what: 'the third delivery at the bot'})
    dev.kill('SIGINT')
    const result = await dev.exited
    const lines = result.stdout.split('\n').filter((l) => / ✗ #\d+ message .*→ \d{3} /.test(l))
    expect(lines, result.stdout).toHaveLength(3)
    expect(lines[2]).toMatch(/→ (499|503) /) // the bot's connection cut (503), or the tunnel's first (499)
    expect(summaryOf(result.stderr), result.stdout).toMatch(/: 0 updates relayed, 1 failure; exit code 0\.$/)
  })

  it('an update answered 200 whose Bot API call failed: "0 failures" says so, and "1 failed call" counts the call', async () => {
    const {emu, token} = world
    const dev = startDev(world, {bot: 'inspector-bot.mjs', args: ['--no-watch', '--json']})
    await dev.waitForOutput(/"type":"ready"/, {timeoutMs: 20_000})
    emu.sendUserMessage(token, {text: '/missing'}) // the bot answers 200 after a sendMessage to a chat that does not exist
    await dev.waitForOutput(/"type":"api-call"[^\n]*chat not found/, {timeoutMs: 15_000})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {text: string; failedCalls?: number}
    expect(summary.failedCalls).toBe(1)
    expect(summary.text).toMatch(/: 1 update relayed, 0 failures, 1 failed call; exit code 0\.$/)
  })

  it('polling mode: no relay, so no "relayed": the updates the api proxy saw the bot fetch; without the proxy, no count', async () => {
    const {emu, token} = world
    const dev = startDev(world, {args: ['--no-watch', '--mode', 'polling'], tunnel: false})
    await dev.waitForOutput(/Ready: the bot runs on long polling/, {timeoutMs: 20_000})
    emu.sendUserMessage(token, {text: '/start', chatId: 56})
    await emu.waitForBotMessage(token, {chatId: 56, timeoutMs: 10_000})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(summaryOf(result.stderr)).toMatch(/^■ bot dev ended after [\d.ms]+: 1 update seen; exit code 0\.$/)
    expect(result.stderr).not.toMatch(/relayed|failures/)

    // --no-api-proxy: nothing sees the bot's getUpdates, so the summary counts nothing.
    const blind = startDev(world, {args: ['--no-watch', '--mode', 'polling', '--no-api-proxy'], tunnel: false})
    await blind.waitForOutput(/Ready: the bot runs on long polling/, {timeoutMs: 20_000})
    emu.sendUserMessage(token, {text: '/start', chatId: 57})
    await emu.waitForBotMessage(token, {chatId: 57, timeoutMs: 10_000})
    blind.kill('SIGINT')
    const blindResult = await blind.exited
    expect(blindResult.code).toBe(0)
    expect(summaryOf(blindResult.stderr)).toMatch(/^■ bot dev ended after [\d.ms]+; exit code 0\.$/)
  }, 90_000)
})
