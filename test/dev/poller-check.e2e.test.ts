/**
 * `bot dev`'s start-up check for another poller names only a local process connected to the Bot
 * API: a shell that carries BOT_TOKEN, a `sleep` that inherited it and `bot emulator` are never
 * "the other poller". A poller slow to poll again after its 409 is found all the same. Real
 * processes: `bot dev`, a real poller, a bash, a sleep and `bot emulator`, all with the token in
 * their environment, against the emulator.
 *
 * The emulator runs in real time: the check relies on the Bot API's 3-second hold between two 409s
 * (src/doctor/probe.ts) to see a poller that has not polled again yet. Scaled down (the 0.01 other
 * `bot dev` tests use), that hold is 30 ms, and a poller that took longer than the session's start
 * to come back went unseen in a clean-clone run at load 8.
 */
import {spawn} from 'node:child_process'
import net from 'node:net'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {PROJECT_ROOT, startCli, type RunningCli} from '../support/cli.js'
import {inProcessPoller} from '../support/poller.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
const stops: Array<() => Promise<void> | void> = []
beforeEach(async () => {
  world = await devWorld({timeScale: 1})
})
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s()
  await world.close()
})

/** A plain child with the token in its environment; resolves with its pid once it runs. */
async function holder(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  const c = spawn(command, args, {env: {...process.env, BOT_TOKEN: world.token, ...env}, stdio: 'ignore'})
  const exited = new Promise((r) => c.once('exit', r))
  stops.push(async () => {
    c.kill('SIGKILL')
    await exited
  })
  await new Promise<void>((resolve, reject) => {
    c.once('spawn', resolve)
    c.once('error', reject)
  })
  return c.pid!
}

/** test/fixtures/pollers/poller.mjs, polling again after each 409 (after `retryAfterMs`); resolves with its pid. */
function retryingPoller(retryAfterMs = 0): Promise<number> {
  return holder(process.execPath, [join(PROJECT_ROOT, 'test', 'fixtures', 'pollers', 'poller.mjs'), 'retry'], {
    BOT_API_ROOT: world.emu.apiRoot,
    POLL_TIMEOUT: '30',
    FIXTURE_LIFETIME_MS: '60000',
    RETRY_AFTER_MS: String(retryAfterMs),
  })
}

/** `bot emulator` as a real process with BOT_TOKEN inherited (as from a shell). */
async function emulatorProcess(): Promise<number> {
  const emu: RunningCli = startCli(['emulator', '--port', '0'], {env: {BOT_TOKEN: world.token}, timeoutMs: 120_000})
  stops.push(async () => {
    emu.kill('SIGKILL')
    await emu.exited
  })
  await emu.waitForOutput('Bot API emulator on', {timeoutMs: 30_000})
  return emu.child.pid!
}

/** The warning line about another poller. */
function pollerLine(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.includes('Another program was long-polling this bot'))
  expect(line, `no poller line in:\n${stderr}`).toBeDefined()
  return line!
}

describe('bot dev: the check for another poller', () => {
  it('names the local poller only; the shell, the sleep and bot emulator holding BOT_TOKEN are not named', async () => {
    const shell = await holder('bash', ['-c', 'sleep 300; :'])
    const sleeper = await holder('sleep', ['300'])
    const emulator = await emulatorProcess()
    const poller = await retryingPoller()
    await waitFor(() => world.emu.isLongPolling(world.token), {what: 'the poller polling'})

    const dev = startDev(world, {timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    await dev.waitForOutput(/Another program was long-polling this bot/, {timeoutMs: 10_000})
    const line = pollerLine(dev.stderr())
    expect(line).toMatch(
      new RegExp(
        `Another program was long-polling this bot, on this machine: pid ${poller} \\([^)]*poller\\.mjs retry\\); the webhook set by \`bot dev\` has cut it off`,
      ),
    )
    for (const pid of [shell, sleeper, emulator]) expect(line).not.toContain(`pid ${pid} `)
    dev.kill('SIGINT')
    assertNoToken(await dev.exited, world.token)
  }, 120_000)

  it('a poller that polls again only 3 s after its 409 is named all the same (before Ready), and said to be cut off', async () => {
    // python-telegram-bot backs off after a Conflict; on a loaded machine any poller is slow to come back.
    const poller = await retryingPoller(3000)
    await waitFor(() => world.emu.isLongPolling(world.token), {what: 'the poller polling'})

    const dev = startDev(world, {timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    // Said before Ready: the webhook is set once the check has its answer.
    expect(pollerLine(dev.stderr())).toMatch(
      new RegExp(
        `Another program was long-polling this bot, on this machine: pid ${poller} \\([^)]*poller\\.mjs retry\\); the webhook set by \`bot dev\` has cut it off`,
      ),
    )
    dev.kill('SIGINT')
    assertNoToken(await dev.exited, world.token)
  }, 120_000)

  it('a poller elsewhere while a shell and bot emulator hold BOT_TOKEN here: "not on this machine", nobody named', async () => {
    const shell = await holder('bash', ['-c', 'sleep 300; :'])
    const emulator = await emulatorProcess()
    // The poller runs in this test process, an ancestor of `bot dev` (left out of the scan, and it
    // has no token in its environment): to `bot dev` it runs elsewhere.
    const poller = inProcessPoller(world.emu.apiRoot, world.token)
    stops.push(() => poller.stop())
    await waitFor(() => world.emu.isLongPolling(world.token), {what: 'the in-process poller to wait'})

    const dev = startDev(world, {timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    await dev.waitForOutput(/Another program was long-polling this bot/, {timeoutMs: 10_000})
    const line = pollerLine(dev.stderr())
    expect(line).toContain(
      'Another program was long-polling this bot, not on this machine (a server somewhere else?); the webhook set by `bot dev` has cut it off',
    )
    for (const pid of [shell, emulator]) expect(line).not.toContain(`pid ${pid}`)
    dev.kill('SIGINT')
    assertNoToken(await dev.exited, world.token)
  }, 120_000)

  it('a holder whose connections go elsewhere is named as "perhaps", not as the poller', async () => {
    // A program with the token connected to something that is not the Bot API: whether it polls cannot be told.
    const other = net.createServer((socket) => socket.on('error', () => {}))
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
    stops.push(() => new Promise<void>((r) => other.close(() => r())))
    const port = (other.address() as net.AddressInfo).port
    const connected = new Promise<void>((r) => other.once('connection', () => r()))
    const elsewhere = await holder(process.execPath, [
      '-e',
      `require('net').connect(${port}, '127.0.0.1'); setInterval(() => {}, 1000)`,
    ])
    await connected
    const poller = inProcessPoller(world.emu.apiRoot, world.token)
    stops.push(() => poller.stop())
    await waitFor(() => world.emu.isLongPolling(world.token), {what: 'the in-process poller to wait'})

    const dev = startDev(world, {timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    await dev.waitForOutput(/Another program was long-polling this bot/, {timeoutMs: 10_000})
    expect(pollerLine(dev.stderr())).toMatch(
      new RegExp(
        `Another program was long-polling this bot, perhaps on this machine: pid ${elsewhere} \\(.*\\) holds the token, but whether it polls cannot be told; the webhook set`,
      ),
    )
    dev.kill('SIGINT')
    assertNoToken(await dev.exited, world.token)
  }, 120_000)
})
