/**
 * Other pollers and token holders, as real processes: a poller that retries on 409, one that
 * stops on 409 like grammY, and an idle process holding the token. `bot doctor` runs as a real
 * process against the emulator (timeScale 1: the real 3-second hold between two 409s).
 */
import {mkdtempSync, realpathSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {startCli} from '../support/cli.js'
import {doctorWorld, expectNoToken, report, startFixture, type DoctorWorld, type Fixture} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DoctorWorld
const fixtures: Fixture[] = []

beforeAll(async () => {
  world = await doctorWorld()
})
afterEach(() => {
  for (const f of fixtures.splice(0)) f.kill()
})
afterAll(async () => {
  await world.close()
})

async function poller(name: string, token: string, args: string[] = []): Promise<Fixture> {
  const f = await startFixture(name, {BOT_TOKEN: token, BOT_API_ROOT: world.emu.apiRoot}, args)
  fixtures.push(f)
  // Its getUpdates is the waiting long poll now.
  await waitFor(() => world.emu.isLongPolling(token), {
    what: () => `${[name, ...args].join(' ')} to wait in getUpdates`,
  })
  return f
}

describe('bot doctor --only poller-probe', () => {
  it("finds the poller without claiming where it runs: this machine's processes were not looked at", async () => {
    const bot = world.emu.createBot({username: 'only_probe_bot'})
    await poller('poller.mjs', bot.token, ['retry'])
    const result = await world.doctor(['--json', '--only', 'poller-probe', '--probe-seconds', '3'], {
      BOT_TOKEN: bot.token,
    })
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).not.toMatch(/No other process on this machine/)
    expect(probe.detail).toMatch(/processes were not looked at \(the local-pollers check did not run\)/)
    expect(probe.fix).not.toMatch(/revoke/i)
    expect(probe.fix).toMatch(/--only local-pollers,poller-probe/)
  })
})

describe('bot doctor finds a second poller', () => {
  it('one that retries on 409: the probe gets a 409 itself and names the local process', async () => {
    const bot = world.emu.createBot({username: 'retry_poller_bot'})
    const other = await poller('poller.mjs', bot.token, ['retry'])
    const result = await world.doctor(['--json', '--probe-seconds', '3'], {BOT_TOKEN: bot.token})
    expect(result.code).toBe(1)
    const r = report(result)
    const probe = r.byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toMatch(/terminated by other getUpdates request|held our next 409 back/)
    expect(probe.detail).toContain(`pid ${other.pid}`)
    expect(probe.detail).toMatch(/interrupts the other poller's pending getUpdates/)
    expect(probe.fix).toContain(`kill ${other.pid}`)
    // local-pollers lists it too: the token is in its environment.
    expect(r.byId['local-pollers'].status).toBe('warn')
    expect(r.byId['local-pollers'].detail).toContain(`pid ${other.pid}`)
    expect(r.byId['local-pollers'].detail).toContain('token in BOT_TOKEN')
    // It saw our polls as conflicts and kept going.
    expect(other.output()).toMatch(/409 conflict #1: Conflict: terminated by other getUpdates request; polling again/)
    expect(other.child.exitCode).toBeNull()
    expectNoToken(result, bot.token)
  })

  it('one that stops on 409 (like grammY): caught by the held-back 409, and it has stopped', async () => {
    const bot = world.emu.createBot({username: 'stop_poller_bot'})
    const other = await poller('poller.mjs', bot.token, ['stop'])
    const result = await world.doctor(['--json', '--probe-seconds', '3'], {BOT_TOKEN: bot.token})
    expect(result.code).toBe(1)
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toMatch(/was waiting in getUpdates with this token: the probe's first poll displaced it/)
    expect(probe.detail).toMatch(/grammY and Telegraf stop polling on 409/)
    // Listed before the probe started, so it is named although it is gone now.
    expect(probe.detail).toContain(`pid ${other.pid}`)
    expect(probe.detail).toContain(`pid ${other.pid} exited during the probe: a poller that stops on 409`)
    expect(probe.fix).toMatch(/stopped on the probe's 409/)
    // The probe's first poll displaced it: it got the 409 and stopped, as the output warns.
    expect(await other.exited).toBe(3)
    expect(other.output()).toContain('stopped on 409: Conflict: terminated by other getUpdates request')
    expectNoToken(result, bot.token)
  })

  it("a real grammY bot polling with bot.start(): caught, and it stops on the probe's 409 as the output warns", async () => {
    const bot = world.emu.createBot({username: 'grammy_poller_bot'})
    const grammy = await poller('grammy-poller.mjs', bot.token)
    const result = await world.doctor(['--json', '--probe-seconds', '3'], {BOT_TOKEN: bot.token})
    expect(result.code).toBe(1)
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toContain(`pid ${grammy.pid}`)
    expect(await grammy.exited).toBe(3)
    expect(grammy.output()).toContain('stopped on 409: Conflict: terminated by other getUpdates request')
    expectNoToken(result, bot.token)
  })

  it("a real Telegraf bot polling with bot.launch(): caught, and it stops on the probe's 409 too", async () => {
    const bot = world.emu.createBot({username: 'telegraf_poller_bot'})
    const telegraf = await poller('telegraf-poller.mjs', bot.token)
    const result = await world.doctor(['--json', '--probe-seconds', '3'], {BOT_TOKEN: bot.token})
    expect(result.code).toBe(1)
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toContain(`pid ${telegraf.pid}`)
    expect(await telegraf.exited).toBe(3)
    expect(telegraf.output()).toContain('stopped on 409: Conflict: terminated by other getUpdates request')
    expectNoToken(result, bot.token)
  })

  it('a poller that starts while the probe waits (a restart by a process manager): its poll displaces ours, a direct 409', async () => {
    const bot = world.emu.createBot({username: 'late_poller_bot'})
    const doctor = startCli(['doctor', '--json', '--probe-seconds', '5'], {
      env: {BOT_TOKEN: bot.token, BOT_API_ROOT: world.emu.apiRoot, BOT_STATE_DIR: world.stateDir},
    })
    // The probe's own poll is the waiting one (no other poller exists yet)…
    let exited = false
    void doctor.exited.then(() => (exited = true))
    await waitFor(() => world.emu.isLongPolling(bot.token) || exited, {
      what: 'the probe to wait in getUpdates',
      timeout: 15_000,
    })
    if (exited) throw new Error(`bot doctor exited before probing:\n${doctor.stdout()}${doctor.stderr()}`)
    // …then a poller starts and polls: being the newer poll, it wins; the probe gets the 409.
    const late = await startFixture('poller.mjs', {BOT_TOKEN: bot.token, BOT_API_ROOT: world.emu.apiRoot}, ['stop'])
    fixtures.push(late)
    const result = await doctor.exited
    expect(result.code).toBe(1)
    const probe = report(result).byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toMatch(
      /was answered 409 "Conflict: terminated by other getUpdates request"|held our next 409 back/,
    )
    // The probe stops at the first evidence, so the newcomer keeps its poll.
    expect(late.child.exitCode).toBeNull()
    expectNoToken(result, bot.token)
  })

  it('a poller elsewhere (no local process holds the token) is reported as running elsewhere', async () => {
    const bot = world.emu.createBot({username: 'remote_poller_bot'})
    // In-process here, so no other process has the token: it looks like a server somewhere else.
    const controller = new AbortController()
    const loop = (async () => {
      while (!controller.signal.aborted) {
        await fetch(`${world.emu.apiRoot}/bot${bot.token}/getUpdates`, {
          method: 'POST',
          headers: {'content-type': 'application/json'},
          body: JSON.stringify({timeout: 30}),
          signal: controller.signal,
        })
          .then((r) => r.arrayBuffer())
          .catch(() => undefined)
      }
    })()
    try {
      await waitFor(() => world.emu.isLongPolling(bot.token), {what: 'the in-process poller to wait'})
      const result = await world.doctor(['--json', '--probe-seconds', '3'], {BOT_TOKEN: bot.token})
      expect(result.code).toBe(1)
      const probe = report(result).byId['poller-probe']
      expect(probe.status).toBe('fail')
      expect(probe.detail).toContain('elsewhere: a server, a container, another machine')
      expect(probe.fix).toMatch(/docker ps/)
      expect(probe.fix).toMatch(/revoke the token/)
      expectNoToken(result, bot.token)
    } finally {
      controller.abort()
      await loop
    }
  })

  it("idle processes holding the token (environment, command line, working directory's .env) are listed with the token hidden, as not polling (no kill); no poller → exit 0", async () => {
    const bot = world.emu.createBot({username: 'holder_bot'})
    const inEnv = await startFixture('token-holder.mjs', {BOT_TOKEN: bot.token})
    fixtures.push(inEnv)
    const inArgs = await startFixture('token-holder.mjs', {}, ['--token', bot.token])
    fixtures.push(inArgs)
    // A bot that loads .env itself (dotenv): the token is only in the .env of its working directory.
    const project = mkdtempSync(join(tmpdir(), 'bot-doctor-project-'))
    writeFileSync(join(project, '.env'), `BOT_TOKEN=${bot.token}\n`)
    const viaDotenv = await startFixture('token-holder.mjs', {}, [], project)
    fixtures.push(viaDotenv)
    const result = await world.doctor(['--probe-seconds', '3'], {BOT_TOKEN: bot.token})
    expect(result.code).toBe(0)
    // None of them has a network connection: listed for what they are, nothing to kill.
    expect(result.stdout).toMatch(/^✓ Other local processes with this token$/m)
    expect(result.stdout).toMatch(
      /3 other processes (of yours|on this machine) hold this token; none is connected to the Bot API/,
    )
    expect(result.stdout).toContain(`pid ${viaDotenv.pid}, `)
    expect(result.stdout).toContain(`(token in ${join(realpathSync(project), '.env')} (its working directory))`)
    expect(result.stdout).toMatch(
      new RegExp(
        `pid ${inEnv.pid}, started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ: \\S*node \\S*token-holder\\.mjs \\(token in BOT_TOKEN\\)`,
      ),
    )
    expect(result.stdout).toMatch(
      new RegExp(`pid ${inArgs.pid}, .*token-holder\\.mjs --token <token> \\(token in command line\\)`),
    )
    for (const f of [inEnv, inArgs, viaDotenv])
      expect(result.stdout).toMatch(new RegExp(`pid ${f.pid}, .*: no network connection, so it does not poll`))
    expect(result.stdout).not.toMatch(/\bkill\b/)
    expect(result.stdout).toMatch(/^✓ Concurrent pollers \(409 probe\)$/m)
    expectNoToken(result, bot.token)
  })
})
