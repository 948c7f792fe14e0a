/**
 * Run the built CLI (`node bin/run.js …`) as a real child process, the way a user runs it.
 *
 *   const r = await runCli(['webhook', 'info'], {env: {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot}})
 *   r.code, r.stdout, r.stderr
 *
 *   const p = startCli(['dev', '--', 'node', 'bot.js'], {env})   // long-running commands
 *   await p.waitForOutput(/listening/)                            // bounded by a deadline
 *   p.kill('SIGINT'); const r = await p.exited
 *
 * Needs a build (`npm run build`): it runs dist/ through bin/run.js.
 *
 * Environment: the child gets this process's environment WITHOUT the variables the CLI reads
 * (BOT_*, WEBHOOK_*, PORT, HTTP(S)_PROXY…), so a developer's shell or .env cannot leak into a
 * test, plus NO_COLOR=1, plus `env`. Pass `inheritBotEnv: true` to keep them.
 * Working directory: a fresh empty temporary directory unless `cwd` is given, so no stray
 * `.env` is picked up.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BIN} from './paths.js'

export {BIN, PROJECT_ROOT} from './paths.js'

export interface CliOptions {
  /** Extra environment variables (undefined values remove a variable). */
  env?: Record<string, string | undefined>
  /** Working directory; default: a fresh empty temp directory. */
  cwd?: string
  /** Written to the child's stdin, which is then closed. Without it stdin is empty (closed at once). */
  input?: string
  /**
   * Kill the child (SIGKILL) after this many ms; the result then has timedOut: true. Default PROCESS_LIFETIME_MS: it
   * bounds a hung child only, and a command takes several seconds on a loaded 2-core machine (a `bot dev` at load 20
   * took over 30 s to print Ready). A shorter one is for a test of how soon the command ends by itself.
   */
  timeoutMs?: number
  /** Keep BOT_* and related variables of the test process. Default false. */
  inheritBotEnv?: boolean
  /** Extra node flags before bin/run.js, e.g. ['--inspect']. */
  nodeArgs?: string[]
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** Wall time in ms. */
  ms: number
}

// NODE_CHANNEL_*: vitest runs tests in forked workers; a child that inherits them thinks it has an IPC channel.
// NODE_ENV=test (set by vitest) makes oclif look for TypeScript sources and load tsx.
const SCRUBBED =
  /^(BOT_|WEBHOOK_|TELEGRAM_|NODE_CHANNEL_|VITEST|NODE_ENV$|NODE_OPTIONS$|PORT$|HTTPS?_PROXY$|ALL_PROXY$|NO_PROXY$|FORCE_COLOR$)/i

let defaultCwd: string | undefined
function emptyDir(): string {
  defaultCwd ??= mkdtempSync(join(tmpdir(), 'bot-cli-test-'))
  return defaultCwd
}

export function cliEnv(options: Pick<CliOptions, 'env' | 'inheritBotEnv'> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (options.inheritBotEnv || !SCRUBBED.test(k)) env[k] = v
  env.NO_COLOR = '1'
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export interface RunningCli {
  readonly child: ChildProcess
  /** Everything written so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /**
   * Resolves once stdout or stderr (combined) matches, or rejects after timeoutMs: a bound on a failure only, never
   * shorter than PROCESS_WAIT_MS whatever the test asks (at load 20 on 2 cores a `bot dev` took over 20 s to print
   * Ready). A test that means "soon" says it with an event or with a deadline given to the CLI, not with this one.
   */
  waitForOutput(
    pattern: RegExp | string,
    options?: {timeoutMs?: number; stream?: 'stdout' | 'stderr' | 'both'},
  ): Promise<string>
  /** Settles when the process exits (never rejects). */
  readonly exited: Promise<CliResult>
  kill(signal?: NodeJS.Signals): void
}

/**
 * The shortest wait for a child process's output (see waitForOutput). A child's pace is the machine's: CI may run the
 * suite at load 8, and these tests are proven beside two busy loops at load 20.
 */
export const PROCESS_WAIT_MS = 60_000

/** How long a CLI process may live before a test kills it as hung, unless the test asks otherwise (CliOptions.timeoutMs). */
export const PROCESS_LIFETIME_MS = 90_000

/** Start the CLI and return at once; see RunningCli. */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const started = performance.now()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    cwd: options.cwd ?? emptyDir(),
    env: cliEnv(options),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let timedOut = false
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const l of [...listeners]) l()
  }
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d
    notify()
  })
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
    notify()
  })
  child.stdin!.on('error', () => {}) // the child may exit before reading its stdin
  if (options.input !== undefined) child.stdin!.end(options.input)
  else child.stdin!.end()

  const killTimer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, options.timeoutMs ?? PROCESS_LIFETIME_MS)

  const exited = new Promise<CliResult>((resolveExit) => {
    child.on('close', (code, signal) => {
      clearTimeout(killTimer)
      notify()
      resolveExit({code, signal, stdout, stderr, timedOut, ms: Math.round(performance.now() - started)})
    })
    child.on('error', (error) => {
      clearTimeout(killTimer)
      resolveExit({
        code: null,
        signal: null,
        stdout,
        stderr: stderr + String(error),
        timedOut,
        ms: Math.round(performance.now() - started),
      })
    })
  })
  let done = false
  void exited.then(() => {
    done = true
  })

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal)
    },
    waitForOutput(pattern, {timeoutMs: asked = PROCESS_WAIT_MS, stream = 'both'} = {}) {
      const timeoutMs = Math.max(asked, PROCESS_WAIT_MS)
      const text = () => (stream === 'stdout' ? stdout : stream === 'stderr' ? stderr : stdout + '\n' + stderr)
      const matches = () => (typeof pattern === 'string' ? text().includes(pattern) : pattern.test(text()))
      return new Promise<string>((resolveWait, rejectWait) => {
        const check = () => {
          if (matches()) {
            cleanup()
            resolveWait(text())
          } else if (done) {
            cleanup()
            rejectWait(
              new Error(`CLI exited before printing ${String(pattern)}.\nstdout: ${stdout}\nstderr: ${stderr}`),
            )
          }
        }
        const timer = setTimeout(() => {
          cleanup()
          rejectWait(new Error(`No ${String(pattern)} within ${timeoutMs}ms.\nstdout: ${stdout}\nstderr: ${stderr}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        void exited.then(check)
        check()
      })
    },
  }
}

/** Run the CLI to completion: {code, stdout, stderr, …}. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).exited
}

/** The JSON lines of a `--json` run's output (its events), parsed, in order. */
export function jsonEvents(stdout: string): Record<string, any>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>)
}

/** Parse stdout as JSON, with the output in the error when it is not JSON. */
export function parseJsonOutput<T = unknown>(result: Pick<CliResult, 'stdout' | 'stderr'>): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON.\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
  }
}

/** util-linux `script` is there: the CLI can be run on a real pseudo-terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0

export interface TerminalOptions extends Pick<CliOptions, 'env' | 'cwd' | 'timeoutMs'> {
  /** Typed in order, each once its prompt has appeared in the output ('\r' is appended). */
  answers?: Array<{prompt: RegExp; input: string}>
}

/**
 * Run the CLI on a pseudo-terminal (via util-linux `script`), so stdin/stdout/stderr are TTYs:
 * prompts, colours and spinners behave as for a person. stdout and stderr arrive merged in
 * `output`, with the terminal's \r\n line ends. Check `hasScript` first.
 */
export async function runCliOnTerminal(
  args: string[],
  options: TerminalOptions = {},
): Promise<{code: number | null; output: string}> {
  const command = [process.execPath, BIN, ...args].map((a) => JSON.stringify(a)).join(' ')
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd ?? emptyDir(),
    env: cliEnv({env: {TERM: 'xterm', ...options.env}}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const answers = [...(options.answers ?? [])]
  let output = ''
  let from = 0
  const onData = (d: Buffer) => {
    output += d.toString('utf8')
    while (answers.length > 0 && answers[0].prompt.test(output.slice(from))) {
      from = output.length
      child.stdin!.write(answers.shift()!.input + '\r')
    }
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  child.stdin!.on('error', () => {})
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
  const code = await new Promise<number | null>((resolveExit) => child.on('close', (c) => resolveExit(c)))
  clearTimeout(timer)
  return {code, output}
}
