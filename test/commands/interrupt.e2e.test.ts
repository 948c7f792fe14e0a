/**
 * Ctrl-C works while a start-up spinner runs in a real terminal. ora's stdin discarder
 * put the terminal in raw mode, so the ^C byte never became SIGINT and `bot doctor` / `bot dev`
 * could not be interrupted during their slow steps. Each command runs on a real pseudo-terminal
 * (python3's pty module, with a width so the spinner runs); ^C is typed once the spinner shows.
 */
import {chmodSync, existsSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {cliEnv} from '../support/cli.js'
import {silentServer} from '../support/loopback-servers.js'
import {hasPty, runOnTerminal, type PtyResult} from '../support/pty.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
/** Prompt means well within a second; this leaves room for a loaded machine. */
const PROMPT_S = 5

/** A terminal session Ctrl-C was typed into (once the pattern showed). */
interface Interrupted extends PtyResult {
  interrupted: boolean
  secondsAfterInterrupt: number | null
}

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

async function onTerminal(
  args: string[],
  options: {pattern: string; env?: Record<string, string | undefined>; cwd?: string; timeoutS?: number},
): Promise<Interrupted> {
  const env = cliEnv({env: {TERM: 'xterm', CI: undefined, NO_COLOR: '1', ...options.env}})
  const r = await runOnTerminal(args, {
    env,
    steps: [{pattern: options.pattern, send: '\u0003'}],
    cwd: options.cwd,
    timeoutS: options.timeoutS,
  })
  return {...r, interrupted: r.steps === 1, secondsAfterInterrupt: r.secondsAfterLastStep}
}

function expectPromptExit(r: Interrupted): void {
  expect(r.timedOut, r.output).toBe(false)
  expect(r.interrupted, r.output).toBe(true)
  expect(r.exitCode, r.output).toBe(130)
  expect(r.secondsAfterInterrupt!).toBeLessThan(PROMPT_S)
  expect(r.output, 'the spinner ran').toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
}

describe.skipIf(!hasPty)('Ctrl-C during a spinner on a real terminal', () => {
  it('bot doctor (the probe on, and --no-probe) against an api root that never answers: exits 130 at once', async () => {
    const server = await silentServer()
    closers.push(() => server.close())
    const env = {BOT_TOKEN: TOKEN, BOT_API_ROOT: server.url}
    // The spinner's first frame is drawn with "Checking…"; the api root holds every check there.
    const [probe, noProbe] = await Promise.all([
      onTerminal(['doctor'], {pattern: 'Checking', env}),
      onTerminal(['doctor', '--no-probe'], {pattern: 'Checking', env}),
    ])
    for (const r of [probe, noProbe]) {
      expectPromptExit(r)
      expect(r.output).toMatch(/Interrupted\./)
      expect(r.output).not.toMatch(/Problems found/) // stopped before the report, not after the checks gave up
      expect(r.output).not.toContain(TOKEN.split(':')[1])
    }
  }, 90_000)

  it('bot dev while "Checking the token" spins: exits 130 at once', async () => {
    const server = await silentServer()
    closers.push(() => server.close())
    const r = await onTerminal(['dev', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)'], {
      pattern: 'Checking the token',
      env: {BOT_TOKEN: TOKEN, BOT_API_ROOT: server.url, BOT_STATE_DIR: mkdtempSync(join(tmpdir(), 'bot-pty-state-'))},
    })
    expectPromptExit(r)
    expect(r.output).not.toContain(TOKEN.split(':')[1])
  }, 90_000)

  it("bot init's install spinner: Ctrl-C stops the package manager and exits 130, the files kept", async () => {
    // A package manager that never finishes: `npm` on PATH that sleeps.
    const bin = mkdtempSync(join(tmpdir(), 'bot-pty-bin-'))
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\nexec sleep 120\n')
    chmodSync(join(bin, 'npm'), 0o755)
    const cwd = mkdtempSync(join(tmpdir(), 'bot-pty-init-'))
    const r = await onTerminal(['init', 'my-bot', '--pm', 'npm', '--no-git', '--yes'], {
      pattern: 'Installing dependencies',
      cwd,
      env: {PATH: `${bin}:${process.env.PATH}`},
    })
    expectPromptExit(r)
    expect(r.output).toMatch(
      /Install interrupted\. The files are in place; install later with: cd my-bot && npm install/,
    )
    expect(existsSync(join(cwd, 'my-bot', 'package.json'))).toBe(true)
  }, 90_000)
})
