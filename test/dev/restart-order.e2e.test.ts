/**
 * Restart without the wait (issue 31, item 16), as real processes: in webhook mode a save starts the
 * new bot on a fresh PORT while the old one still runs, the relay switches to it once it listens,
 * and only then is the old one stopped (it takes a second, as the grammY template does). Updates
 * that come meanwhile are held and go to the new bot, each once, in order per chat. A bot that
 * ignores PORT (here: `--port` with a bot that listens on that port whatever PORT says) and polling
 * mode keep stop, then start. The fixture writes what each process does to an events file.
 */
import {copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import getPort from 'get-port'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {devWorld, fixture, startDev, type DevWorld} from './helpers.js'
import {readState} from '../../src/session-store/state.js'
import {isPidAlive} from '../../src/session-store/processes.js'
import {runCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  // Telegram waits 60 s for an answer: the emulator's scaled read timeout must not be shorter than a restart.
  world = await devWorld({webhookReadTimeoutMs: 1_000_000})
})
afterEach(async () => {
  await world.close()
})

interface Processed {
  id: number
  chat: number
  pid: number
  port: number
}

function processed(world: DevWorld): Processed[] {
  return world.recordedLines().map((line) => {
    const [id, chat, , pid, port] = line.split(' ').map(Number)
    return {id, chat, pid, port}
  })
}

function setUp(world: DevWorld): {dir: string; botFile: string; events: string; lines: () => string[]} {
  const dir = join(world.dir, 'project')
  mkdirSync(dir, {recursive: true})
  const botFile = join(dir, 'bot.mjs')
  copyFileSync(fixture('slow-stop-bot.mjs'), botFile)
  const events = join(world.dir, 'events.txt')
  const lines = () => (existsSync(events) ? readFileSync(events, 'utf8').split('\n').filter(Boolean) : [])
  return {dir, botFile, events, lines}
}

function save(file: string): void {
  const now = new Date()
  utimesSync(file, now, now)
}

/** Each update sent was processed exactly once, and each chat's updates in the order they were sent. */
function expectOnceInOrder(sent: Array<{id: number; chat: number}>, got: Processed[]): void {
  const ids = got.map((p) => p.id)
  expect(new Set(ids).size, 'an update processed twice').toBe(ids.length)
  expect([...ids].sort((a, b) => a - b)).toEqual(sent.map((s) => s.id).sort((a, b) => a - b))
  for (const chat of new Set(sent.map((s) => s.chat))) {
    const order = got.filter((p) => p.chat === chat).map((p) => p.id)
    expect(order, `chat ${chat}`).toEqual(sent.filter((s) => s.chat === chat).map((s) => s.id))
  }
}

describe('bot dev: the order of a restart', () => {
  it('webhook: the new bot starts on a fresh PORT beside the old one; updates meanwhile reach it once each, in order', async () => {
    const {emu, token} = world
    const {dir, botFile, events, lines} = setUp(world)
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50'],
      env: {FIXTURE_EVENTS: events, FIXTURE_STOP_MS: '1000'},
    })
    await dev.waitForOutput(/Ready: .*restarting on file changes/)
    const send = (n: number, label: string) =>
      Array.from({length: n}, (_, i) => {
        const chat = 100 + (i % 3)
        return {id: emu.sendUserMessage(token, {text: `${label}${i}`, chatId: chat}).update_id, chat}
      })
    const before = send(3, 'before')
    await waitFor(() => processed(world).length === before.length, {what: 'the updates before the restart'})
    const [oldPid, oldPort] = lines()
      .find((l) => l.startsWith('listening '))!
      .split(' ')
      .slice(1)
      .map(Number)

    save(botFile)
    await dev.waitForOutput(/↻ bot\.mjs changed/)
    // From the restart line on, the relay holds new updates for the new bot.
    const during = send(30, 'during')
    await dev.waitForOutput(/✓ Bot listening on port \d+ \(\d+ ms; restarted in \d+ ms\)/)
    const after = send(6, 'after')
    const sent = [...before, ...during, ...after]
    await waitFor(() => processed(world).length >= sent.length, {what: 'every update processed', timeout: 20_000})
    await waitFor(() => lines().includes(`stopped ${oldPid}`), {what: 'the old bot stopped'})

    const got = processed(world)
    expectOnceInOrder(sent, got)
    const newBot = got.find((p) => p.pid !== oldPid)!
    expect(newBot.port).not.toBe(oldPort)
    for (const p of got) expect(p.pid, `update ${p.id}`).toBe(before.some((b) => b.id === p.id) ? oldPid : newBot.pid)
    // The new bot listened before the old one was asked to stop.
    const ev = lines()
    expect(ev.indexOf(`listening ${newBot.pid} ${newBot.port}`)).toBeGreaterThan(0)
    // The old bot is asked to stop only once the new one has bound its port (its "listening" line is written in
    // the listen callback, which may run after the session saw the socket listen and signalled the old bot).
    expect(ev.indexOf(`binding ${newBot.pid} ${newBot.port}`)).toBeLessThan(ev.indexOf(`stopping ${oldPid}`))

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`webhook mode, PORT=${oldPort})`)
    expect(result.stderr).toContain(`(pid ${newBot.pid}, webhook mode, PORT=${newBot.port})`)
    expect(result.stderr.split('\n').filter((l) => l.startsWith('↻'))).toEqual([
      '↻ bot.mjs changed; restarting the bot (updates are held meanwhile)',
    ])
    expect(result.stderr).not.toMatch(/exited with code|Waiting for a file change/)
    expect(result.stderr).toMatch(/, 1 restart; exit code 0\./)
    expect(emu.pendingUpdates(token)).toEqual([])
  }, 90_000)

  it('bot dev killed (SIGKILL) while the new bot starts beside the old one: the next bot dev stops both', async () => {
    const {dir, botFile, events, lines} = setUp(world)
    const gate = join(world.dir, 'gate')
    writeFileSync(gate, '')
    const first = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50'],
      env: {FIXTURE_EVENTS: events, FIXTURE_STOP_MS: '300', FIXTURE_GATE: gate},
    })
    await first.waitForOutput(/Ready: .*restarting on file changes/)
    const started = () => lines().filter((l) => l.startsWith('started '))
    const oldPid = Number(started()[0].split(' ')[1])
    // The new bot is held before it listens: the old one still runs and serves.
    rmSync(gate)
    save(botFile)
    await waitFor(() => started().length === 2, {what: 'the new bot started beside the old one'})
    const newPid = Number(started()[1].split(' ')[1])
    expect(newPid).not.toBe(oldPid)
    expect(lines()).not.toContain(`stopping ${oldPid}`)
    // Both are in the session state: the newest as `bot`, the old one among `others`.
    const state = readState(world.botId, world.stateDir)
    expect(state?.bot?.pid).toBe(newPid)
    expect(state?.others?.map((p) => p.pid)).toEqual([oldPid])

    first.kill('SIGKILL')
    await first.exited
    expect(isPidAlive(oldPid), 'the old bot left running').toBe(true)
    expect(isPidAlive(newPid), 'the new bot left running').toBe(true)

    const second = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50'],
      env: {FIXTURE_EVENTS: events, FIXTURE_STOP_MS: '300'},
    })
    await second.waitForOutput(/Ready: .*restarting on file changes/)
    const out = second.stdout() + second.stderr()
    expect(out).toMatch(new RegExp(`Stopped the bot process \\(pid ${oldPid}\\) left running by that session\\.`))
    expect(out).toMatch(new RegExp(`Stopped the bot process \\(pid ${newPid}\\) left running by that session\\.`))
    // The old one shut down as asked (SIGTERM); the held one is gone too.
    expect(lines()).toContain(`stopped ${oldPid}`)
    expect(lines().some((l) => l.startsWith(`listening ${newPid} `))).toBe(false)
    await waitFor(() => !isPidAlive(oldPid) && !isPidAlive(newPid), {what: 'both orphaned bots gone'})
    expect(readState(world.botId, world.stateDir)?.others).toBeUndefined()

    second.kill('SIGINT')
    const result = await second.exited
    expect(result.code).toBe(0)
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
  }, 90_000)

  it('a bot that ignores PORT (--port): stop, then start, and it still works', async () => {
    const {emu, token} = world
    const {dir, botFile, events, lines} = setUp(world)
    const port = await getPort()
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      args: ['--debounce', '50', '--port', String(port), '--json'],
      env: {FIXTURE_EVENTS: events, FIXTURE_STOP_MS: '300', FIXTURE_FIXED_PORT: String(port)},
    })
    await dev.waitForOutput(/"type":"ready"/)
    const oldPid = Number(lines()[0].split(' ')[1])
    save(botFile)
    await dev.waitForOutput(/"type":"restart"/)
    const during = [1, 2, 3].map((i) => ({
      id: emu.sendUserMessage(token, {text: `m${i}`, chatId: 7}).update_id,
      chat: 7,
    }))
    await dev.waitForOutput(/"restartMs":\d+/)
    await waitFor(() => processed(world).length >= during.length, {what: 'the updates after the restart'})
    const got = processed(world)
    expectOnceInOrder(during, got)
    const newPid = got[0].pid
    expect(newPid).not.toBe(oldPid)
    for (const p of got) expect([p.pid, p.port]).toEqual([newPid, port])
    // The old one was gone before the new one listened.
    const ev = lines()
    expect(ev.indexOf(`stopped ${oldPid}`)).toBeGreaterThan(0)
    expect(ev.indexOf(`stopped ${oldPid}`)).toBeLessThan(ev.indexOf(`listening ${newPid} ${port}`))

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    const restart = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as {type: string; order?: string})
      .filter((e) => e.type === 'restart')
    expect(restart.map((e) => e.order)).toEqual(['stop-first'])
  }, 90_000)

  it('polling mode: stop, then start, as before', async () => {
    const {emu, token} = world
    const {dir, botFile, events, lines} = setUp(world)
    const dev = startDev(world, {
      cwd: dir,
      bot: ['node', 'bot.mjs'],
      tunnel: false,
      args: ['--debounce', '50', '--mode', 'polling'],
      env: {FIXTURE_EVENTS: events, FIXTURE_STOP_MS: '300'},
    })
    await dev.waitForOutput(/Ready: the bot runs on long polling/)
    await waitFor(() => lines().length > 0, {what: 'the bot polling'})
    const oldPid = Number(lines()[0].split(' ')[1])
    save(botFile)
    await dev.waitForOutput(/↻ bot\.mjs changed[^]*▶ node bot\.mjs \(pid \d+, long polling\)/)
    const sent = [1, 2, 3].map((i) => ({id: emu.sendUserMessage(token, {text: `p${i}`, chatId: 9}).update_id, chat: 9}))
    await waitFor(() => processed(world).length >= sent.length, {what: 'the updates after the restart'})
    const got = processed(world)
    expectOnceInOrder(sent, got)
    const newPid = got[0].pid
    expect(newPid).not.toBe(oldPid)
    const ev = lines()
    expect(ev.indexOf(`stopped ${oldPid}`)).toBeGreaterThan(0)
    expect(ev.indexOf(`stopped ${oldPid}`)).toBeLessThan(ev.indexOf(`polling ${newPid}`))
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
  }, 90_000)

  it('BOT_DEV_RESTART with another value: exit 2 with the fix, before anything starts', async () => {
    const result = await runCli(['dev', '--offline', '--', 'node', fixture('slow-stop-bot.mjs')], {
      env: {BOT_DEV_RESTART: 'later'},
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /BOT_DEV_RESTART is "later", which is not a restart order\.\n.*BOT_DEV_RESTART=stop-first/,
    )
    expect(result.stderr).not.toMatch(/▶|Relay on/)
  })
})
