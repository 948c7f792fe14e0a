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

/**
 * Ended by the Ctrl-C: exit 130 (a ^C byte read as input would leave the command running to its own end, exit 1),
 * before the terminal's hang bound (runOnTerminal's 60 s). Each test adds what shows the exit came from the
 * interrupt and not from the end of a wait the command was in: no stopwatch.
 */
function expectInterruptedExit(r: Interrupted): void {
  expect(r.timedOut, r.output).toBe(false)
  expect(r.interrupted, r.output).toBe(true)
  expect(r.exitCode, r.output).toBe(130)
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
      expectInterruptedExit(r)
      expect(r.output).toMatch(/Interrupted\./)
      // At once: before the report, and before any check's deadline ended its wait (each check's line is printed as
      // it ends: the reachability check's "no answer … within 10 s", getMe's "did not answer in time", a limit's
      // "did not finish"). Only checks that wait on no server (the configuration's) may have reported.
      expect(r.output).not.toMatch(/Problems found/)
      expect(r.output).not.toMatch(/no answer|did not answer|did not finish|Bot API reachable|Token accepted/)
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
    expectInterruptedExit(r)
    // Through the session's own teardown (its summary line), with no cleanup cut off by the teardown's budget and
    // the token step ended by the stop, not failed.
    expect(r.output).toMatch(/bot dev ended after .*exit code 130\./)
    expect(r.output).not.toMatch(/timed out after|Checking the token: failed/)
    // The early getMe (src/commands/dev.ts) goes unanswered until its own 30 s timeout: the session must not wait
    // for it. It ends within a second unloaded; this bound is for a hang or that wait only, whatever the load.
    expect(r.secondsAfterInterrupt!).toBeLessThan(20)
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
    // The package manager never ends (sleep 120): waiting for it would outlast the terminal's 60 s (timedOut).
    expectInterruptedExit(r)
    expect(r.output).toMatch(
      /Install interrupted\. The files are in place; install later with: cd my-bot && npm install/,
    )
    expect(existsSync(join(cwd, 'my-bot', 'package.json'))).toBe(true)
  }, 90_000)
})
