/**
 * The tunnel program of a `bot dev` killed with SIGKILL (cloudflared runs in its own process group,
 * so it outlives it): recorded in the session state while it runs, reported by `bot doctor`, stopped
 * by the next `bot dev` (SIGTERM, SIGKILL after the grace period) with a line saying so. A pid
 * reused by another process is left alone. Real processes: `bot dev` with the loopback stand-in
 * test/support/fake-cloudflared.mjs as cloudflared, against the emulator.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {recordTunnelProcess} from '../../src/dev/orphan.js'
import {isPidAlive as alive, stopOrphan} from '../../src/session-store/processes.js'
import {readState, writeState, type SessionState} from '../../src/session-store/state.js'
import {TUNNEL_MARKER_ENV, type Tunnel, type TunnelOpenOptions, type TunnelProvider} from '../../src/tunnel/types.js'
import {PROJECT_ROOT, runCli, type CliResult} from '../support/cli.js'
import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

const FAKE = resolve(PROJECT_ROOT, 'test', 'support', 'fake-cloudflared.mjs')

let world: DevWorld
const leftovers: ChildProcess[] = []
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  for (const c of leftovers.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL')
    } catch {
      c.kill('SIGKILL')
    }
  }
  // A cloudflared a failed test left behind.
  const tunnel = readState(world.botId, world.stateDir)?.tunnel
  if (tunnel) {
    try {
      process.kill(-tunnel.pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  await world.close()
})

/** A folder with `cloudflared` → the stand-in, first on PATH. */
function fakeOnPath(): string {
  const bin = join(world.dir, 'bin')
  if (!existsSync(join(bin, 'cloudflared'))) {
    mkdirSync(bin, {recursive: true})
    chmodSync(FAKE, 0o755)
    symlinkSync(FAKE, join(bin, 'cloudflared'))
  }
  return `${bin}:${process.env.PATH}`
}

function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
}

function doctorSessions(): Promise<CliResult> {
  return runCli(['doctor', '--only', 'token,sessions', '--json'], {
    env: {BOT_TOKEN: world.token, BOT_API_ROOT: world.emu.apiRoot, BOT_STATE_DIR: world.stateDir},
    timeoutMs: 90_000,
  })
}

function sessionsOf(result: CliResult): {status: string; detail: string; fix?: string} {
  const report = JSON.parse(result.stdout) as {
    checks: Array<{id: string; status: string; detail: string; fix?: string}>
  }
  return report.checks.find((c) => c.id === 'sessions')!
}

/** Run `bot dev` with the stand-in until Ready, SIGKILL it; returns the cloudflared it leaves running. */
async function killedSession(env: Record<string, string> = {}): Promise<number> {
  const argvFile = join(world.dir, 'cf-argv.json')
  const first = startDev(world, {
    tunnel: false,
    args: ['--no-watch', '--tunnel', 'cloudflared'],
    env: {PATH: fakeOnPath(), FAKE_CLOUDFLARED_DELAY_MS: '100', FAKE_CLOUDFLARED_ARGV_FILE: argvFile, ...env},
    timeoutMs: 90_000,
  })
  await first.waitForOutput(/Ready/, {timeoutMs: 25_000})
  const cfPid = (JSON.parse(readFileSync(argvFile, 'utf8')) as {pid: number}).pid
  const recorded = readState(world.botId, world.stateDir)?.tunnel
  expect(recorded?.pid).toBe(cfPid)
  expect(environOf(cfPid)).toContain(`${TUNNEL_MARKER_ENV}=${recorded!.marker}`)
  first.kill('SIGKILL')
  await first.exited
  return cfPid
}

describe.skipIf(process.platform !== 'linux')('a cloudflared left running by a `bot dev` killed with SIGKILL', () => {
  it('still runs after the SIGKILL, bot doctor reports it, the next bot dev stops it and says so', async () => {
    const cfPid = await killedSession()
    expect(alive(cfPid)).toBe(true)

    const doctor = await doctorSessions()
    const sessions = sessionsOf(doctor)
    expect(sessions.status).toBe('fail') // its webhook is still set too
    expect(sessions.detail).toContain(`The tunnel program it started (cloudflared, pid ${cfPid}) is still running.`)
    expect(sessions.fix).toContain(`kill -TERM -${cfPid}`)
    expect(alive(cfPid)).toBe(true) // the doctor only reports

    const second = startDev(world, {
      tunnel: false,
      args: ['--no-watch', '--tunnel', 'cloudflared'],
      env: {PATH: fakeOnPath(), FAKE_CLOUDFLARED_DELAY_MS: '100'},
      timeoutMs: 90_000,
    })
    await second.waitForOutput(/Ready/, {timeoutMs: 25_000})
    expect(second.stderr()).toContain(
      `Stopped the tunnel program cloudflared (pid ${cfPid}) left running by that session.`,
    )
    expect(alive(cfPid)).toBe(false)
    // The new session records its own cloudflared.
    const now = readState(world.botId, world.stateDir)?.tunnel
    expect(now?.pid).not.toBe(cfPid)
    expect(alive(now!.pid)).toBe(true)

    const after = sessionsOf(await doctorSessions())
    expect(after.detail).not.toContain('tunnel program')
    second.kill('SIGINT')
    const result = await second.exited
    expect(result.code).toBe(0)
    await waitFor(() => !alive(now!.pid), {what: 'the second cloudflared stopped'})
    expect(readState(world.botId, world.stateDir)).toBeUndefined()
    assertNoToken(result, world.token)
  }, 120_000)

  it('one that ignores SIGTERM gets SIGKILL after the grace period, and the line says so', async () => {
    const cfPid = await killedSession({FAKE_CLOUDFLARED_IGNORE_TERM: '1'})
    expect(alive(cfPid)).toBe(true)
    const second = startDev(world, {args: ['--no-watch', '--tunnel', 'none', '--stop-grace', '500'], timeoutMs: 90_000})
    await second.waitForOutput(/Ready/, {timeoutMs: 25_000})
    expect(second.stderr()).toContain(
      `Killed the tunnel program cloudflared (pid ${cfPid}) left running by that session: it ignored SIGTERM for 0.5s, so it got SIGKILL.`,
    )
    expect(second.stderr()).not.toContain(`Stopped the tunnel program cloudflared`)
    expect(alive(cfPid)).toBe(false)
    second.kill('SIGINT')
    expect((await second.exited).code).toBe(0)
  }, 120_000)

  it('a different process at the recorded pid (pid reuse) is left alone, by bot dev and bot doctor', async () => {
    // The dead session: a pid that no longer runs.
    const gone = spawn(process.execPath, ['-e', '0'], {stdio: 'ignore'})
    await new Promise((r) => gone.once('exit', r))
    // Now at the recorded pid: a program with another marker, in its own process group.
    const impostor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
      env: {...process.env, [TUNNEL_MARKER_ENV]: 'not-that-session'},
    })
    leftovers.push(impostor)
    await new Promise((r) => impostor.once('spawn', r))
    const state: SessionState = {
      version: 1,
      botId: world.botId,
      pid: gone.pid!,
      startedAt: new Date().toISOString(),
      cwd: world.dir,
      mode: 'webhook',
      apiRoot: world.emu.apiRoot,
      tunnel: {pid: impostor.pid!, marker: 'the-dead-sessions-marker'},
    }
    writeState(state, world.stateDir)

    const sessions = sessionsOf(await doctorSessions())
    expect(sessions.status).toBe('ok')
    expect(sessions.detail).not.toContain('tunnel program')

    const dev = startDev(world, {args: ['--no-watch', '--tunnel', 'none', '--stop-grace', '300'], timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    expect(dev.stderr()).not.toMatch(/left running by that session/)
    expect(alive(impostor.pid!)).toBe(true)
    dev.kill('SIGINT')
    expect((await dev.exited).code).toBe(0)
    expect(alive(impostor.pid!)).toBe(true)
    expect(impostor.exitCode).toBeNull()
  }, 90_000)

  it('stopOrphan: only a process whose BOT_DEV_TUNNEL is the recorded marker is stopped', async () => {
    const code = 'setInterval(() => {}, 1000)'
    const start = (env: Record<string, string>) => {
      const c = spawn(process.execPath, ['-e', code], {detached: true, stdio: 'ignore', env: {...process.env, ...env}})
      leftovers.push(c)
      return new Promise<ChildProcess>((r) => c.once('spawn', () => r(c)))
    }
    const marker = 'a1b2c3d4e5f6a7b8'
    const unmarked = await start({})
    const bot = await start({BOT_DEV_SESSION: marker}) // the bot's marker is not the tunnel's
    const ours = await start({[TUNNEL_MARKER_ENV]: marker})
    expect(await stopOrphan({pid: unmarked.pid!, marker}, 200, TUNNEL_MARKER_ENV)).toBe('none')
    expect(await stopOrphan({pid: bot.pid!, marker}, 200, TUNNEL_MARKER_ENV)).toBe('none')
    expect(await stopOrphan({pid: ours.pid!, marker: ''}, 200, TUNNEL_MARKER_ENV)).toBe('none')
    expect(await stopOrphan({pid: ours.pid!, marker}, 2000, TUNNEL_MARKER_ENV)).toBe('stopped')
    expect(alive(unmarked.pid!) && alive(bot.pid!)).toBe(true)
    expect(alive(ours.pid!)).toBe(false)
  })
})

describe('recordTunnelProcess', () => {
  /** A provider whose open() reports the given process events. */
  function reporting(events: Array<{pid: number; running: boolean}>): TunnelProvider {
    return {
      name: 'cloudflared',
      open: async (options: TunnelOpenOptions): Promise<Tunnel> => {
        for (const e of events) options.onProcess?.({...e, marker: `m${e.pid}`})
        return {url: 'http://127.0.0.1:1', provider: 'cloudflared', on: () => {}, close: async () => {}}
      },
    }
  }

  it('records the running program, clears it when it exits, and keeps a newer one when an older exits late', async () => {
    const saved: Array<Partial<SessionState>> = []
    const provider = recordTunnelProcess(
      reporting([
        {pid: 10, running: true},
        {pid: 10, running: false},
        {pid: 11, running: true},
        {pid: 10, running: false},
      ]),
      (p) => saved.push(p),
    )
    expect(provider.name).toBe('cloudflared')
    await provider.open({port: 1, signal: new AbortController().signal})
    expect(saved).toEqual([{tunnel: {pid: 10, marker: 'm10'}}, {tunnel: undefined}, {tunnel: {pid: 11, marker: 'm11'}}])
  })

  it('writes nothing for an exit once the session is stopping (its state file is about to be removed)', async () => {
    const saved: Array<Partial<SessionState>> = []
    const stopping = new AbortController()
    stopping.abort()
    await recordTunnelProcess(
      reporting([
        {pid: 12, running: true},
        {pid: 12, running: false},
      ]),
      (p) => saved.push(p),
    ).open({port: 1, signal: stopping.signal})
    expect(saved).toEqual([{tunnel: {pid: 12, marker: 'm12'}}])
  })
})
