/**
 * `bot dev` with cloudflared (the default when it is on PATH), through the loopback stand-in
 * test/support/fake-cloudflared.mjs (the tunnels work): setWebhook only once the quick tunnel's URL
 * answers; cloudflared killed → a new URL is proved and registered, nothing lost; the same bot.
 * Skipped in a build without the cloudflared provider and its stand-in.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {PROJECT_ROOT} from '../support/paths.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'
import {PROCESS_WAIT_MS} from '../support/cli.js'

const FAKE = resolve(PROJECT_ROOT, 'test', 'support', 'fake-cloudflared.mjs')
const available = existsSync(FAKE) && existsSync(resolve(PROJECT_ROOT, 'src', 'tunnel', 'cloudflared.ts'))

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** A folder with `cloudflared` → the stand-in, to put first on PATH. */
function fakeOnPath(): string {
  const bin = join(world.dir, 'bin')
  mkdirSync(bin, {recursive: true})
  chmodSync(FAKE, 0o755)
  symlinkSync(FAKE, join(bin, 'cloudflared'))
  return `${bin}:${process.env.PATH}`
}

describe.skipIf(!available)('bot dev with cloudflared', () => {
  it('auto picks cloudflared; the webhook is set only after the quick tunnel URL answers', async () => {
    const {emu, token} = world
    let setBeforeReachable = false
    const argvFile = join(world.dir, 'cf-argv.json')
    const dev = startDev(world, {
      tunnel: false,
      args: ['--no-watch'],
      env: {PATH: fakeOnPath(), FAKE_CLOUDFLARED_DELAY_MS: '1500', FAKE_CLOUDFLARED_ARGV_FILE: argvFile},
    })
    // Until the stand-in forwards (1.5 s after it printed its URL) no webhook may be set.
    await waitFor(() => existsSync(argvFile), {what: 'cloudflared started', timeout: PROCESS_WAIT_MS})
    const started = Date.now()
    const timer = setInterval(() => {
      if (emu.webhook(token) && Date.now() - started < 1200) setBeforeReachable = true
    }, 5)
    await dev.waitForOutput(/Ready: updates reach the bot through http:\/\/127\.0\.0\.1:\d+/, {timeoutMs: 20_000})
    clearInterval(timer)
    expect(setBeforeReachable).toBe(false)
    expect(dev.stderr()).toMatch(/Opening a tunnel \(cloudflared\)|Tunnel http/)
    const update = emu.sendUserMessage(token, {text: 'via cloudflared'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update through cloudflared'})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('cloudflared killed → a new URL is registered, nothing lost, the same bot process', async () => {
    const {emu, token} = world
    const argvFile = join(world.dir, 'cf-argv.json')
    const dev = startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--tunnel', 'cloudflared', '--tunnel-backoff', '100'],
      env: {PATH: fakeOnPath(), FAKE_CLOUDFLARED_DELAY_MS: '200', FAKE_CLOUDFLARED_ARGV_FILE: argvFile},
      timeoutMs: 90_000,
    })
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    const before = emu.webhook(token)!.url
    const botPid = /\(pid (\d+), webhook mode/.exec(dev.stderr())?.[1]
    const first = emu.sendUserMessage(token, {text: 'first'})
    await waitFor(() => world.recorded().includes(first.update_id), {what: 'the first update'})
    const cfPid = (JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}).pid
    process.kill(cfPid, 'SIGKILL')
    const during = emu.sendUserMessage(token, {text: 'while the tunnel is down'})
    await dev.waitForOutput(/Tunnel back at/, {timeoutMs: 20_000})
    expect(emu.webhook(token)!.url).not.toBe(before)
    await waitFor(() => world.recorded().includes(during.update_id), {
      what: 'the update sent while down',
      timeout: 20_000,
    })
    expect(new Set(world.recordedLines().map((l) => l.split(' ')[3]))).toEqual(new Set([botPid]))
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
  })
})
