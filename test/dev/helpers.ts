/** Shared set-up for the `bot dev` integration tests: emulator, loopback localtunnel server, a CLI run. */
import {mkdtempSync, readFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

import type {ChildProcess} from 'node:child_process'

import {listStates} from '../../src/session-store/state.js'
import {BotApiEmulator, type EmulatorOptions} from '../../src/emulator/index.js'
import {startCli, PROJECT_ROOT, type RunningCli, type CliResult} from '../support/cli.js'
import {startLocaltunnelServer, type LocaltunnelServer} from '../support/lt-server.js'

export const FIXTURES = resolve(PROJECT_ROOT, 'test', 'fixtures', 'bots')
export const fixture = (name: string) => join(FIXTURES, name)

const worlds = new WeakMap<DevWorld, ChildProcess[]>()

export interface DevWorld {
  emu: BotApiEmulator
  lt: LocaltunnelServer
  token: string
  botId: number
  dir: string
  stateDir: string
  record: string
  /** update_ids the fixture bot recorded (in order). */
  recorded(): number[]
  recordedLines(): string[]
  close(): Promise<void>
}

export async function devWorld(emulator: EmulatorOptions = {}): Promise<DevWorld> {
  // Telegram's waits are scaled (retries, 409 holds), but not the time the bot has to answer a delivery: Telegram's
  // 60 s read timeout scaled to 600 ms is one a loaded machine outlasts, and the update is then sent twice.
  const timeScale = emulator.timeScale ?? 0.01
  const emu = await BotApiEmulator.start({
    timeScale,
    webhookReadTimeoutMs: timeScale > 0 ? 60_000 / timeScale : 60_000,
    ...emulator,
  })
  const lt = await startLocaltunnelServer()
  const bot = emu.createBot({username: 'dev_test_bot'})
  const dir = mkdtempSync(join(tmpdir(), 'bot-dev-test-'))
  const record = join(dir, 'record.txt')
  const running: ChildProcess[] = []
  const lines = () => (existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : [])
  const world: DevWorld = {
    emu,
    lt,
    token: bot.token,
    botId: bot.id,
    dir,
    stateDir: join(dir, 'state'),
    record,
    recordedLines: lines,
    recorded: () => lines().map((l) => Number(l.split(' ')[0])),
    async close() {
      // A CLI killed by a timeout (or by the test) cannot stop its bot, which runs in its own
      // process group: stop what is left, so a failed test leaves no process behind.
      for (const cli of running) if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL')
      running.length = 0
      for (const state of listStates(join(dir, 'state'))) {
        for (const proc of [state.bot, ...(state.others ?? [])]) {
          if (!proc?.pid) continue
          try {
            process.kill(-proc.pid, 'SIGKILL')
          } catch {
            // already gone
          }
        }
      }
      await lt.close().catch(() => {})
      await emu.stop().catch(() => {})
    },
  }
  worlds.set(world, running)
  return world
}

export interface DevRunOptions {
  bot?: string | string[]
  args?: string[]
  env?: Record<string, string | undefined>
  cwd?: string
  timeoutMs?: number
  tunnel?: boolean
  /** Node flags for the CLI process (e.g. ['--import', preload]). */
  nodeArgs?: string[]
}

/** `bot dev --api-root … --tunnel-host … --no-watch [args] -- node <fixture>` as a real process. */
export function startDev(world: DevWorld, options: DevRunOptions = {}): RunningCli {
  const botArgv = Array.isArray(options.bot) ? options.bot : ['node', fixture(options.bot ?? 'echo-bot.mjs')]
  const args = [
    'dev',
    '--api-root',
    world.emu.apiRoot,
    ...(options.tunnel === false ? [] : ['--tunnel-host', world.lt.url]),
    // Opening the loopback tunnel ends when it is open; its deadline (15 s by default) only decides when the session
    // gives up and falls back to the bridge, which a loaded machine must not make it do. Tests of that set their own.
    ...(options.tunnel === false || options.args?.includes('--tunnel-timeout') ? [] : ['--tunnel-timeout', '60000']),
    ...(options.args ?? ['--no-watch']),
    '--',
    ...botArgv,
  ]
  const cli = startCli(args, {
    cwd: options.cwd ?? world.dir,
    timeoutMs: options.timeoutMs ?? 60_000,
    nodeArgs: options.nodeArgs,
    env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir, FIXTURE_RECORD: world.record, ...options.env},
  })
  worlds.get(world)?.push(cli.child)
  return cli
}

/** The token (and its secret part) must appear nowhere in what the CLI printed. */
export function assertNoToken(result: Pick<CliResult, 'stdout' | 'stderr'>, token: string): void {
  const secret = token.split(':')[1]
  for (const [name, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    if (text.includes(token) || text.includes(secret)) throw new Error(`the token appears in ${name}:\n${text}`)
  }
}

export type {RunningCli, CliResult}

/**
 * A Node project of ES modules in `dir` (package.json `"type": "module"`, named `name`), with this
 * repository's node_modules linked in (grammY, tsx) and `files` written (folders made as needed).
 */
export function esmProject(dir: string, name: string, files: Record<string, string>): string {
  mkdirSync(dir, {recursive: true})
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({name, type: 'module'}))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), {recursive: true})
    writeFileSync(join(dir, file), text)
  }
  return dir
}
