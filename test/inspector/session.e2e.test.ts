/**
 * The inspector inside `bot dev` as a real process, against the emulator on loopback (webhook mode
 * through the loopback localtunnel server, and long polling): failing calls under their update,
 * inspectorUrl, trigger and replay through the control port, the JSONL history, --no-api-proxy.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {probePort} from '../../src/lib/free-port.js'
import {assertNoToken, devWorld, startDev, type DevWorld, type RunningCli} from '../dev/helpers.js'
import {runCli, jsonEvents} from '../support/cli.js'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

type Event = Record<string, any>

const events = (dev: RunningCli): Event[] => jsonEvents(dev.stdout())

async function waitEvent(
  dev: RunningCli,
  what: string,
  match: (e: Event) => boolean,
  timeoutMs = 15_000,
): Promise<Event> {
  let found: Event | undefined
  await waitFor(() => (found = events(dev).find(match)) !== undefined, {what: what, timeout: timeoutMs})
  return found!
}

function startInspected(args: string[], env: Record<string, string> = {}): RunningCli {
  return startDev(world, {
    bot: 'inspector-bot.mjs',
    args: ['--no-watch', ...args],
    env: {FIXTURE_ENV_RECORD: join(world.dir, 'env.txt'), ...env},
    timeoutMs: 90_000,
  })
}

/** `bot trigger …` / `bot replay …` run in the session's folder, finding it through the state folder. */
function control(args: string[]) {
  return runCli(args, {cwd: world.dir, env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir}, timeoutMs: 90_000})
}

async function apiUpdates(inspectorUrl: string): Promise<Event[]> {
  const url = new URL(inspectorUrl)
  const res = await fetch(`${url.origin}/api/updates`, {headers: {'x-bot-dev-key': url.searchParams.get('key')!}})
  expect(res.status).toBe(200)
  const body = (await res.json()) as Event[] | {updates: Event[]}
  return Array.isArray(body) ? body : body.updates
}

describe('bot dev with the inspector (webhook mode)', () => {
  it('shows a failing call under its update (terminal, --json, the JSON API), and replays and triggers reach the bot', async () => {
    const {emu, token} = world
    const dev = startInspected(['--json'])
    const ready = await waitEvent(dev, 'ready', (e) => e.type === 'ready')
    expect(ready.inspectorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?key=[0-9a-f]{32}$/)
    // The bot talks to the api proxy, not to the emulator directly.
    const botRoot = readFileSync(join(world.dir, 'env.txt'), 'utf8').trim()
    expect(botRoot).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(botRoot).not.toBe(emu.apiRoot)

    const bad = emu.sendUserMessage(token, {text: '/missing', chatId: 4242})
    const failed = await waitEvent(dev, 'the failing call', (e) => e.type === 'api-call')
    expect(failed).toMatchObject({
      method: 'sendMessage',
      ok: false,
      errorCode: 400,
      description: 'Bad Request: chat not found',
      updateId: bad.update_id,
    })
    expect(failed.text).toMatch(/^ {2}↳ sendMessage 400 Bad Request: chat not found/)
    // …after its update's event.
    const all = events(dev)
    const updateAt = all.findIndex((e) => e.type === 'update' && e.updateId === bad.update_id)
    expect(updateAt).toBeGreaterThanOrEqual(0)
    expect(updateAt).toBeLessThan(all.indexOf(all.find((e) => e.type === 'api-call')!))

    const listed = await apiUpdates(ready.inspectorUrl)
    const entry = listed.find((e) => e.updateId === bad.update_id)
    expect(entry).toMatchObject({type: 'message', chatId: 4242, source: 'webhook', answer: {status: 200}})
    expect(entry!.calls).toEqual([
      expect.objectContaining({
        method: 'sendMessage',
        ok: false,
        errorCode: 400,
        description: 'Bad Request: chat not found',
      }),
    ])

    // Replay an answered update: the bot sees it again and answers again (a second sendMessage at the emulator).
    const hello = emu.sendUserMessage(token, {text: 'hello', chatId: 4242})
    await emu.waitForBotMessage(token, {chatId: 4242, timeoutMs: 10_000})
    const replay = await control(['replay', String(hello.update_id), '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(JSON.parse(replay.stdout)).toMatchObject({
      updateId: hello.update_id,
      source: 'replay',
      replayOf: hello.update_id,
      answer: {status: 200},
    })
    await waitFor(
      () => emu.sentMessages(token, {chatId: 4242}).filter((c) => c.params.text === 'echo: hello').length === 2,
      {what: 'the second answer at the emulator'},
    )
    expect(world.recordedLines().filter((l) => l.startsWith(`${hello.update_id} `))).toHaveLength(2)

    // A trigger: a synthetic update with a new update_id, answered by the bot.
    const trigger = await control(['trigger', 'message', 'from trigger', '--chat', '4242', '--user', '4242', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    const triggered = JSON.parse(trigger.stdout) as Event
    expect(triggered).toMatchObject({source: 'trigger', type: 'message', chatId: 4242, answer: {status: 200}})
    expect(triggered.updateId).toBeGreaterThan(hello.update_id)
    await waitFor(() => emu.sentMessages(token, {chatId: 4242}).some((c) => c.params.text === 'echo: from trigger'), {
      what: 'the triggered answer at the emulator',
    })
    await waitEvent(
      dev,
      'the trigger line',
      (e) => e.type === 'update' && e.source === 'trigger' && /\(bot trigger\)$/.test(e.text),
    )

    // The history log: 0600, the entries with their calls, no token, no webhook secret.
    const file = join(world.stateDir, `history-${world.botId}.jsonl`)
    await waitFor(
      () => {
        try {
          return readFileSync(file, 'utf8').includes('from trigger')
        } catch {
          return false
        }
      },
      {what: 'the history log'},
    )
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const log = readFileSync(file, 'utf8')
    expect(log).toContain('chat not found')
    const secret = emu.webhook(token)!.secretToken!
    const hookPath = new URL(emu.webhook(token)!.url).pathname
    expect(log).not.toContain(token.split(':')[1])
    expect(log).not.toContain(secret)
    expect(log).not.toContain(hookPath)

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    assertNoToken(result, token)
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(hookPath)
    }
    // The control record is gone with the session.
    const after = await control(['trigger', 'message', 'late'])
    expect(after.code).toBe(1)
  }, 90_000)

  it('prints the failing call under its update in the terminal log, and the inspector URL (on --inspect-port) at start-up', async () => {
    const {emu, token} = world
    const port = await freePort()
    const dev = startInspected(['--inspect-port', String(port)])
    await dev.waitForOutput(/Ready: /)
    expect(dev.stderr()).toMatch(new RegExp(`✓ Inspector: http://127\\.0\\.0\\.1:${port}/\\?key=[0-9a-f]{32}\n`))
    const bad = emu.sendUserMessage(token, {text: '/missing', chatId: 77})
    await dev.waitForOutput(/↳ sendMessage 400 Bad Request: chat not found/)
    const lines = dev.stdout().split('\n')
    const at = lines.findIndex((l) => l.includes(`#${bad.update_id} message chat 77 "/missing" → 200`))
    expect(at).toBeGreaterThanOrEqual(0)
    expect(lines[at + 1]).toMatch(/^ {2}↳ sendMessage 400 Bad Request: chat not found — /)
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  })

  it('records a call the bot makes in its webhook answer (the api proxy never sees it)', async () => {
    const {emu, token} = world
    const dev = startDev(world, {args: ['--no-watch', '--json'], timeoutMs: 90_000}) // echo-bot: replies to /start in the webhook answer
    const ready = await waitEvent(dev, 'ready', (e) => e.type === 'ready')
    const start = emu.sendUserMessage(token, {text: '/start', chatId: 808})
    await emu.waitForBotMessage(token, {chatId: 808, timeoutMs: 10_000})
    await waitFor(
      async () => (await apiUpdates(ready.inspectorUrl)).some((e) => e.updateId === start.update_id && e.answer),
      {what: 'the answered entry'},
    )
    const entry = (await apiUpdates(ready.inspectorUrl)).find((e) => e.updateId === start.update_id)!
    expect(entry.calls).toEqual([
      expect.objectContaining({
        method: 'sendMessage',
        ok: true,
        webhookReply: true,
        chatId: 808,
        params: {chat_id: 808, text: 'Hello from the fixture bot'},
      }),
    ])
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  })

  it('--no-api-proxy gives the bot the real api root; --no-inspect serves no page but trigger still works', async () => {
    const {emu, token} = world
    const dev = startInspected(['--json', '--no-api-proxy', '--no-inspect'])
    const ready = await waitEvent(dev, 'ready', (e) => e.type === 'ready')
    expect(ready.inspectorUrl).toBeUndefined()
    expect(readFileSync(join(world.dir, 'env.txt'), 'utf8').trim()).toBe(emu.apiRoot)
    const trigger = await control(['trigger', 'message', 'no proxy', '--chat', '31', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    await waitFor(() => emu.sentMessages(token, {chatId: 31}).some((c) => c.params.text === 'echo: no proxy'), {
      what: 'the answer at the emulator',
    })
    // Without the proxy the calls are not seen.
    expect(JSON.parse(trigger.stdout).calls).toEqual([])
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  })

  it('bot replay finds an update of the previous session in the history log; the bridge (--tunnel none) takes triggers too', async () => {
    const {emu, token} = world
    const first = startInspected(['--json'])
    await waitEvent(first, 'ready', (e) => e.type === 'ready')
    const old = emu.sendUserMessage(token, {text: 'from before', chatId: 61})
    await waitEvent(first, 'the update', (e) => e.type === 'update' && e.updateId === old.update_id)
    // The bot's answer is on its way back through the tunnel when the line is printed: stopping before the emulator
    // has it leaves the update pending (the webhook is deleted first at teardown), and the next session gets it again.
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the emulator acknowledging the update'})
    first.kill('SIGINT')
    expect((await first.exited).code).toBe(0)

    const second = startInspected(['--json', '--tunnel', 'none'])
    const ready = await waitEvent(second, 'ready', (e) => e.type === 'ready' && e.delivery === 'bridge')
    expect(await apiUpdates(ready.inspectorUrl)).toEqual([])
    const replay = await control(['replay', String(old.update_id), '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(JSON.parse(replay.stdout)).toMatchObject({
      source: 'replay',
      replayOf: old.update_id,
      preview: 'from before',
      answer: {status: 200},
    })
    await waitFor(
      () => emu.sentMessages(token, {chatId: 61}).filter((c) => c.params.text === 'echo: from before').length === 2,
      {what: 'the replayed answer at the emulator'},
    )
    const trigger = await control(['trigger', 'message', 'over the bridge', '--chat', '61', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    await waitFor(() => emu.sentMessages(token, {chatId: 61}).some((c) => c.params.text === 'echo: over the bridge'), {
      what: 'the triggered answer at the emulator',
    })
    second.kill('SIGINT')
    expect((await second.exited).code).toBe(0)
  }, 90_000)

  it('a busy --inspect-port exits 2 before anything is set', async () => {
    const {emu, token} = world
    const net = await import('node:net')
    const blocker = net.createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const port = (blocker.address() as {port: number}).port
    try {
      expect(await probePort(port)).toBe('EADDRINUSE')
      const result = await startInspected(['--inspect-port', String(port)]).exited
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`--inspect-port ${port} is already in use`)
      const free = String(await freePort())
      const same = await startInspected(['--inspect-port', free, '--port', free]).exited
      expect(same.code).toBe(2)
      expect(same.stderr).toContain(`--inspect-port and --port are both ${free}`)
      const contradiction = await startInspected(['--inspect-port', free, '--no-inspect']).exited
      expect(contradiction.code).toBe(2)
      expect(emu.calls(token)).toEqual([])
    } finally {
      blocker.close()
    }
  })
})

describe('bot dev with the inspector (long polling)', () => {
  it('lists the updates the bot polled (terminal line, --json, the JSON API); a trigger is refused with 409 and the fix', async () => {
    const {emu, token} = world
    const dev = startInspected(['--json', '--mode', 'polling'])
    const ready = await waitEvent(dev, 'ready', (e) => e.type === 'ready')
    const update = emu.sendUserMessage(token, {text: 'polled', chatId: 55})
    const line = await waitEvent(
      dev,
      'the polled update',
      (e) => e.type === 'update' && e.updateId === update.update_id,
    )
    expect(line).toMatchObject({source: 'polling', chatId: 55, preview: 'polled'})
    expect(line.text).toMatch(new RegExp(`← #${update.update_id} message chat 55 "polled" \\(long polling\\)$`))
    await waitFor(
      async () =>
        (await apiUpdates(ready.inspectorUrl)).some(
          (e) => e.updateId === update.update_id && e.calls.some((c: Event) => c.method === 'sendMessage' && c.ok),
        ),
      {what: 'the entry with its call'},
    )
    const entry = (await apiUpdates(ready.inspectorUrl)).find((e) => e.updateId === update.update_id)!
    expect(entry).toMatchObject({source: 'polling', answer: null})
    // A failing call in polling mode: attached to its update (the newest of that chat), after its line.
    const bad = emu.sendUserMessage(token, {text: '/missing', chatId: 55})
    const failed = await waitEvent(dev, 'the failing call', (e) => e.type === 'api-call')
    expect(failed).toMatchObject({method: 'sendMessage', errorCode: 400, updateId: bad.update_id})
    const all = events(dev)
    expect(all.findIndex((e) => e.type === 'update' && e.updateId === bad.update_id)).toBeLessThan(
      all.findIndex((e) => e.type === 'api-call'),
    )

    const trigger = await control(['trigger', 'message', 'nope'])
    expect(trigger.code).toBe(1)
    expect(trigger.stderr).toMatch(/long polling against Telegram/)
    expect(trigger.stderr).toMatch(/--offline/)
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    assertNoToken(result, token)
  })
})
