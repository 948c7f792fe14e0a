/**
 * The bot runner's restart with real bot processes and a real relay (no CLI): what happens when a
 * new bot started beside the old one is superseded by another save, does not listen on its fresh
 * PORT in time, or crashes at start. The fixture (slow-stop-bot.mjs) waits at a gate file before
 * it listens and crashes at start when told, so each case is reached by events, not by timing.
 */
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {resolveBotCommand} from '../../src/dev/bot/command.js'
import {BotRunner} from '../../src/dev/bot/runner.js'
import type {DevEvent} from '../../src/dev/events.js'
import {ImportLog} from '../../src/dev/imports/imports.js'
import {Relay} from '../../src/dev/relay/relay.js'
import {isPidAlive} from '../../src/session-store/processes.js'
import {freePort} from '../../src/lib/free-port.js'
import {fixture} from './helpers.js'
import {PROJECT_ROOT} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

const SECRET = 'restart_runner_secret'
const PATH = '/webhook/restart-runner'

interface World {
  runner: BotRunner
  relay: Relay
  events: DevEvent[]
  port: number
  gate: string
  /** Exists: a bot asked to stop shuts down; removed: it serves on until it exists again. */
  stopGate: string
  crash: string
  release: string
  lines: () => string[]
  recorded: () => string[]
  exits: () => number
  close(): Promise<void>
}

let current: World | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

/**
 * `imports`: the bot runs with bot dev's preload (dist's) and reports the modules it loads to an
 * ImportLog of the world's folder; `env`: more of the bot's environment.
 */
async function world(
  overlapTimeoutMs = 10_000,
  restartOrder?: 'stop-first',
  more: {imports?: boolean; env?: (dir: string) => Record<string, string>} = {},
): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'bot-restart-runner-'))
  const imports = more.imports ? new ImportLog(dir) : undefined
  const preload = join(PROJECT_ROOT, 'dist', 'dev', 'imports', 'preload.cjs')
  const files = {events: join(dir, 'events.txt'), record: join(dir, 'record.txt')}
  const gate = join(dir, 'gate')
  const stopGate = join(dir, 'stop-gate')
  const crash = join(dir, 'crash')
  const release = join(dir, 'release')
  writeFileSync(gate, '')
  writeFileSync(stopGate, '')
  const relay = new Relay({secret: SECRET, path: PATH})
  await relay.listen()
  const events: DevEvent[] = []
  const controller = new AbortController()
  let exits = 0
  const port = await freePort()
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])
  const runner = new BotRunner({
    command: resolveBotCommand([process.execPath, fixture('slow-stop-bot.mjs')], dir),
    cwd: dir,
    token: '123456:restart-runner-token',
    mode: 'webhook',
    port,
    path: PATH,
    secret: SECRET,
    marker: 'restart-runner',
    relay,
    stopGraceMs: 5000,
    overlapTimeoutMs,
    restartOrder,
    signal: controller.signal,
    emit: (e) => events.push(e),
    saveState: () => {},
    webhookUrl: () => undefined,
    onUp: () => {},
    onExit: () => exits++,
    loads: imports,
    env: {
      ...imports?.env(process.env, preload),
      ...more.env?.(dir),
      FIXTURE_EVENTS: files.events,
      FIXTURE_RECORD: files.record,
      FIXTURE_GATE: gate,
      FIXTURE_STOP_GATE: stopGate,
      FIXTURE_CRASH_IF: crash,
      FIXTURE_RELEASE: release,
      FIXTURE_STOP_MS: '200',
    },
  })
  const w: World = {
    runner,
    relay,
    events,
    port,
    gate,
    stopGate,
    crash,
    release,
    lines: () => read(files.events),
    recorded: () => read(files.record),
    exits: () => exits,
    async close() {
      controller.abort()
      runner.close()
      await runner.stop()
      await relay.close()
      imports?.close()
      rmSync(dir, {recursive: true, force: true})
    },
  }
  current = w
  runner.launch()
  await waitFor(() => events.some((e) => e.type === 'bot-listening'), {what: 'the first bot listening'})
  return w
}

const of = <T extends DevEvent['type']>(w: World, type: T) =>
  w.events.filter((e): e is Extract<DevEvent, {type: T}> => e.type === type)
const started = (w: World) => w.lines().filter((l) => l.startsWith('started '))
const pidOf = (line: string) => Number(line.split(' ')[1])
const update = (id: number, text = `u${id}`) =>
  JSON.stringify({update_id: id, message: {message_id: id, date: 1, chat: {id: 5, type: 'private'}, text}})
const recordedBy = (w: World) => w.recorded().map((l) => [Number(l.split(' ')[0]), Number(l.split(' ')[3])])

describe('restart, the new bot started first', () => {
  it('an update in flight at the old bot finishes there; one that comes meanwhile goes to the new bot', async () => {
    const w = await world()
    const oldPid = pidOf(started(w)[0])
    const inFlight = w.relay.inject(update(1, 'hold'), {source: 'trigger'})
    await waitFor(() => w.lines().includes(`received ${oldPid} 1`), {what: 'the old bot handling the update'})
    rmSync(w.gate)
    const restarting = w.runner.restart(['a.ts'])
    await waitFor(() => started(w).length === 2, {what: 'the new bot starting'})
    const newPid = pidOf(started(w)[1])
    // Sent while the new bot starts: held, then delivered to it.
    const meanwhile = w.relay.inject(update(2), {source: 'trigger'})
    writeFileSync(w.gate, '')
    expect((await meanwhile).status).toBe(200)
    expect(recordedBy(w)).toEqual([[2, newPid]])
    // The old bot is asked to stop once the new one listens; its update in flight finishes there.
    await waitFor(() => w.lines().includes(`stopping ${oldPid}`), {what: 'the old bot asked to stop'})
    writeFileSync(w.release, '')
    expect((await inFlight).status).toBe(200)
    await restarting
    expect(recordedBy(w)).toEqual([
      [2, newPid],
      [1, oldPid],
    ])
    expect(w.lines()).toContain(`stopped ${oldPid}`)
    expect(of(w, 'bot-exit')).toEqual([])
  })

  it('a save while the new bot starts supersedes it: the next one takes its place, and updates wait for that one', async () => {
    const w = await world()
    const oldPid = pidOf(started(w)[0])
    rmSync(w.gate)
    const first = w.runner.restart(['a.ts'])
    await waitFor(() => started(w).length === 2, {what: 'the first new bot starting'})
    const superseded = pidOf(started(w)[1])
    const second = w.runner.restart(['b.ts'])
    await waitFor(() => started(w).length === 3, {what: 'the second new bot starting'})
    const answer = w.relay.inject(update(7), {source: 'trigger'})
    writeFileSync(w.gate, '')
    await Promise.all([first, second])
    expect((await answer).status).toBe(200)

    const newest = pidOf(started(w)[2])
    expect(w.lines().some((l) => l.startsWith(`listening ${superseded} `))).toBe(false)
    expect(w.recorded().map((l) => l.split(' ').slice(0, 1).concat(l.split(' ')[3]))).toEqual([['7', String(newest)]])
    expect(of(w, 'restart').map((e) => [e.files, e.order])).toEqual([
      [['a.ts'], 'start-first'],
      [['b.ts'], 'start-first'],
    ])
    const listening = of(w, 'bot-listening')
    expect(listening).toHaveLength(2)
    expect(listening[1].port).not.toBe(w.port)
    expect(listening[1].restartMs).toBeGreaterThan(0)
    expect(w.runner.restarts).toBe(2)
    expect(w.runner.bot?.pid).toBe(newest)
    // The old bot was asked to stop only once the newest listened, and has stopped by the time restart() resolved.
    const ev = w.lines()
    expect(ev.indexOf(`stopping ${oldPid}`)).toBeGreaterThan(ev.findIndex((l) => l.startsWith(`listening ${newest} `)))
    expect(ev).toContain(`stopped ${oldPid}`)
    expect(of(w, 'bot-exit')).toEqual([])
  })

  it('a save while the old bot is still shutting down restarts at once: the restart is over once the new bot serves', async () => {
    const w = await world()
    const oldPid = pidOf(started(w)[0])
    // Asked to stop, the old bot serves on until the stop gate is back (a slow shutdown, as the grammY template's).
    rmSync(w.stopGate)
    const first = w.runner.restart(['a.ts'])
    await waitFor(() => w.lines().includes(`stopping ${oldPid}`), {what: 'the old bot asked to stop'})
    const middle = pidOf(started(w)[1])
    const second = w.runner.restart(['b.ts'])
    await waitFor(() => started(w).length === 3, {what: 'the next new bot starting'})
    // It started while the old bot was still shutting down: that shutdown is not part of the next restart.
    expect(w.lines()).not.toContain(`stopped ${oldPid}`)
    expect(isPidAlive(oldPid), 'the old bot still shutting down').toBe(true)
    expect(of(w, 'restart').map((e) => [e.files, e.order])).toEqual([
      [['a.ts'], 'start-first'],
      [['b.ts'], 'start-first'],
    ])
    await waitFor(() => of(w, 'bot-listening').length === 3, {what: 'the newest bot listening'})
    const newest = pidOf(started(w)[2])
    expect((await w.relay.inject(update(11), {source: 'trigger'})).status).toBe(200)
    expect(recordedBy(w)).toEqual([[11, newest]])
    // restart() resolves once the bots it replaced are gone.
    writeFileSync(w.stopGate, '')
    await Promise.all([first, second])
    expect(w.lines()).toEqual(expect.arrayContaining([`stopped ${oldPid}`, `stopped ${middle}`]))
    expect(w.lines()).not.toContain(`stopping ${newest}`)
    expect(of(w, 'bot-exit')).toEqual([])
    expect(w.runner.bot?.pid).toBe(newest)
  })

  it('a new bot that does not listen on its fresh PORT in time: stop, then start, now and from now on', async () => {
    const w = await world(300)
    const oldPid = pidOf(started(w)[0])
    rmSync(w.gate)
    const restarting = w.runner.restart(['a.ts'])
    await waitFor(() => of(w, 'warn').length > 0, {what: 'the warning'})
    expect(of(w, 'warn')[0].text).toMatch(/^The new bot did not listen on its PORT \d+ within \d+s beside the old one/)
    await waitFor(() => started(w).length === 3, {what: 'the bot started again'})
    writeFileSync(w.gate, '')
    await restarting
    await waitFor(() => of(w, 'bot-listening').length === 2, {what: 'the bot listening again'})
    // Started again on the session's own port, once the old one had stopped.
    expect(of(w, 'bot-listening')[1].port).toBe(w.port)
    const ev = w.lines()
    const again = pidOf(started(w)[2])
    expect(ev.indexOf(`stopped ${oldPid}`)).toBeLessThan(ev.findIndex((l) => l.startsWith(`listening ${again} `)))
    expect((await w.relay.inject(update(8), {source: 'trigger'})).status).toBe(200)
    // The next restart goes stop-first at once.
    await w.runner.restart(['b.ts'])
    expect(of(w, 'restart').map((e) => e.order)).toEqual(['start-first', 'stop-first'])
    expect(of(w, 'bot-exit')).toEqual([])
  })

  it('a new bot that crashes at start: the old one is stopped too, and the crash is the bot exit (once)', async () => {
    const w = await world()
    const oldPid = pidOf(started(w)[0])
    writeFileSync(w.crash, '')
    await w.runner.restart(['a.ts'])
    expect(w.lines()).toContain(`stopped ${oldPid}`)
    expect(of(w, 'bot-exit').map((e) => [e.code, e.text])).toEqual([[3, '✗ The bot exited with code 3.']])
    expect(w.exits()).toBe(1)
    expect(w.runner.downReason()).toBe('The bot exited with code 3')
    expect(w.relay.target).toBeUndefined()
    expect(w.runner.lastLines).toEqual(['slow-stop bot: crashing at start'])
    // Fixed and saved: the bot is down, so it simply starts (stop-first: nothing to stop) and works.
    rmSync(w.crash)
    await w.runner.restart(['a.ts'])
    await waitFor(() => of(w, 'bot-listening').length === 2, {what: 'the fixed bot listening'})
    expect(of(w, 'restart').map((e) => e.order)).toEqual(['start-first', 'stop-first'])
    expect((await w.relay.inject(update(9), {source: 'trigger'})).status).toBe(200)
  })
})

describe('restart for a save seen at its first file event (watch.ts): more files of the same save', () => {
  it('while the new bot starts: it is replaced, with no second restart line; once it serves: replaced again, quietly', async () => {
    const w = await world()
    const oldPid = pidOf(started(w)[0])
    rmSync(w.gate)
    const first = w.runner.restart(['a.ts'])
    await waitFor(() => started(w).length === 2, {what: 'the new bot starting'})
    const replaced = pidOf(started(w)[1])
    const more = w.runner.restart(['b.ts'], undefined, true)
    await waitFor(() => started(w).length === 3, {what: 'its replacement starting'})
    writeFileSync(w.gate, '')
    await Promise.all([first, more])
    const newest = pidOf(started(w)[2])
    expect(w.lines().some((l) => l.startsWith(`listening ${replaced} `))).toBe(false)
    expect(of(w, 'restart').map((e) => e.files)).toEqual([['a.ts']])
    expect(w.runner.restarts).toBe(1)
    expect(w.runner.bot?.pid).toBe(newest)
    expect(w.lines()).toContain(`stopped ${oldPid}`)
    expect((await w.relay.inject(update(21), {source: 'trigger'})).status).toBe(200)
    expect(recordedBy(w)).toEqual([[21, newest]])
    // The same save's last file seen once the restart was over: the bot may have read it before; replaced quietly.
    await w.runner.restart(['c.ts'], undefined, true)
    await waitFor(() => of(w, 'bot-listening').length === 3, {what: 'the bot replaced again'})
    expect(started(w)).toHaveLength(4)
    expect(of(w, 'restart')).toHaveLength(1)
    expect(w.runner.restarts).toBe(1)
    expect(w.lines()).toContain(`stopped ${newest}`)
    expect(of(w, 'bot-exit')).toEqual([])
  })

  it('stop-first: more files of the save while the old bot stops need nothing more (the bot started after has them)', async () => {
    const w = await world(10_000, 'stop-first')
    const oldPid = pidOf(started(w)[0])
    // Asked to stop, the old bot serves on until the stop gate is back.
    rmSync(w.stopGate)
    const first = w.runner.restart(['a.ts'])
    await waitFor(() => w.lines().includes(`stopping ${oldPid}`), {what: 'the old bot asked to stop'})
    const more = w.runner.restart(['b.ts'], undefined, true)
    writeFileSync(w.stopGate, '')
    await Promise.all([first, more])
    await waitFor(() => of(w, 'bot-listening').length === 2, {what: 'the new bot listening'})
    expect(started(w)).toHaveLength(2)
    expect(of(w, 'restart').map((e) => [e.files, e.order])).toEqual([[['a.ts'], 'stop-first']])
    expect(w.runner.restarts).toBe(1)
    expect(of(w, 'bot-exit')).toEqual([])
  })
})

describe('more files of the same save that the new bot has not loaded yet (its preload reports what it loads)', () => {
  it('need no second start: the new bot loads them as they are now', async () => {
    const w = await world(10_000, undefined, {
      imports: true,
      env: (dir) => {
        writeFileSync(join(dir, 'handlers.mjs'), 'export const x = 1\n')
        writeFileSync(join(dir, 'early.mjs'), 'export const y = 1\n')
        return {FIXTURE_IMPORT: join(dir, 'handlers.mjs'), FIXTURE_IMPORT_FIRST: join(dir, 'early.mjs')}
      },
    })
    rmSync(w.gate)
    const first = w.runner.restart(['handlers.mjs'])
    // The new bot has loaded early.mjs (at its start), and waits at the gate before it loads handlers.mjs.
    await waitFor(() => started(w).length === 2, {what: 'the new bot starting'})
    const newBot = pidOf(started(w)[1])
    const same = w.runner.restart(['handlers.mjs'], undefined, true)
    writeFileSync(w.gate, '')
    await Promise.all([first, same])
    expect(w.runner.bot?.pid).toBe(newBot)
    expect(started(w)).toHaveLength(2)
    expect(w.lines()).toContain(`listening ${newBot} ${w.runner.port}`)
    expect(of(w, 'restart').map((e) => e.files)).toEqual([['handlers.mjs']])
    expect(w.runner.restarts).toBe(1)
    expect(recordedBy(w)).toEqual([])
    expect((await w.relay.inject(update(31), {source: 'trigger'})).status).toBe(200)
    expect(recordedBy(w)).toEqual([[31, newBot]])

    // A file the new bot loaded since it started: it is replaced, as before.
    rmSync(w.gate)
    const next = w.runner.restart(['handlers.mjs'])
    await waitFor(() => started(w).length === 3, {what: 'the next new bot starting'})
    const replaced = pidOf(started(w)[2])
    const more = w.runner.restart(['early.mjs'], undefined, true)
    await waitFor(() => started(w).length === 4, {what: 'its replacement starting'})
    const newest = pidOf(started(w)[3])
    writeFileSync(w.gate, '')
    await Promise.all([next, more])
    expect(w.lines().some((l) => l.startsWith(`listening ${replaced} `))).toBe(false)
    expect(w.runner.bot?.pid).toBe(newest)
    expect(w.runner.restarts).toBe(2)
    expect(of(w, 'bot-exit')).toEqual([])
  })
})
