/**
 * `bot dev` under stress, as real processes: restarts on file change, tunnel drops, a dead tunnel
 * server (fallback to long polling). The property checked each time: every update is processed.
 */
import {copyFileSync, mkdirSync, utimesSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {assertNoToken, devWorld, fixture, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

// Fast probes, reopening and backoff. The tunnel's own deadline stays long: a killed server refuses at once, so it
// does not slow the tests, while 1 s made a loaded machine's first open fall back to the bridge (no webhook to reopen).
const FAST_TUNNEL = [
  '--probe-interval',
  '200',
  '--tunnel-timeout',
  '10000',
  '--tunnel-backoff',
  '100',
  '--tunnel-down-after',
  '500',
]

/** A project folder of its own: the watcher must not see the record file or the state dir. */
function project(world: DevWorld): string {
  const dir = join(world.dir, 'project')
  mkdirSync(dir, {recursive: true})
  return dir
}

function failedDeliveries(world: DevWorld): string[] {
  const failed: string[] = []
  world.emu.on('delivery', (d) => {
    if (d.token === world.token && !d.ok) failed.push(`${d.updateId} ${d.status ?? ''} ${d.error ?? ''} ${d.ms}ms`)
  })
  return failed
}

describe('bot dev resilience', () => {
  it('restarts the bot on a file change and loses nothing', async () => {
    // Telegram waits 60 s for an answer; the emulator's scaled read timeout must not be shorter than a restart.
    await world.close()
    world = await devWorld({webhookReadTimeoutMs: 1_000_000})
    const {emu, token} = world
    const dir = project(world)
    const botFile = join(dir, 'bot.mjs')
    copyFileSync(fixture('echo-bot.mjs'), botFile)
    const failed = failedDeliveries(world)
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50'],
      env: {FIXTURE_WORK_MS: '10'},
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Ready: .*restarting on file changes/)

    const sent: number[] = []
    for (let i = 0; i < 90; i++) sent.push(emu.sendUserMessage(token, {text: `m${i}`, chatId: 100 + (i % 3)}).update_id)
    let restarts = 0
    for (const threshold of [10, 35, 60]) {
      await waitFor(() => world.recorded().length >= threshold, {what: `${threshold} updates processed`})
      const now = new Date()
      utimesSync(botFile, now, now)
      restarts++
      await dev.waitForOutput(new RegExp(`(↻ bot.mjs changed[^]*){${restarts}}`))
    }
    await waitFor(() => sent.every((id) => world.recorded().includes(id)), {what: 'every update processed'})
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'an empty queue'})
    // Processed by more than one bot process: the restarts really happened in between.
    const pids = new Set(world.recordedLines().map((l) => l.split(' ')[3]))
    expect(pids.size).toBeGreaterThanOrEqual(2)
    expect(failed).toEqual([])

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/3 restarts/)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('a crashed bot keeps the session and restarts on the next change', async () => {
    const {emu, token} = world
    const dir = project(world)
    const botFile = join(dir, 'bot.mjs')
    copyFileSync(fixture('crash-bot.mjs'), botFile)
    // (Without a terminal an early exit ends the session: --wait-for-fix waits as a terminal session does.)
    const dev = startDev(world, {cwd: dir, bot: ['node', 'bot.mjs'], args: ['--debounce', '50', '--wait-for-fix']})
    await dev.waitForOutput(/The bot exited with code 3[^]*Waiting for a file change/)
    await dev.waitForOutput(/Watching .* for source changes/)
    expect(emu.webhook(token)).toBeDefined() // the session goes on
    const update = emu.sendUserMessage(token, {text: '/start'})
    copyFileSync(fixture('echo-bot.mjs'), botFile) // the "fix"
    // (a file change seen, a bot started: a bound on a failure only)
    await emu.waitForBotMessage(token, {timeoutMs: 30_000})
    expect(world.recorded()).toContain(update.update_id)
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('survives dropped tunnel sockets (the client reconnects)', async () => {
    const {emu, token, lt} = world
    const dev = startDev(world, {args: ['--no-watch', ...FAST_TUNNEL]})
    await dev.waitForOutput(/Ready/)
    const first = emu.sendUserMessage(token, {text: 'before'})
    await waitFor(() => world.recorded().includes(first.update_id), {what: 'the first update'})
    for (let i = 0; i < 3; i++) {
      lt.dropAll()
      const update = emu.sendUserMessage(token, {text: `after drop ${i}`})
      await waitFor(() => world.recorded().includes(update.update_id), {
        what: `the update after drop ${i}`,
        timeout: 15_000,
      })
    }
    // An answer cut by a drop is retried by Telegram: the queue empties once the retries got through.
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'an empty queue'})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('reopens a lost tunnel and sets the webhook to the new URL', async () => {
    const {emu, token, lt} = world
    const dev = startDev(world, {args: ['--no-watch', ...FAST_TUNNEL, '--tunnel-retries', '8']})
    await dev.waitForOutput(/Ready/)
    // Lines printed after the kill (on a loaded machine the fast probes may already have reopened
    // the tunnel once before it: that earlier "Tunnel back at" must not count).
    const [outFrom, errFrom] = [dev.stdout().length, dev.stderr().length]
    const printed = () => `${dev.stdout().slice(outFrom)}\n${dev.stderr().slice(errFrom)}`
    const since = (pattern: RegExp) => pattern.test(printed())
    const before = emu.webhook(token)!.url
    await lt.kill()
    // Updates sent while the tunnel is down wait at Telegram (retried) and are not lost.
    const during = emu.sendUserMessage(token, {text: 'while down'})
    await waitFor(() => since(/tunnel attempt 2\/8/), {what: 'a second tunnel attempt', timeout: 10_000})
    await lt.revive()
    await waitFor(() => since(/Tunnel back at/), {what: () => `the tunnel back\n${printed()}`, timeout: 15_000})
    expect(emu.webhook(token)!.url).not.toBe(before)
    await waitFor(() => world.recorded().includes(during.update_id), {
      what: 'the update sent while down',
      timeout: 15_000,
    })
    const after = emu.sendUserMessage(token, {text: 'after'})
    await waitFor(() => world.recorded().includes(after.update_id), {what: 'an update after the reconnect'})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('the tunnel dead for good → the polling bridge: same bot process in webhook mode, nothing lost or repeated', async () => {
    const {emu, token, lt} = world
    const dev = startDev(world, {args: ['--no-watch', ...FAST_TUNNEL, '--tunnel-retries', '2']})
    await dev.waitForOutput(/Ready/)
    const pid = Number(/\(pid (\d+), webhook mode/.exec(dev.stderr())?.[1])
    const sent = [emu.sendUserMessage(token, {text: 'before', chatId: 1}).update_id]
    await waitFor(() => world.recorded().includes(sent[0]), {what: 'the first update'})
    await lt.kill()
    for (let i = 0; i < 5; i++)
      sent.push(emu.sendUserMessage(token, {text: `during ${i}`, chatId: 1 + (i % 2)}).update_id)
    await dev.waitForOutput(/Updates now arrive by polling through `bot dev`/, {timeoutMs: 15_000})
    await waitFor(() => emu.webhook(token) === undefined, {what: 'the webhook deleted'})
    for (let i = 0; i < 3; i++) sent.push(emu.sendUserMessage(token, {text: `after ${i}`, chatId: 3}).update_id)
    await waitFor(() => sent.every((id) => world.recorded().includes(id)), {
      what: 'every update processed',
      timeout: 15_000,
    })
    const lines = world.recordedLines()
    // No restart: every update went to the first process, in webhook mode; none twice.
    expect(new Set(lines.map((l) => l.split(' ')[3]))).toEqual(new Set([String(pid)]))
    expect(new Set(lines.map((l) => l.split(' ')[2]))).toEqual(new Set(['webhook']))
    expect(world.recorded().length).toBe(new Set(world.recorded()).size)
    expect(dev.stderr()).not.toMatch(/restart/i)
    expect(emu.webhook(token)).toBeUndefined() // no webhook is set by the bridge
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    expect(emu.pendingUpdates(token)).toEqual([])
    assertNoToken(result, token)
  })

  it('--tunnel localtunnel --no-fallback: a tunnel that stays dead ends the session (exit 1, webhook deleted)', async () => {
    const {emu, token, lt} = world
    const dev = startDev(world, {
      args: ['--no-watch', '--tunnel', 'localtunnel', '--no-fallback', ...FAST_TUNNEL, '--tunnel-retries', '2'],
    })
    await dev.waitForOutput(/Ready/)
    await lt.kill()
    const result = await dev.exited
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/could not be reopened.*--no-fallback/)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })
})
