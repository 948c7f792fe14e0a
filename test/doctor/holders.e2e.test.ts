/**
 * The local-process check says what each process holding the token is, and suggests `kill` only
 * for one connected to the Bot API: never for `bot emulator` (this CLI), a shell that carries
 * BOT_TOKEN, or a process with no connection (a `sleep` that inherited it). "could not be read"
 * always comes with its reason. Real child processes, the real check (`bot doctor` as a process).
 */
import {spawn} from 'node:child_process'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {BIN, cliEnv, startCli, type CliResult, type RunningCli} from '../support/cli.js'
import {inProcessPoller} from '../support/poller.js'
import {doctorWorld, expectNoToken, report, startFixture, type DoctorWorld, type Fixture} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DoctorWorld
const stops: Array<() => Promise<void> | void> = []
beforeAll(async () => {
  world = await doctorWorld()
})
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s()
})
afterAll(async () => {
  await world.close()
})

/** A plain child with `env` added; resolves once it runs. */
async function child(command: string, args: string[], env: Record<string, string>) {
  const c = spawn(command, args, {env: {...process.env, ...env}, stdio: 'ignore'})
  const exited = new Promise((r) => c.once('exit', r))
  stops.push(async () => {
    c.kill('SIGKILL')
    await exited
  })
  await new Promise<void>((resolve, reject) => {
    c.once('spawn', resolve)
    c.once('error', reject)
  })
  return c.pid!
}

/** `bot emulator` as a real process, with BOT_TOKEN in its environment (inherited, as from a shell). */
async function emulatorProcess(token: string): Promise<RunningCli> {
  const emu = startCli(['emulator', '--port', '0'], {env: {BOT_TOKEN: token}, timeoutMs: 120_000})
  stops.push(async () => {
    emu.kill('SIGKILL')
    await emu.exited
  })
  await emu.waitForOutput('Bot API emulator on', {timeoutMs: 30_000})
  return emu
}

function lineOf(detail: string, pid: number): string {
  const line = detail.split('\n').find((l) => l.includes(`pid ${pid},`))
  expect(line, `no line for pid ${pid} in:\n${detail}`).toBeDefined()
  return line!
}

const killed = (text: string | null) =>
  [...(text ?? '').matchAll(/\bkill ([\d ]+)/g)].flatMap((m) => m[1].trim().split(' ').map(Number))

describe('the local-process check', () => {
  it('suggests kill only for the process connected to the Bot API; bot emulator, a shell and a sleep are said for what they are', async () => {
    const bot = world.emu.createBot({username: 'holders_bot'})
    const env = {BOT_TOKEN: bot.token}
    const sleeper = await child('sleep', ['300'], env)
    const shell = await child('bash', ['-c', 'sleep 300; :'], env)
    const emulator = await emulatorProcess(bot.token)
    // A real poller of this bot (it retries on 409, so it is still there after the probe).
    const poller: Fixture = await startFixture('poller.mjs', {BOT_TOKEN: bot.token, BOT_API_ROOT: world.emu.apiRoot}, [
      'retry',
    ])
    stops.push(() => poller.kill())

    const result = await world.doctor(['--json', '--probe-seconds', '3'], env)
    const r = report(result)
    const local = r.byId['local-pollers']
    expect(local.status).toBe('warn')
    expect(lineOf(local.detail, poller.pid)).toMatch(
      /poller\.mjs retry \(token in BOT_TOKEN\): connected to the Bot API \(127\.0\.0\.1:\d+\): it uses the token$/,
    )
    expect(lineOf(local.detail, emulator.child.pid!)).toMatch(
      /run\.js emulator --port 0 \(token in BOT_TOKEN\): `bot emulator`, the local Bot API emulator: it serves this token, it does not poll$/,
    )
    expect(lineOf(local.detail, shell)).toMatch(
      /: a shell, terminal or editor \(bash\) with the token in its environment; it does not poll$/,
    )
    expect(lineOf(local.detail, sleeper)).toMatch(
      /sleep 300 \(token in BOT_TOKEN\): no network connection, so it does not poll/,
    )
    expect(killed(local.fix)).toEqual([poller.pid])

    // The probe finds the poller: its fix kills that one only, and names only it.
    const probe = r.byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(killed(probe.fix)).toEqual([poller.pid])
    for (const pid of [sleeper, shell, emulator.child.pid!]) expect(probe.detail).not.toContain(`pid ${pid},`)
    expectNoToken(result, bot.token)
  }, 90_000)

  it('without a poller: nothing to kill, status ok', async () => {
    const bot = world.emu.createBot({username: 'holders_idle_bot'})
    const env = {BOT_TOKEN: bot.token}
    const sleeper = await child('sleep', ['300'], env)
    const emulator = await emulatorProcess(bot.token)
    const result = await world.doctor(['--only', 'local-pollers'], env)
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^✓ Other local processes with this token$/m)
    expect(result.stdout).toMatch(
      /2 other processes (of yours|on this machine) hold this token; none is connected to the Bot API:/,
    )
    expect(result.stdout).toContain(`pid ${sleeper}, `)
    expect(result.stdout).toContain(`pid ${emulator.child.pid}, `)
    expect(result.stdout).not.toMatch(/\bkill\b/)
  })

  it('a poller elsewhere while `bot emulator` and a sleep hold the token locally: the probe says it runs elsewhere, kills nothing', async () => {
    const bot = world.emu.createBot({username: 'holders_elsewhere_bot'})
    const env = {BOT_TOKEN: bot.token}
    const sleeper = await child('sleep', ['300'], env)
    const emulator = await emulatorProcess(bot.token)
    // The poller runs in this test process, the doctor's parent, which the scan leaves out (and it has
    // no token in its environment anyway): to the doctor it runs elsewhere.
    const poller = inProcessPoller(world.emu.apiRoot, bot.token)
    stops.push(() => poller.stop())
    await waitFor(() => world.emu.isLongPolling(bot.token), {what: 'the in-process poller to wait'})
    const result = await world.doctor(['--json', '--probe-seconds', '3'], env)
    const r = report(result)
    expect(r.byId['local-pollers'].detail).toContain(`pid ${sleeper},`)
    expect(r.byId['local-pollers'].detail).toContain(`pid ${emulator.child.pid},`)
    const probe = r.byId['poller-probe']
    expect(probe.status).toBe('fail')
    expect(probe.detail).toContain(
      'No other process on this machine that holds the token is connected to the Bot API, so it runs elsewhere',
    )
    expect(probe.detail).not.toContain(`pid ${emulator.child.pid},`)
    expect(killed(probe.fix)).toEqual([])
    expect(probe.fix).toMatch(/revoke the token/)
  })

  // Another user's processes need another user: run the doctor as nobody, which root can do.
  it.skipIf(process.getuid?.() !== 0)(
    '"could not be read" comes with its reason: another user\'s processes, run as nobody',
    async () => {
      const bot = world.emu.createBot({username: 'holders_other_user_bot'})
      // Root's processes, seen from nobody: one with the token in its command line (readable by all), one in its environment.
      const inArgs = await startFixture('token-holder.mjs', {}, ['--token', bot.token])
      stops.push(() => inArgs.kill())
      const inEnv = await startFixture('token-holder.mjs', {BOT_TOKEN: bot.token})
      stops.push(() => inEnv.kill())

      const doctor = spawn(process.execPath, [BIN, 'doctor', '--only', 'local-pollers', '--json'], {
        cwd: tmpdir(),
        uid: 65534,
        gid: 65534,
        env: cliEnv({
          env: {
            BOT_TOKEN: bot.token,
            BOT_API_ROOT: world.emu.apiRoot,
            HOME: tmpdir(),
            BOT_STATE_DIR: join(tmpdir(), 'bot-nobody-state'),
          },
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      doctor.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      doctor.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      const code = await new Promise<number | null>((r) => doctor.on('close', r))
      const result = {code, stdout, stderr} as CliResult
      expect(code, stderr).toBe(0)
      const local = report(result).byId['local-pollers']
      expect(local.detail).toMatch(
        /\d+ process(es)? could not be read \(owned by another user; run as that user or root\): pid \d+ \(/,
      )
      // Every "could not be read" says why.
      for (const m of local.detail.matchAll(/could not be read(.{0,2})/g)) expect(m[1]).toBe(' (')
      // The one with the token in its command line is found, and said to be unreadable with the reason.
      expect(lineOf(local.detail, inArgs.pid)).toMatch(
        /token-holder\.mjs --token <token> \(token in command line\): cannot tell whether it polls \(owned by another user; run as that user or root\)$/,
      )
      expect(killed(local.fix)).toEqual([])
      expectNoToken(result, bot.token)
    },
  )
})
