/**
 * Acceptance of issue 13 against real `bot dev` processes:
 * - `bot dev --offline`: `bot trigger update` of a message dated 2023 and an edited replay dated
 *   2023 (polling: through the emulator's queue) reach the bot, dated now — the emulator, like
 *   Telegram, drops updates more than a day old;
 * - `bot dev --tunnel none` against the emulator: synthetic update_ids count down from 2^31-1, so
 *   they never equal Telegram's next real one, and `GET /api/updates/{id}` / `bot replay ID` name
 *   the trigger.
 */
import type {ChildProcess} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {devWorld, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'
import {runCli} from '../support/cli.js'
import {recordLines, startOfflineSession, type Event} from './offline-helpers.js'
import {waitFor} from '../support/wait.js'

const running: ChildProcess[] = []
let world: DevWorld | undefined
afterEach(async () => {
  // SIGINT first, so `bot dev` stops its bot too (a SIGKILL would leave the bot running); SIGKILL after 15 s.
  await Promise.all(
    running.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise((r) => child.once('close', r))
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await gone
      clearTimeout(timer)
    }),
  )
  await world?.close()
  world = undefined
})

const OLD = 1_700_000_000
const oldMessage = (text: string) => ({
  message: {
    message_id: 3,
    from: {id: 1111, is_bot: false, first_name: 'A'},
    chat: {id: 1111, type: 'private', first_name: 'A'},
    date: OLD,
    text,
  },
})
const lines = recordLines
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event)

const startOffline = (args: string[]) =>
  startOfflineSession(['--json', ...args], running, {prefix: 'bot-accept-offline-', waitMs: 30_000, controlMs: 50_000})

describe('accept: triggers and replays are dated now (offline)', () => {
  it('webhook mode: bot trigger update with a 2023 date reaches the bot, dated now', async () => {
    const o = startOffline([])
    await o.waitEvent('ready', (e) => e.type === 'ready')
    const file = join(o.dir, 'old.json')
    writeFileSync(file, JSON.stringify({update_id: 5, ...oldMessage('from 2023')}))
    const before = Math.floor(Date.now() / 1000)
    const r = await o.control(['trigger', 'update', file, '--json'])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const entry = JSON.parse(r.stdout) as Event
    expect(entry).toMatchObject({source: 'trigger', preview: 'from 2023', answer: {status: 200}})
    expect(entry.update.message.date).toBeGreaterThanOrEqual(before)
    await waitFor(() => lines(o.record).includes(`${entry.updateId} message from 2023`), {what: 'the bot got it'})
    o.child.stdin!.end()
    expect(await o.exited).toBe(0)
  }, 90_000)

  it('polling mode: an edited replay dated 2023 goes through the emulator queue and reaches the bot', async () => {
    const o = startOffline(['--mode', 'polling'])
    const ready = await o.waitEvent('ready', (e) => e.type === 'ready')
    o.child.stdin!.write('typed\n')
    const typed = await o.waitEvent('the typed update', (e) => e.type === 'update' && e.preview === 'typed')
    const url = new URL(ready.inspectorUrl)
    const res = await fetch(`${url.origin}/api/updates/${typed.updateId}/replay`, {
      method: 'POST',
      headers: {'x-bot-dev-key': url.searchParams.get('key')!, 'content-type': 'application/json'},
      body: JSON.stringify({update_id: typed.updateId, ...oldMessage('edited old')}),
    })
    const body = (await res.json()) as Event
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toMatchObject({source: 'replay', replayOf: typed.updateId, preview: 'edited old'})
    await waitFor(() => lines(o.record).includes(`${body.updateId} message edited old`), {
      what: 'the bot got the replay',
    })
    o.child.stdin!.end()
    expect(await o.exited).toBe(0)
  }, 90_000)
})

describe('accept: synthetic update ids (bot dev --tunnel none against the emulator)', () => {
  function events(dev: RunningCli): Event[] {
    return jsonLines(dev.stdout())
  }
  async function waitEvent(dev: RunningCli, what: string, match: (e: Event) => boolean): Promise<Event> {
    let found: Event | undefined
    await waitFor(() => (found = events(dev).find(match)) !== undefined, {
      what: () => `${what}\nstdout: ${dev.stdout()}\nstderr: ${dev.stderr()}`,
      timeout: 30_000,
    })
    return found!
  }

  it('count down from 2147483647, never the next real id; the API and bot replay name the trigger', async () => {
    world = await devWorld()
    const {emu, token} = world
    const dev = startDev(world, {
      bot: 'inspector-bot.mjs',
      args: ['--no-watch', '--json', '--tunnel', 'none'],
      timeoutMs: 90_000,
    })
    const ready = await waitEvent(dev, 'ready', (e) => e.type === 'ready')
    const control = (argv: string[]) =>
      runCli(argv, {cwd: world!.dir, env: {BOT_TOKEN: token, BOT_STATE_DIR: world!.stateDir}, timeoutMs: 90_000})

    const real = emu.sendUserMessage(token, {text: 'real one', chatId: 61})
    await waitEvent(dev, 'the real update', (e) => e.type === 'update' && e.updateId === real.update_id)
    const first = await control(['trigger', 'message', 'synthetic one', '--chat', '61', '--json'])
    expect(first.code, first.stderr).toBe(0)
    const second = await control(['trigger', 'message', 'synthetic two', '--chat', '61', '--json'])
    expect(second.code, second.stderr).toBe(0)
    expect([JSON.parse(first.stdout).updateId, JSON.parse(second.stdout).updateId]).toEqual([
      2_147_483_647, 2_147_483_646,
    ])
    // Telegram's (here the emulator's) next real update is numbered on from its own counter.
    const next = emu.sendUserMessage(token, {text: 'real two', chatId: 61})
    expect(next.update_id).toBe(real.update_id + 1)
    await waitEvent(dev, 'the next real update', (e) => e.type === 'update' && e.updateId === next.update_id)

    const url = new URL(ready.inspectorUrl)
    const get = async (id: number) =>
      (
        await fetch(`${url.origin}/api/updates/${id}`, {headers: {'x-bot-dev-key': url.searchParams.get('key')!}})
      ).json() as Promise<Event>
    expect(await get(2_147_483_647)).toMatchObject({source: 'trigger', preview: 'synthetic one'})
    expect(await get(next.update_id)).toMatchObject({source: 'webhook', preview: 'real two'})
    const replay = await control(['replay', '2147483647', '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(JSON.parse(replay.stdout)).toMatchObject({
      source: 'replay',
      replayOf: 2_147_483_647,
      preview: 'synthetic one',
      answer: {status: 200},
    })
    await waitFor(
      () => emu.sentMessages(token, {chatId: 61}).filter((c) => c.params.text === 'echo: synthetic one').length === 2,
      {what: 'the bot answered the trigger and its replay'},
    )
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  }, 120_000)
})

// The session's deadline is 30 s (here 3 s: --action-timeout), the control port's 35 s, the client's 45 s.
describe('accept: a slow bot and the deadlines (session < control port 35 s < client 45 s)', () => {
  it("bot trigger gets the session's own message when the bot never answers, and the session goes on", async () => {
    world = await devWorld()
    const {token} = world
    // A webhook bot that never answers "slow" (until it is stopped), and answers anything else at once.
    const bot = join(world.dir, 'slow-bot.mjs')
    writeFileSync(
      bot,
      `import http from 'node:http'
const server = http.createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', () => {
    if (JSON.parse(body).message?.text === 'slow') return
    res.writeHead(200, {'content-type': 'application/json'}).end('{}')
  })
})
server.listen(Number(process.env.PORT), '127.0.0.1')
`,
    )
    const dev = startDev(world, {
      bot: ['node', bot],
      args: ['--no-watch', '--json', '--tunnel', 'none', '--action-timeout', '3000'],
      timeoutMs: 90_000,
    })
    await waitFor(() => jsonLines(dev.stdout()).some((e) => e.type === 'ready'), {
      what: () => `ready\n${dev.stderr()}`,
      timeout: 30_000,
    })
    const control = (argv: string[]) =>
      runCli(argv, {cwd: world!.dir, env: {BOT_TOKEN: token, BOT_STATE_DIR: world!.stateDir}, timeoutMs: 90_000})
    const slow = await control(['trigger', 'message', 'slow', '--chat', '61'])
    expect(slow.code, slow.stdout + slow.stderr).toBe(1)
    expect(slow.stderr).toMatch(/The bot did not take the update within 3s\./)
    expect(slow.stderr).not.toMatch(/within 35 s|within 45 s/)
    const fast = await control(['trigger', 'message', 'fast', '--chat', '61'])
    expect(fast.code, fast.stderr).toBe(0)
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  }, 90_000)
})
