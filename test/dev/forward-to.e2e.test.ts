/**
 * `bot dev --forward-to URL` runs no bot: the user runs their own server (here the
 * fixture bot, started by the test as a user would start theirs) and bot dev does the rest: the
 * tunnel and webhook, the relay with its secret check, holding updates while the server is down, the
 * api proxy and the update log, teardown. The secret is WEBHOOK_SECRET from the environment or .env,
 * else bot dev's own, handed over by file, never printed.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {freePort} from '../../src/lib/free-port.js'
import {OFFLINE_TOKEN} from '../../src/offline/index.js'
import {runCli, startCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {assertNoToken, devWorld, fixture, type DevWorld} from './helpers.js'

let world: DevWorld
const servers: ChildProcess[] = []
beforeEach(async () => {
  // Telegram waits up to 60 s for an answer; scaled by 0.01 that would be 0.6 s, less than a server start here.
  world = await devWorld({webhookReadTimeoutMs: 1_000_000})
})
afterEach(async () => {
  for (const s of servers.splice(0)) s.kill('SIGKILL')
  await world.close()
})

/** "The user's own server": the fixture bot on PORT, its webhook at /hook, checking `secret`. */
function userServer(port: number, secret: string, env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [fixture('echo-bot.mjs')], {
    env: {
      ...process.env,
      BOT_MODE: 'webhook',
      PORT: String(port),
      WEBHOOK_PATH: '/hook',
      WEBHOOK_SECRET: secret,
      BOT_TOKEN: world.token,
      FIXTURE_RECORD: world.record,
      ...env,
    },
    stdio: 'ignore',
  })
  servers.push(child)
  return child
}

const SECRET = 'my-own_Secret-123'

function forwardDev(port: number, env: Record<string, string | undefined>, cwd = world.dir) {
  return startCli(
    [
      'dev',
      '--api-root',
      world.emu.apiRoot,
      '--tunnel-host',
      world.lt.url,
      '--forward-to',
      `http://127.0.0.1:${port}/hook`,
    ],
    {cwd, timeoutMs: 90_000, env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, ...env}},
  )
}

describe('bot dev --forward-to URL (online)', () => {
  it('starts no bot, forwards with the secret of WEBHOOK_SECRET, holds while the server is down, tears down', async () => {
    const {emu, token} = world
    const port = await freePort()
    const early = emu.sendUserMessage(token, {text: 'early'}) // queued before anything runs
    const dev = forwardDev(port, {WEBHOOK_SECRET: SECRET})
    const out = await dev.waitForOutput(/Ready: updates reach your server at http:\/\/127\.0\.0\.1:\d+\/hook through/, {
      timeoutMs: 20_000,
    })
    expect(out).toMatch(/→ Forwarding each update to http:\/\/127\.0\.0\.1:\d+\/hook; no bot is started/)
    expect(out).toMatch(/WEBHOOK_SECRET {3}as in your environment/)
    expect(out).not.toMatch(/▶ /) // no bot process
    const apiRoot = /BOT_API_ROOT=(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]

    // The server starts late: the early update was held for it, then answered through the api proxy.
    let server = userServer(port, SECRET, {BOT_API_ROOT: apiRoot, FIXTURE_REPLY: 'api'})
    await waitFor(() => world.recorded().includes(early.update_id), {what: 'the early update', timeout: 20_000})
    await waitFor(() => emu.sentMessages(token).length === 1, {what: 'the answer through the proxy'})
    // (Answered: killed before its answer, the server would get the update again, as from Telegram.)
    await dev.waitForOutput(new RegExp(`← #${early.update_id} message chat \\d+ "early" → 200`), {timeoutMs: 20_000})

    // Down again (a debugger restart): the next update waits for it.
    server.kill('SIGKILL')
    await new Promise((r) => server.once('exit', r))
    const later = emu.sendUserMessage(token, {text: 'later'})
    server = userServer(port, SECRET, {BOT_API_ROOT: apiRoot, FIXTURE_REPLY: 'api'})
    await waitFor(() => world.recorded().includes(later.update_id), {what: 'the later update', timeout: 20_000})
    await dev.waitForOutput(new RegExp(`← #${later.update_id} message chat \\d+ "later" → 200`), {timeoutMs: 20_000})
    await waitFor(() => emu.sentMessages(token).length === 2, {what: 'the second answer'})
    expect(emu.sentMessages(token).map((c) => c.params.text)).toEqual(['echo: early', 'echo: later'])

    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.code, r.stderr).toBe(0)
    expect(emu.webhook(token)).toBeUndefined()
    // Each update in the log with the server's answer; the proxied sendMessage was recorded (no ↳: it worked).
    expect(r.stdout).toMatch(new RegExp(`← #${early.update_id} message chat \\d+ "early" → 200`))
    expect(r.stdout).toMatch(new RegExp(`← #${later.update_id} message chat \\d+ "later" → 200`))
    expect(r.stdout + r.stderr).not.toContain(SECRET)
    assertNoToken(r, token)
  })

  it('without WEBHOOK_SECRET: names the file with the secret to hand over, never prints it; WEBHOOK_SECRET in .env is used', async () => {
    const port = await freePort()
    const dev = forwardDev(port, {})
    const out = await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    const file = /WEBHOOK_SECRET="\$\(cat (\S+)\)"/.exec(out)?.[1]
    expect(file, out).toBeDefined()
    const secret = readFileSync(file!, 'utf8').trim()
    expect(out).not.toContain(secret)
    userServer(port, secret)
    const update = world.emu.sendUserMessage(world.token, {text: '/start'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update'})
    await waitFor(() => world.emu.sentMessages(world.token).length === 1, {what: 'the webhook reply'})
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)

    // The same with the secret in the project's .env (which the server reads too).
    const project = join(world.dir, 'project')
    mkdirSync(project)
    writeFileSync(join(project, '.env'), `WEBHOOK_SECRET=${SECRET}\n`)
    const again = forwardDev(port, {}, project)
    const out2 = await again.waitForOutput(/Ready/, {timeoutMs: 20_000})
    expect(out2).toMatch(/WEBHOOK_SECRET {3}as in your \.env/)
    again.kill('SIGINT')
    expect((await again.exited).code).toBe(0)
  })

  it('bad input exits 2 before anything is sent', async () => {
    const base = ['dev', '--api-root', world.emu.apiRoot]
    const env = {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir}
    const https = await runCli([...base, '--forward-to', 'https://localhost:3000/hook'], {env})
    expect(https.code).toBe(2)
    expect(https.stderr).toMatch(/must be a plain http:\/\/ URL/)
    const polling = await runCli([...base, '--mode', 'polling', '--forward-to', 'http://localhost:3000/hook'], {env})
    expect(polling.code).toBe(2)
    expect(polling.stderr).toMatch(/needs webhook mode/)
    const command = await runCli([...base, '--forward-to', 'http://localhost:3000/hook', '--', 'node', 'x.js'], {env})
    expect(command.code).toBe(2)
    expect(command.stderr).toMatch(/runs no bot, but a bot command follows `--`/)
    expect(world.emu.calls(world.token)).toEqual([])
  })
})

describe('bot dev --offline --forward-to URL', () => {
  it("the chat's lines reach the user's server, which uses its own BOT_TOKEN and WEBHOOK_SECRET", async () => {
    const port = await freePort()
    // A token of the user's own: offline, the emulator's bot gets it too.
    const myToken = '4242424242:AAmy-own-token-for-offline-use-0123456789'
    userServer(port, SECRET, {BOT_TOKEN: myToken})
    const r = await runCli(['dev', '--offline', '--forward-to', `http://127.0.0.1:${port}/hook`], {
      cwd: world.dir,
      input: 'hello\n',
      timeoutMs: 90_000,
      env: {BOT_STATE_DIR: world.stateDir, WEBHOOK_SECRET: SECRET, BOT_TOKEN: myToken},
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('bot › echo: hello')
    expect(r.stderr).toMatch(/BOT_TOKEN {8}as in your environment \(the emulator's bot has it too\)/)
    expect(r.stderr).toMatch(
      /Offline: the updates of @offline_dev_bot .* go to your server at http:\/\/127\.0\.0\.1:\d+\/hook/,
    )
    expect(r.stdout + r.stderr).not.toContain(SECRET)
    assertNoToken(r, myToken)
    assertNoToken(r, OFFLINE_TOKEN)
  })
})
