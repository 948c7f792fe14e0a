/**
 * The live session under odd conditions, as real processes
 * against the emulator: a foreign listener on PORT, a webhook changed behind the session's back,
 * a closed stdout, an orphan that ignores SIGTERM, a --force session killed with SIGKILL, an API
 * that is gone at exit, a --public-url that does not reach the relay, a poller already running.
 */
import {spawn} from 'node:child_process'
import {statSync} from 'node:fs'
import http from 'node:http'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {isPidAlive as alive} from '../../src/session-store/processes.js'
import {readState, writeState} from '../../src/session-store/state.js'
import {BIN, cliEnv, PROJECT_ROOT} from '../support/cli.js'
import {assertNoToken, devWorld, fixture, startDev, type DevWorld} from './helpers.js'
import {freePort} from '../../src/lib/free-port.js'
import type {DeliveryEvent} from '../../src/emulator/index.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

async function callApi(method: string, params: object): Promise<{ok: boolean}> {
  const res = await fetch(`${world.emu.apiRoot}/bot${world.token}/${method}`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(params),
  })
  return (await res.json()) as {ok: boolean}
}

describe('bot dev hardening', () => {
  it('an orphan that ignores SIGTERM gets SIGKILL after the grace period, and the report says so', async () => {
    const first = startDev(world, {bot: 'stubborn-bot.mjs'})
    await first.waitForOutput(/Ready/)
    const orphan = readState(world.botId, world.stateDir)!.bot!.pid
    first.kill('SIGKILL')
    await first.exited
    expect(alive(orphan)).toBe(true)

    const second = startDev(world, {args: ['--no-watch', '--stop-grace', '500']})
    await second.waitForOutput(/Ready/, {timeoutMs: 15_000})
    expect(second.stderr()).toMatch(
      new RegExp(
        `Killed the bot process \\(pid ${orphan}\\) left running by that session: it ignored SIGTERM for 0\\.5s, so it got SIGKILL\\.`,
      ),
    )
    expect(second.stderr()).not.toMatch(/Stopped the bot process/)
    expect(alive(orphan)).toBe(false)
    second.kill('SIGINT')
    expect((await second.exited).code).toBe(0)
  })

  it('a --force session killed with SIGKILL is repaired with its restore secret, kept 0600 beside the state', async () => {
    const {emu, token} = world
    await callApi('setWebhook', {url: 'http://127.0.0.1:9/prod', max_connections: 7, secret_token: 'prod_secret_9'})
    const forced = startDev(world, {args: ['--no-watch', '--force', '--restore-secret', 'prod_secret_9']})
    await forced.waitForOutput(/Ready/)
    const file = join(world.stateDir, `restore-secret-${world.botId}`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    forced.kill('SIGKILL')
    const killed = await forced.exited
    expect(killed.stdout + killed.stderr).not.toContain('prod_secret_9')

    // No --restore-secret this time: the kept one is used.
    const next = await startDev(world).exited
    expect(next.stdout + next.stderr).toMatch(
      /Repaired: .*restored the webhook it had replaced \(http:\/\/127\.0\.0\.1:9\/prod\)/,
    )
    expect(emu.webhook(token)).toMatchObject({
      url: 'http://127.0.0.1:9/prod',
      maxConnections: 7,
      secretToken: 'prod_secret_9',
    })
    expect(next.stdout + next.stderr).not.toContain('prod_secret_9')
    expect(() => statSync(file)).toThrow()
  })

  it('without the kept secret, the repair refuses to restore half a webhook and says exactly what to run', async () => {
    const {emu, token} = world
    // What a --force session killed with SIGKILL leaves, minus its restore-secret file.
    const ours = 'http://127.0.0.1:9/webhook/left-by-dead-session'
    await callApi('setWebhook', {url: ours, secret_token: 'dev_secret'})
    writeState(
      {
        version: 1,
        botId: world.botId,
        pid: 999_999,
        startedAt: new Date().toISOString(),
        cwd: world.dir,
        mode: 'webhook',
        apiRoot: emu.apiRoot,
        webhook: {url: ours},
        replaced: {url: 'http://127.0.0.1:9/prod', withSecret: true},
      },
      world.stateDir,
    )
    const result = await startDev(world).exited
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/the secret_token to restore it with is gone/)
    expect(result.stderr).toContain('bot dev --restore-secret <production secret>')
    expect(result.stderr).toContain('bot webhook set <its URL> --secret-token <production secret>')
    expect(emu.webhook(token)?.url).toBe(ours) // nothing restored half-way
    expect(readState(world.botId, world.stateDir)?.replaced?.url).toBe('http://127.0.0.1:9/prod') // kept for the next try
  })

  it('a webhook that cannot be deleted at exit gives exit code 1 and says what to run later', async () => {
    const dev = startDev(world, {args: ['--no-watch', '--stop-grace', '500']})
    await dev.waitForOutput(/Ready/)
    await world.emu.stop() // the Bot API is gone
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/✗ Could not delete the webhook/)
    expect(result.stderr).toMatch(/Later, run `bot webhook delete`/)
    expect(readState(world.botId, world.stateDir)?.webhook).toBeDefined() // kept for the repair
  })

  it('a --public-url that does not reach the relay fails with the fix, and no webhook is set', async () => {
    const {emu, token} = world
    const nobody = await freePort()
    let everSet = false
    const watch = setInterval(() => {
      if (emu.webhook(token)) everSet = true
    }, 5)
    const result = await startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--public-url', `http://127.0.0.1:${nobody}`],
    }).exited
    clearInterval(watch)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(`The public URL http://127\\.0\\.0\\.1:${nobody} does not reach the relay`),
    )
    expect(result.stderr).toMatch(/--relay-port/)
    expect(result.stderr).not.toMatch(/Ready/)
    expect(everSet).toBe(false)
    expect(emu.webhook(token)).toBeUndefined()
  })

  it('a webhook deleted behind the session is put back; one replaced by someone else is left alone on exit', async () => {
    const {emu, token} = world
    const dev = startDev(world, {args: ['--no-watch', '--webhook-check', '200']})
    await dev.waitForOutput(/Ready/)
    const ours = emu.webhook(token)!.url
    await callApi('deleteWebhook', {})
    await dev.waitForOutput(/The webhook of this session was deleted by something else/)
    await waitFor(() => emu.webhook(token)?.url === ours, {what: 'our webhook set again'})
    const update = emu.sendUserMessage(token, {text: 'after the repair'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'an update through the restored webhook'})

    await callApi('setWebhook', {url: 'http://127.0.0.1:9/theirs'})
    await dev.waitForOutput(/The webhook was replaced by someone else with http:\/\/127\.0\.0\.1:9\/theirs/)
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)?.url).toBe('http://127.0.0.1:9/theirs')
    expect(result.stderr).toMatch(/set by someone else during this session is left as it is/)
  })

  it('a new last_error_message is shown with its explanation', async () => {
    const dev = startDev(world, {bot: 'error-bot.mjs', args: ['--no-watch', '--webhook-check', '200']})
    await dev.waitForOutput(/Ready/)
    world.emu.sendUserMessage(world.token, {text: 'x'})
    const out = await dev.waitForOutput(/Telegram could not deliver to the webhook: "[^"]*500[^"]*"/, {
      timeoutMs: 15_000,
    })
    expect(out).toBeTruthy()
    dev.kill('SIGINT')
    await dev.exited
  })

  it('a listener on PORT that is not the bot never gets an update', async () => {
    const {emu, token} = world
    const port = await freePort()
    // A "bot" that never listens; the foreign server takes its port after bot dev checked it.
    const dev = startDev(world, {
      bot: ['node', '-e', 'setInterval(() => {}, 1000)'],
      // The update is held 1 s for a bot that never comes, then answered 503: the end of its delivery is the event
      // after which a wrong forward would have happened.
      args: ['--no-watch', '--port', String(port), '--hold-timeout', '1'],
    })
    await dev.waitForOutput(/webhook mode, PORT=/)
    const deliveries: DeliveryEvent[] = []
    emu.on('delivery', (e: DeliveryEvent) => deliveries.push(e))
    const hits: string[] = []
    const foreign = http.createServer((req, res) => {
      hits.push(req.url ?? '')
      res.end('ok')
    })
    await new Promise<void>((r) => foreign.listen(port, '127.0.0.1', r))
    try {
      await dev.waitForOutput(new RegExp(`Port ${port} is answered by another program \\(pid ${process.pid}`), {
        timeoutMs: 15_000,
      })
      const update = emu.sendUserMessage(token, {text: 'must not leak'})
      const delivery = await waitFor(() => deliveries.find((e) => e.updateId === update.update_id), {
        what: "the update's delivery to end",
      })
      expect(delivery.ok).toBe(false)
      expect(hits).toEqual([])
      expect(dev.stderr()).not.toMatch(/Bot listening/)
    } finally {
      foreign.close()
    }
    dev.kill('SIGINT')
    await dev.exited
  })

  it('a closed stdout/stderr (| head) runs the teardown: webhook deleted, bot stopped', async () => {
    const {emu, token} = world
    const child = spawn(
      process.execPath,
      [
        BIN,
        'dev',
        '--api-root',
        emu.apiRoot,
        '--tunnel-host',
        world.lt.url,
        // (as startDev does: the loopback tunnel's deadline must not make a loaded machine fall back to the bridge)
        '--tunnel-timeout',
        '60000',
        '--no-watch',
        '--',
        'node',
        fixture('echo-bot.mjs'),
      ],
      {
        cwd: world.dir,
        env: cliEnv({env: {BOT_TOKEN: token, BOT_STATE_DIR: world.stateDir, FIXTURE_RECORD: world.record}}),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
    let err = ''
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
    await waitFor(() => /Ready/.test(err), {what: 'Ready', timeout: 45_000})
    const botPid = Number(/\(pid (\d+), webhook mode/.exec(err)?.[1])
    // `| head` is done: both pipes close; the next line bot dev writes meets EPIPE.
    child.stdout!.destroy()
    child.stderr!.destroy()
    emu.sendUserMessage(token, {text: 'into a closed pipe'})
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))])
    expect(code).not.toBe('hung')
    expect(emu.webhook(token)).toBeUndefined()
    await waitFor(() => !alive(botPid), {what: 'the bot stopped'})
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
  })
})
