/**
 * The three deliveries from the outside: `--tunnel none` (the bridge: no webhook is ever set), a
 * tunnel that fails at start-up (fallback to the bridge, or an error with --no-fallback), and the
 * flags' validation. Real processes against the emulator and the loopback localtunnel server.
 */
import net from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** Record whether a webhook was ever set for the token while `fn` runs. */
async function watchWebhook<T>(fn: () => Promise<T>): Promise<{value: T; everSet: boolean}> {
  let everSet = false
  const timer = setInterval(() => {
    if (world.emu.webhook(world.token)) everSet = true
  }, 5)
  try {
    const value = await fn()
    return {value, everSet}
  } finally {
    clearInterval(timer)
  }
}

describe('bot dev deliveries', () => {
  it('--tunnel none: the bot runs in webhook mode, updates arrive through the bridge, no webhook is ever set', async () => {
    const {emu, token} = world
    const {value: result, everSet} = await watchWebhook(async () => {
      const dev = startDev(world, {tunnel: false, args: ['--no-watch', '--tunnel', 'none']})
      await dev.waitForOutput(/Ready: updates reach the bot through the polling bridge/)
      expect(dev.stderr()).toMatch(/webhook mode, PORT=/)
      const ids = [1, 2, 3].map((i) => emu.sendUserMessage(token, {text: `b${i}`, chatId: 7}).update_id)
      await waitFor(() => ids.every((id) => world.recorded().includes(id)), {what: 'three updates through the bridge'})
      expect(world.recorded()).toEqual(ids) // in order, once each
      expect(world.recordedLines().every((l) => l.split(' ')[2] === 'webhook')).toBe(true)
      dev.kill('SIGINT')
      return dev.exited
    })
    expect(everSet).toBe(false)
    expect(result.code).toBe(0)
    expect(emu.pendingUpdates(token)).toEqual([])
    assertNoToken(result, token)
  })

  it('BOT_TUNNEL=none works like --tunnel none', async () => {
    const dev = startDev(world, {tunnel: false, env: {BOT_TUNNEL: 'none'}})
    await dev.waitForOutput(/Ready: updates reach the bot through the polling bridge/)
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
  })

  it('a tunnel that fails at start-up falls back to the bridge (no error, the bot untouched)', async () => {
    const {emu, token, lt} = world
    await lt.kill()
    const dev = startDev(world, {args: ['--no-watch', '--tunnel-timeout', '1000']})
    await dev.waitForOutput(/Updates now arrive by polling through `bot dev`/, {timeoutMs: 15_000})
    await dev.waitForOutput(/Ready: updates reach the bot through the polling bridge/)
    const update = emu.sendUserMessage(token, {text: 'hello'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update through the bridge'})
    expect(emu.webhook(token)).toBeUndefined()
    expect((dev.stderr().match(/▶ /g) ?? []).length).toBe(1) // started once
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    assertNoToken(result, token)
  })

  it('--json: the fallback event says mode "bridge"', async () => {
    await world.lt.kill()
    const dev = startDev(world, {args: ['--no-watch', '--json', '--tunnel-timeout', '1000']})
    await dev.waitForOutput(/"type":"ready"/, {timeoutMs: 15_000})
    const events = dev
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; mode?: string; delivery?: string})
    expect(events.find((e) => e.type === 'fallback')).toMatchObject({mode: 'bridge'})
    expect(events.find((e) => e.type === 'ready')).toMatchObject({mode: 'webhook', delivery: 'bridge'})
    dev.kill('SIGINT')
    await dev.exited
  })

  it('setWebhook only after the public URL answers through to the relay', async () => {
    const {emu, token} = world
    const relayPort = await freePort()
    const proxyPort = await freePort()
    const dev = startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--public-url', `http://127.0.0.1:${proxyPort}`, '--relay-port', String(relayPort)],
    })
    await dev.waitForOutput(/Relay on/)
    let setEarly = false
    const watch = setInterval(() => {
      if (emu.webhook(token)) setEarly = true
    }, 5)
    // The "public URL" cuts every connection at first, and forwards to the relay only after the
    // session has tried it a few times (like a fresh quick tunnel).
    let forwarding = false
    let cut = 0
    const proxy = net.createServer((client) => {
      client.on('error', () => {})
      if (!forwarding) {
        cut++
        client.destroy()
        return
      }
      const upstream = net.connect(relayPort, '127.0.0.1')
      client.pipe(upstream).pipe(client)
      client.on('error', () => upstream.destroy())
      upstream.on('error', () => client.destroy())
    })
    await new Promise<void>((r) => proxy.listen(proxyPort, '127.0.0.1', r))
    try {
      await waitFor(() => cut >= 3, {what: 'three attempts of the session on the public URL'})
      clearInterval(watch)
      forwarding = true
      expect(setEarly).toBe(false)
      await dev.waitForOutput(/Ready/)
      expect(emu.webhook(token)?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${proxyPort}/webhook/`))
      dev.kill('SIGINT')
      expect((await dev.exited).code).toBe(0)
    } finally {
      proxy.close()
    }
  })

  it('--public-url with an explicit --tunnel is bad input: exit 2, nothing sent', async () => {
    const before = world.emu.calls(world.token).length
    const result = await startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--public-url', 'https://dev.example.com', '--tunnel', 'none'],
    }).exited
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--public-url and --tunnel none both say how updates arrive/)
    expect(world.emu.calls(world.token).length).toBe(before) // not even getMe
  })
})
