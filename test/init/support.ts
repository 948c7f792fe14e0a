/**
 * Helpers for the `bot init` tests: generate a project with the real CLI, run a generated bot as a
 * real process, and wait for conditions with a deadline (never a fixed sleep).
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtempSync, realpathSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {runCli, type CliResult} from '../support/cli.js'
import {waitFor} from '../support/wait.js'

export const TEMPLATES = ['grammy', 'gramio', 'telegraf'] as const
export type Template = (typeof TEMPLATES)[number]

export function tempDir(prefix = 'bot-init-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** `bot init <dir> …` as a real process. */
/** `bot init …`; `timeoutMs` bounds a hung run only (an install from the registry needs more than the default). */
export function init(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd?: string,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return runCli(['init', ...args], {env, cwd, timeoutMs})
}

export interface RunningProcess {
  child: ChildProcess
  output: () => string
  /** Resolves once the output matches; `timeoutMs` (default 60000) bounds a failure only: a tsx bot starts slowly under load. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>
}

/** Start a process with piped output; everything it prints is collected. */
export function startProcess(
  command: string,
  args: string[],
  options: {cwd: string; env: NodeJS.ProcessEnv; stdin?: 'pipe'},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d))
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => {
    child.on('close', (code, signal) => resolve({code, signal}))
    child.on('error', () => resolve({code: null, signal: null}))
  })
  let done = false
  void exited.then(() => (done = true))
  return {
    child,
    output: () => output,
    exited,
    async waitForOutput(pattern, timeoutMs = 60_000) {
      await waitFor(
        () => {
          if (pattern.test(output)) return true
          if (done) throw new Error(`process exited before printing ${pattern}:\n${output}`)
          return false
        },
        {what: () => `${pattern} in the output:\n${output}`, timeout: timeoutMs},
      )
    },
  }
}

/** The environment of a child without the developer's bot settings. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env))
    if (!/^(BOT_|WEBHOOK_|PORT$|NODE_OPTIONS$|HTTPS?_PROXY$)/i.test(k)) env[k] = v
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

/** A message update as Telegram would POST it, for forged requests. */
export function fakeUpdate(updateId: number, chatId: number, text: string): string {
  return JSON.stringify({
    update_id: updateId,
    message: {
      message_id: 1,
      date: Math.floor(Date.now() / 1000),
      chat: {id: chatId, type: 'private', first_name: 'Mallory'},
      from: {id: chatId, is_bot: false, first_name: 'Mallory'},
      text,
    },
  })
}
