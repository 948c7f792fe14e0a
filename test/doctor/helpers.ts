/** Shared set-up for the `bot doctor` tests: an emulator on loopback, a bot, a state dir, fixture processes. */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {expect} from 'vitest'

import type {CheckReport, DoctorReport} from '../../src/doctor/types.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput, PROJECT_ROOT, runCli, type CliResult} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

export const POLLERS = resolve(PROJECT_ROOT, 'test', 'fixtures', 'pollers')

export interface DoctorWorld {
  emu: BotApiEmulator
  token: string
  botId: number
  username: string
  stateDir: string
  /** `bot doctor ARGS` as a real process with this bot's token, the emulator's api root and the state dir. */
  doctor(args?: string[], env?: Record<string, string | undefined>): Promise<CliResult>
  close(): Promise<void>
}

export async function doctorWorld(): Promise<DoctorWorld> {
  // timeScale 1: the probe relies on the real 3-second hold between two 409s.
  const emu = await BotApiEmulator.start()
  const bot = emu.createBot({username: 'doctor_test_bot', firstName: 'Doctor Test'})
  const stateDir = mkdtempSync(join(tmpdir(), 'bot-doctor-state-'))
  const children = new Set<ChildProcess>()
  return {
    emu,
    token: bot.token,
    botId: bot.id,
    username: bot.username,
    stateDir,
    doctor: (args = [], env = {}) =>
      runCli(['doctor', ...args], {
        env: {BOT_TOKEN: bot.token, BOT_API_ROOT: emu.apiRoot, BOT_STATE_DIR: stateDir, ...env},
        timeoutMs: 30_000,
      }),
    async close() {
      for (const c of children) c.kill('SIGKILL')
      await emu.stop().catch(() => {})
    },
  }
}

/** The --json report, with the check results by id. */
export function report(result: CliResult): DoctorReport & {byId: Record<string, CheckReport>} {
  const parsed = parseJsonOutput<DoctorReport>(result)
  return {...parsed, byId: Object.fromEntries(parsed.checks.map((c) => [c.id, c]))}
}

/** The token, and its secret part alone, appear nowhere in what the CLI printed. */
export function expectNoToken(result: Pick<CliResult, 'stdout' | 'stderr'>, token: string): void {
  const secret = token.slice(token.indexOf(':') + 1)
  for (const text of [result.stdout, result.stderr]) {
    expect(text.includes(token)).toBe(false)
    expect(text.includes(secret)).toBe(false)
  }
}

export interface Fixture {
  child: ChildProcess
  pid: number
  output(): string
  /** Resolves with the exit code (or null on a signal). */
  exited: Promise<number | null>
  kill(): void
}

/** Start `node test/fixtures/pollers/<name> ...args` with `env` added, and wait until it prints "ready". */
export async function startFixture(
  name: string,
  env: Record<string, string>,
  args: string[] = [],
  cwd?: string,
): Promise<Fixture> {
  const child = spawn(process.execPath, [join(POLLERS, name), ...args], {
    env: {...process.env, ...env},
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  let gone = false
  void exited.then(() => (gone = true))
  await waitFor(() => out.includes('ready') || gone, {what: `${name} to start`})
  if (gone) throw new Error(`${name} exited at start: ${out}`)
  return {child, pid: child.pid!, output: () => out, exited, kill: () => child.kill('SIGKILL')}
}
