/**
 * A real `bot dev --offline … -- node inspector-bot.mjs` for the inspector's tests, its stdin (the
 * chat) left open until the test ends it, its state in a folder of its own, and what the bot got
 * written to `record`. Started children go into `running`, for the test file's own cleanup.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {fixture} from '../dev/helpers.js'
import {BIN, cliEnv, runCli, type CliResult} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

export type Event = Record<string, any>

export interface OfflineSession {
  child: ChildProcess
  dir: string
  stateDir: string
  /** One line per update the bot got: `<update_id> <type> <text>`. */
  record: string
  stdout: () => string
  stderr: () => string
  /** The --json events printed so far. */
  events: () => Event[]
  exited: Promise<number | null>
  waitEvent(what: string, match: (e: Event) => boolean): Promise<Event>
  /** `bot …` (trigger, replay) run in the session's folder, finding it through its state folder. */
  control(argv: string[]): Promise<CliResult>
  /** The BOT_TOKEN the bot got (random for each offline session), once the bot has started. */
  token(): Promise<string>
}

export interface OfflineSessionOptions {
  prefix?: string
  waitMs?: number
  controlMs?: number
  /** SIGKILL the session after this long, whatever happens (default: never). */
  killAfterMs?: number
  /** The fixture bot (test/fixtures/bots; default inspector-bot.mjs). */
  bot?: string
  /** More environment for the CLI (e.g. BROWSER). */
  env?: Record<string, string | undefined>
}

export function startOfflineSession(
  args: string[],
  running: ChildProcess[],
  o: OfflineSessionOptions = {},
): OfflineSession {
  const dir = mkdtempSync(join(tmpdir(), o.prefix ?? 'bot-inspector-offline-'))
  const stateDir = join(dir, 'state')
  const record = join(dir, 'record.txt')
  const tokenFile = join(dir, 'token.txt')
  const child = spawn(
    process.execPath,
    [BIN, 'dev', '--offline', '--no-watch', ...args, '--', 'node', fixture(o.bot ?? 'inspector-bot.mjs')],
    {
      cwd: dir,
      env: cliEnv({env: {BOT_STATE_DIR: stateDir, FIXTURE_RECORD: record, FIXTURE_TOKEN_RECORD: tokenFile, ...o.env}}),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  running.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdin!.on('error', () => {})
  const killer = o.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), o.killAfterMs)
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer)
      resolve(code)
    }),
  )
  const events = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Event)
  return {
    child,
    dir,
    stateDir,
    record,
    stdout: () => stdout,
    stderr: () => stderr,
    events,
    exited,
    async waitEvent(what, match) {
      let found: Event | undefined
      await waitFor(() => (found = events().find(match)) !== undefined, {
        what: () => `${what}\nstdout: ${stdout}\nstderr: ${stderr}`,
        timeout: o.waitMs ?? 20_000,
      })
      return found!
    },
    async token() {
      await waitFor(() => recordLines(tokenFile).length > 0, {
        what: () => `the bot's token in ${tokenFile}\nstderr: ${stderr}`,
        timeout: o.waitMs ?? 20_000,
      })
      return recordLines(tokenFile)[0]
    },
    control: (argv) => runCli(argv, {cwd: dir, env: {BOT_STATE_DIR: stateDir}, timeoutMs: o.controlMs ?? 45_000}),
  }
}

/** The lines of a record file (none while it does not exist). */
export const recordLines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []
