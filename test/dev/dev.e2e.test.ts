/**
 * `bot dev` as a real process: the emulator on loopback, the real localtunnel client against the
 * loopback localtunnel server, fixture bots that follow the env contract.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {isPidAlive} from '../../src/session-store/processes.js'
import {readState} from '../../src/session-store/state.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'

/** How long a reply may take to come back through the session: a bound on a failure only (the wait ends with it). */
const REPLY_MS = 30_000

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, {method: 'POST', body, headers: {'content-type': 'application/json', ...headers}})
  await res.arrayBuffer()
  return res.status
}

describe('bot dev (webhook mode)', () => {
  it('delivers an update to the bot and its webhook reply to the emulator; Ctrl-C deletes the webhook', async () => {
    const {emu, token} = world
    const dev = startDev(world)
    await dev.waitForOutput(/Ready: updates reach the bot/)
    const hook = emu.webhook(token)
    expect(hook?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/[\w-]{16}$/)
    expect(hook?.secretToken).toMatch(/^[\w-]{20,}$/)

    const update = emu.sendUserMessage(token, {text: '/start', chatId: 4242})
    const reply = await emu.waitForBotMessage(token, {chatId: 4242, timeoutMs: REPLY_MS})
    expect(reply.source).toBe('webhook-reply')
    expect(reply.params.text).toBe('Hello from the fixture bot')
    await dev.waitForOutput(new RegExp(`#${update.update_id} message chat 4242 "/start" → 200`))
    expect(world.recorded()).toEqual([update.update_id])

    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    expect(result.stderr).toMatch(/Webhook deleted \(pending updates kept\)/)
    expect(result.stderr).toMatch(/1 update relayed, 0 failures/)
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('a reply sent with sendMessage to BOT_API_ROOT reaches the emulator', async () => {
    const {emu, token} = world
    const dev = startDev(world, {env: {FIXTURE_REPLY: 'api'}})
    await dev.waitForOutput(/Ready/)
    emu.sendUserMessage(token, {text: 'hi there', chatId: 7})
    const reply = await emu.waitForBotMessage(token, {chatId: 7, timeoutMs: REPLY_MS})
    expect(reply.source).toBe('http')
    expect(reply.params.text).toBe('echo: hi there')
    dev.kill('SIGTERM')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('refuses a request without the right secret and does not forward it', async () => {
    const {emu, token} = world
    const dev = startDev(world)
    await dev.waitForOutput(/Ready/)
    const url = emu.webhook(token)!.url
    const fake = JSON.stringify({
      update_id: 1,
      message: {message_id: 1, date: 0, chat: {id: 1, type: 'private'}, text: 'forged'},
    })
    expect(await postRaw(url, fake)).toBe(401)
    expect(await postRaw(url, fake, {'X-Telegram-Bot-Api-Secret-Token': 'wrong-secret'})).toBe(401)
    expect(
      await postRaw(url.replace(/\/webhook\/.*/, '/webhook/guess'), fake, {
        'X-Telegram-Bot-Api-Secret-Token': emu.webhook(token)!.secretToken!,
      }),
    ).toBe(404)
    await dev.waitForOutput(/refused POST \(webhook path\) → 401 \(wrong or missing secret token; not forwarded\)/)
    // A real update still gets through, and only it was processed.
    const update = emu.sendUserMessage(token, {text: 'real'})
    await waitFor(() => world.recorded().length === 1, {what: 'the real update'})
    expect(world.recorded()).toEqual([update.update_id])
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.stderr).toMatch(/1 update relayed, 0 failures, 3 rejected/)
    assertNoToken(result, token)
  })

  it('keeps the secret_token stable across runs', async () => {
    const {emu, token} = world
    const first = startDev(world)
    await first.waitForOutput(/Ready/)
    const one = emu.webhook(token)!
    first.kill('SIGINT')
    await first.exited
    const second = startDev(world)
    await second.waitForOutput(/Ready/)
    const two = emu.webhook(token)!
    expect(two.secretToken).toBe(one.secretToken)
    expect(two.url).not.toBe(one.url) // the path is random per run
    second.kill('SIGINT')
    await second.exited
  })

  // One test per signal: each runs a session of its own, so each gets the whole test budget on a loaded machine.
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s leaves the webhook deleted and pending updates kept',
    async (signal) => {
      const {emu, token} = world
      // The bot answers 500: the update stays pending at Telegram (it is retried, never acknowledged).
      const dev = startDev(world, {bot: 'error-bot.mjs'})
      await dev.waitForOutput(/Ready/)
      const update = emu.sendUserMessage(token, {text: `pending ${signal}`, chatId: 800})
      await dev.waitForOutput(new RegExp(`#${update.update_id} .* → 500`))
      dev.kill(signal)
      const result = await dev.exited
      expect(result.code).toBe(0)
      expect(emu.webhook(token)).toBeUndefined()
      expect(emu.pendingUpdates(token).map((u) => u.update_id)).toContain(update.update_id)
      expect(result.stdout + result.stderr).toMatch(/failure/)
      assertNoToken(result, token)
    },
  )

  it('a second Ctrl-C exits at once, still with the webhook deleted and the bot killed', async () => {
    const {emu, token} = world
    // The bot ignores SIGTERM through its whole grace (10 minutes), so the first Ctrl-C's teardown would run into its
    // own 10 s bound, and say so ("timed out after"). The window the second Ctrl-C gives the parts to let go (2 s by
    // default) is 10 minutes too: the exit can only come from the parts letting go, and a wait for the grace or the
    // window would outlive the process's 90 s (timedOut). No stopwatch.
    const dev = startDev(world, {
      bot: 'stubborn-bot.mjs',
      args: ['--no-watch', '--stop-grace', '600000', '--abandon-timeout', '600000'],
    })
    await dev.waitForOutput(/Ready/)
    const botPid = readState(world.botId, world.stateDir)!.bot!.pid
    dev.kill('SIGINT')
    await dev.waitForOutput(/stubborn bot: ignoring SIGTERM/)
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(130)
    expect(result.stderr).toMatch(/SIGINT again: exiting now/)
    expect(result.stderr).not.toMatch(/timed out after/)
    expect(emu.webhook(token)).toBeUndefined()
    await waitFor(() => !isPidAlive(botPid), {what: 'the bot to be killed'})
  })

  it('--json prints one JSON event per line and nothing else on stdout', async () => {
    const {emu, token} = world
    const dev = startDev(world, {args: ['--no-watch', '--json']})
    await dev.waitForOutput(/"type":"ready"/, {stream: 'stdout'})
    const update = emu.sendUserMessage(token, {text: '/start'})
    await dev.waitForOutput(/"type":"update"/, {stream: 'stdout'})
    dev.kill('SIGINT')
    const result = await dev.exited
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {type: string; [k: string]: unknown})
    const types = events.map((e) => e.type)
    expect(types).toEqual(expect.arrayContaining(['step', 'bot-start', 'ready', 'update', 'teardown', 'summary']))
    expect(events.find((e) => e.type === 'update')).toMatchObject({
      updateId: update.update_id,
      updateType: 'message',
      status: 200,
    })
    expect(events.at(-1)).toMatchObject({type: 'summary', relayed: 1, failures: 0, exitCode: 0})
    assertNoToken(result, token)
  })

  it('passes a 5xx from the bot back so Telegram retries', async () => {
    const {emu, token} = world
    const statuses: number[] = []
    emu.on('delivery', (d) => {
      if (d.token === token && d.status !== undefined) statuses.push(d.status)
    })
    const dev = startDev(world, {bot: 'error-bot.mjs'})
    await dev.waitForOutput(/Ready/)
    const update = emu.sendUserMessage(token, {text: 'x'})
    await waitFor(() => statuses.filter((s) => s === 500).length >= 2, {what: 'two 500 deliveries (a retry)'})
    expect(world.recorded().filter((id) => id === update.update_id).length).toBeGreaterThanOrEqual(2)
    dev.kill('SIGINT')
    await dev.exited
  })

  it('holds updates while a slow bot starts: no failed delivery', async () => {
    // Telegram waits 60 s for an answer; keep the emulator's read timeout above the bot's start-up.
    await world.close()
    world = await devWorld({webhookReadTimeoutMs: 1_000_000})
    const {emu, token} = world
    const failures: number[] = []
    emu.on('delivery', (d) => {
      if (d.token === token && !d.ok) failures.push(d.updateId)
    })
    // Start-up checks for another poller while the tunnel opens (~1 s): the bot must still be asleep after that.
    const dev = startDev(world, {bot: 'slow-start-bot.mjs', env: {FIXTURE_START_DELAY_MS: '4000'}})
    // The webhook is set while the bot still sleeps; the update waits in the relay.
    await waitFor(() => emu.webhook(token) !== undefined, {what: 'the webhook'})
    const update = emu.sendUserMessage(token, {text: '/start'})
    // (4 s of sleep, then a node start-up: a bound on a failure only)
    await emu.waitForBotMessage(token, {timeoutMs: 30_000})
    expect(world.recorded()).toEqual([update.update_id])
    expect(failures).toEqual([])
    await dev.waitForOutput(/held \d+ ms/)
    dev.kill('SIGINT')
    await dev.exited
  })

  it("exits with the bot's code when the bot exits (no watch), webhook deleted", async () => {
    const {emu, token} = world
    const dev = startDev(world, {bot: 'crash-bot.mjs', env: {FIXTURE_CRASH_AFTER_MS: '300'}})
    const result = await dev.exited
    expect(result.code).toBe(3)
    expect(result.stdout + result.stderr).toMatch(/Error: boom/)
    expect(result.stderr).toMatch(/The bot exited with code 3/)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('--tunnel localtunnel --no-fallback: fails with a clear error when the tunnel server does not answer, and cleans up', async () => {
    const {emu, token, lt} = world
    await lt.kill()
    const result = await startDev(world, {
      args: ['--no-watch', '--tunnel', 'localtunnel', '--no-fallback', '--tunnel-timeout', '1500'],
    }).exited
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/✗ .*tunnel/i)
    expect(result.stderr.split('\n').find((l) => l.startsWith('✗ '))).toBeDefined()
    expect(emu.webhook(token)).toBeUndefined()
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    // Through a tunnel the bot starts once the webhook URL is known (WEBHOOK_URL from its first start):
    // a tunnel that never opened means no bot process was started at all.
    expect(result.stderr).not.toMatch(/\(pid \d+, webhook mode/)
    assertNoToken(result, token)
  })

  it('--public-url: no tunnel, the webhook is the given URL + a random path, forwarded by whatever reaches --relay-port', async () => {
    const {emu, token} = world
    const relayPort = await freePort()
    // Here "the user's reverse proxy" is plain loopback with a path prefix it does not strip.
    const dev = startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--public-url', `http://127.0.0.1:${relayPort}/mybot`, '--relay-port', String(relayPort)],
    })
    await dev.waitForOutput(/Ready/)
    expect(emu.webhook(token)?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${relayPort}/mybot/webhook/[\\w-]+$`))
    emu.sendUserMessage(token, {text: '/start', chatId: 31})
    await emu.waitForBotMessage(token, {chatId: 31, timeoutMs: REPLY_MS})
    expect(world.lt.tunnels).toEqual([]) // nothing was opened
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('says so when the bot command does not exist', async () => {
    const {emu, token} = world
    const result = await startDev(world, {bot: ['no-such-command-for-bot-dev']}).exited
    expect(result.code).toBe(127)
    expect(result.stderr).toContain(
      '✗ Could not start the bot (no-such-command-for-bot-dev): command not found: no-such-command-for-bot-dev.',
    )
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('refuses a second bot dev on the same bot, naming the pid', async () => {
    const {emu, token} = world
    const first = startDev(world)
    await first.waitForOutput(/Ready/)
    const hook = emu.webhook(token)
    const second = await startDev(world).exited
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`Another \`bot dev\` is already running for @dev_test_bot: pid ${first.child.pid}`)
    // The first one is untouched.
    expect(emu.webhook(token)).toEqual(hook)
    expect(readState(world.botId, world.stateDir)?.pid).toBe(first.child.pid)
    first.kill('SIGINT')
    expect((await first.exited).code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(second, token)
  })

  it('after SIGKILL, the next bot dev repairs the webhook left behind and says so', async () => {
    const {emu, token} = world
    const first = startDev(world)
    await first.waitForOutput(/Ready/)
    const left = emu.webhook(token)!
    const orphan = readState(world.botId, world.stateDir)?.bot?.pid
    expect(orphan).toBeGreaterThan(0)
    first.kill('SIGKILL')
    await first.exited
    expect(emu.webhook(token)?.url).toBe(left.url) // nothing cleaned up
    expect(readState(world.botId, world.stateDir)?.webhook?.url).toBe(left.url)

    const second = startDev(world)
    await second.waitForOutput(/Ready/)
    const out = second.stdout() + second.stderr()
    expect(out).toMatch(
      new RegExp(
        `Repaired: the previous \`bot dev\` \\(pid ${first.child.pid}.*deleted its webhook \\(pending updates kept\\)`,
      ),
    )
    expect(out).toMatch(new RegExp(`Stopped the bot process \\(pid ${orphan}\\) left running`))
    expect(emu.webhook(token)?.url).not.toBe(left.url)
    // The repaired session works normally.
    emu.sendUserMessage(token, {text: '/start'})
    await emu.waitForBotMessage(token, {timeoutMs: REPLY_MS})
    second.kill('SIGINT')
    const result = await second.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    await waitFor(() => !isPidAlive(orphan!), {what: 'the orphaned bot to be gone'})
  })

  it('after SIGKILL of a --force session, the next run restores the production webhook it had replaced', async () => {
    const {emu, token} = world
    await fetch(`${emu.apiRoot}/bot${token}/setWebhook`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url: 'http://127.0.0.1:9/prod', max_connections: 5, secret_token: 'prod_s'}),
    })
    const forced = startDev(world, {args: ['--no-watch', '--force']})
    await forced.waitForOutput(/Ready/)
    expect(readState(world.botId, world.stateDir)?.replaced?.url).toBe('http://127.0.0.1:9/prod')
    forced.kill('SIGKILL')
    await forced.exited
    expect(emu.webhook(token)?.url).not.toBe('http://127.0.0.1:9/prod')

    // The repair puts production back; without --force this run then refuses to replace it again.
    const next = await startDev(world, {env: {BOT_RESTORE_SECRET: 'prod_s'}}).exited
    expect(next.stdout + next.stderr).toMatch(
      /Repaired: .*restored the webhook it had replaced \(http:\/\/127\.0\.0\.1:9\/prod\)/,
    )
    expect(next.code).toBe(1)
    expect(next.stderr).toMatch(/did not set is active: http:\/\/127\.0\.0\.1:9\/prod/)
    expect(emu.webhook(token)).toMatchObject({url: 'http://127.0.0.1:9/prod', maxConnections: 5, secretToken: 'prod_s'})
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    assertNoToken(next, token)
  })

  it('refuses a foreign (production) webhook, and with --force restores it on exit', async () => {
    const {emu, token} = world
    const api = (method: string, params: object) =>
      fetch(`${emu.apiRoot}/bot${token}/${method}`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(params),
      }).then((r) => r.json())
    const prod = {
      url: 'http://127.0.0.1:9/prod-hook',
      max_connections: 7,
      allowed_updates: ['message', 'callback_query'],
      secret_token: 'prod_secret_1',
    }
    expect((await api('setWebhook', prod)).ok).toBe(true)

    const refusedJson = await startDev(world, {args: ['--no-watch', '--json']}).exited
    expect(refusedJson.code).toBe(1)
    const last = JSON.parse(refusedJson.stdout.trim().split('\n').at(-1)!)
    expect(last).toMatchObject({ok: false, error: {code: 'foreign_webhook'}})
    expect(last.error.fix).toMatch(/--force/)

    const refused = await startDev(world).exited
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/A webhook that `bot dev` did not set is active: http:\/\/127\.0\.0\.1:9\/prod-hook/)
    expect(refused.stderr).toMatch(/--force/)
    expect(emu.webhook(token)?.url).toBe(prod.url)
    assertNoToken(refused, token)

    const forced = startDev(world, {args: ['--no-watch', '--force', '--restore-secret', 'prod_secret_1']})
    await forced.waitForOutput(/Ready/)
    expect(emu.webhook(token)?.url).not.toBe(prod.url)
    emu.sendUserMessage(token, {text: '/start'})
    await emu.waitForBotMessage(token, {timeoutMs: REPLY_MS})
    forced.kill('SIGINT')
    const result = await forced.exited
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/Restored the previous webhook http:\/\/127\.0\.0\.1:9\/prod-hook with its secret/)
    expect(emu.webhook(token)).toMatchObject({
      url: prod.url,
      maxConnections: 7,
      allowedUpdates: ['message', 'callback_query'],
      secretToken: 'prod_secret_1',
    })
    expect(result.stdout + result.stderr).not.toContain('prod_secret_1')
    assertNoToken(result, token)
  })
})

describe('bot dev --mode polling', () => {
  it('runs the bot on long polling (no webhook) and processes updates', async () => {
    const {emu, token} = world
    const dev = startDev(world, {args: ['--no-watch', '--mode', 'polling'], tunnel: false})
    await dev.waitForOutput(/Ready: the bot runs on long polling/)
    expect(emu.webhook(token)).toBeUndefined()
    const update = emu.sendUserMessage(token, {text: '/start', chatId: 55})
    await emu.waitForBotMessage(token, {chatId: 55, timeoutMs: REPLY_MS})
    expect(world.recordedLines()[0]).toMatch(new RegExp(`^${update.update_id} 55 polling `))
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    assertNoToken(result, token)
  })

  it('deletes a webhook left by a dead session, and refuses a foreign one', async () => {
    const {emu, token} = world
    const first = startDev(world)
    await first.waitForOutput(/Ready/)
    first.kill('SIGKILL')
    await first.exited
    expect(emu.webhook(token)).toBeDefined()
    const polling = startDev(world, {args: ['--no-watch', '--mode', 'polling'], tunnel: false})
    await polling.waitForOutput(/Ready/)
    expect(polling.stdout() + polling.stderr()).toMatch(/Repaired/)
    expect(emu.webhook(token)).toBeUndefined()
    polling.kill('SIGINT')
    await polling.exited

    await fetch(`${emu.apiRoot}/bot${token}/setWebhook?url=${encodeURIComponent('http://127.0.0.1:9/prod')}`)
    const refused = await startDev(world, {args: ['--no-watch', '--mode', 'polling'], tunnel: false}).exited
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/did not set is active/)
    expect(emu.webhook(token)?.url).toBe('http://127.0.0.1:9/prod')
  })
})
