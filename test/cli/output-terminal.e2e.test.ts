/**
 * Output people can scan, as a person sees it: each command runs on a real pseudo-terminal
 * (test/support/pty-run.py), once with colours (NO_COLOR unset) and once with NO_COLOR=1, and
 * through pipes.
 *
 * - One set of glyphs: ✓ ! ✗. ora's own ✔ ✖ ⚠ ℹ never show (its spinners end with our marks).
 * - Colours: errors red, the dev update log dim except failures (red); NO_COLOR on a terminal and
 *   any pipe: not one colour code, and the same text as the coloured run without its codes.
 *
 * Needs `npm run build` and python3.
 */
import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'
import {devWorld, fixture, type DevWorld} from '../dev/helpers.js'
import {cliEnv, runCli} from '../support/cli.js'
import {silentServer} from '../support/loopback-servers.js'
import {hasPty, runOnTerminal, type PtyResult, type PtyStep} from '../support/pty.js'
import {waitFor} from '../support/wait.js'

/** ora's symbols (log-symbols), unicode and fallback: none may appear. */
const ORA_GLYPHS = /[✔✖⚠ℹ√×]/
/** Any colour or style (SGR) sequence. */
const SGR = /\u001B\[[0-9;]*m/
const stripSgr = (s: string) => s.replace(/\u001B\[[0-9;]*m/g, '')
const RED = (text: string) => `\u001B[31m${text}\u001B[39m`

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

/** Run `bot ARGS` on a terminal; `color: false` sets NO_COLOR=1. */
function onTerminal(
  args: string[],
  options: {
    color: boolean
    steps?: PtyStep[]
    env?: Record<string, string | undefined>
    cwd?: string
    timeoutS?: number
  },
): Promise<PtyResult> {
  const env = cliEnv({
    env: {
      TERM: 'xterm',
      CI: undefined,
      COLORTERM: undefined,
      NO_COLOR: options.color ? undefined : '1',
      ...options.env,
    },
  })
  return runOnTerminal(args, {
    env,
    steps: options.steps,
    cwd: options.cwd,
    timeoutS: options.timeoutS,
    cols: 250,
    rows: 50,
  })
}

/** The terminal's lines (\r\n), without what a spinner or readline drew before each line's last redraw. */
function lines(output: string): string[] {
  // Cursor and erase sequences (CSI … other than m): a spinner's redraws, readline's prompt.
  return output.split(/\r?\n/).map(
    (l) =>
      l
        .replace(/\u001B\[1?G/g, '\r')
        .replace(/\u001B\[\??[0-9;]*[A-LN-Za-z]/g, '')
        .split('\r')
        .at(-1)!,
  )
}

function expectOneGlyphSet(r: PtyResult): void {
  expect(r.timedOut, r.output).toBe(false)
  expect(r.output).not.toMatch(ORA_GLYPHS)
}

describe.skipIf(!hasPty)('output on a terminal', () => {
  it('bot dev: spinners end with ✓, the update log is dim, a failed update red; NO_COLOR: plain text, the same words', async () => {
    const runs: Record<string, PtyResult> = {}
    for (const color of [true, false]) {
      // devWorld keeps Telegram's 60 s read timeout, not the scaled 600 ms a loaded machine can outlast: a "Read timeout
      // expired" warning in one run only would tell the two runs apart.
      const world: DevWorld = await devWorld()
      closers.push(() => world.close())
      const {emu, token} = world
      const env = {BOT_TOKEN: token, BOT_API_ROOT: emu.apiRoot, BOT_STATE_DIR: world.stateDir}
      const running = onTerminal(
        ['dev', '--tunnel-host', world.lt.url, '--no-watch', '--', 'node', fixture('picky-bot.mjs')],
        {
          color,
          env,
          cwd: world.dir,
          // Ctrl-C once a failed delivery has been logged.
          steps: [{pattern: '→ 500', send: '\u0003'}],
        },
      )
      let ok: {update_id: number}
      try {
        await waitFor(() => emu.webhook(token) !== undefined, {what: 'the webhook', timeout: 30_000})
        ok = emu.sendUserMessage(token, {text: 'hello', chatId: 7})
        await emu.waitForBotMessage(token, {chatId: 7, timeoutMs: 20_000})
        emu.sendUserMessage(token, {text: 'fail please', chatId: 8})
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${(await running).output}`)
      }
      const r = await running
      expect(r.exitCode, r.output).toBe(0)
      expectOneGlyphSet(r)
      expect(r.output).toContain(`#${ok.update_id} message chat 7`)
      runs[String(color)] = r
    }
    const colored = runs.true.output
    const plain = runs.false.output
    // Colours: a spinner ended by our green ✓; the update log dim; the failed update red.
    expect(colored).toMatch(/\u001B\[32m✓\u001B\[39m Bot @dev_test_bot/)
    expect(colored).toMatch(/\u001B\[2m\d\d:\d\d:\d\d ← #\d+ message chat 7 "hello" → 200 [^\u001B]*\u001B\[22m/)
    expect(colored).toMatch(/\u001B\[31m\d\d:\d\d:\d\d ✗ #\d+ message chat 8 "fail please" → 500 [^\u001B]*\u001B\[39m/)
    // NO_COLOR: not one colour code; the same lines, mark for mark.
    expect(plain).not.toMatch(SGR)
    const shape = (output: string) =>
      lines(stripSgr(output))
        .map((l) =>
          l
            .replace(/^\^C/, '')
            .replace(/^(\d\d:\d\d:\d\d ✗ .*?) \(.*\)$/, '$1')
            .replace(/failures?/, 'failures'),
        )
        .filter((l) => /^(✓|✗|!|●|■|▶|\d\d:\d\d:\d\d [←✗])/.test(l))
        .map((l) =>
          l
            .replace(/, held \d+ ms/, '')
            .replace(/\d+(\.\d+)?/g, 'N')
            .replace(/https?:\/\/\S+/g, 'URL'),
        )
    const plainShape = shape(plain)
    expect(plainShape.some((l) => l.startsWith('✓ Bot @dev_test_bot'))).toBe(true)
    expect(plainShape.some((l) => /^N:N:N ✗ #N message chat N "fail please" → N /.test(l))).toBe(true)
    // Retries of the failing update may differ in number and reason between runs (500, or 499 while
    // the bot stops), start-up lines in order (the bot and the tunnel start together), and where the
    // terminal echoes ^C; the lines themselves are the same.
    const stable = (s: string[]) => [...new Set(s)].sort()
    expect(stable(shape(colored))).toEqual(stable(plainShape))
  }, 150_000)

  it('bot dev --offline: one start-up line, the chat, an unknown :command as a red error; NO_COLOR: no colour codes', async () => {
    const outputs: string[] = []
    for (const color of [true, false]) {
      // The chat gives up on "fail now" after --reply-timeout (5 s by default).
      const args = ['dev', '--offline', '--no-watch', '--reply-timeout', '1', '--', 'node', fixture('picky-bot.mjs')]
      const r = await onTerminal(args, {
        color,
        steps: [
          {pattern: 'you › ', send: 'hello\r'},
          {pattern: 'ok: hello', send: 'fail now\r'},
          {pattern: '→ 500', send: ':foo\r'},
          {pattern: 'Unknown command', send: '\u0004'},
        ],
      })
      expect(r.steps, r.output).toBe(4)
      expect(r.exitCode, r.output).toBe(0)
      expectOneGlyphSet(r)
      const text = stripSgr(r.output)
      const startUp = lines(text).filter((l) => l.startsWith('Offline: '))
      expect(startUp).toHaveLength(1)
      expect(startUp[0]).toMatch(
        /^Offline: `node \S+picky-bot\.mjs` runs as @offline_dev_bot on the built-in emulator \(http:\/\/127\.0\.0\.1:\d+\), webhook over loopback on port \d+\. You are You \(chat 1111\): type a message, :help for commands, Ctrl-D ends\. Chat page: http:\/\/127\.0\.0\.1:\d+\/chat\?key=\w+ Inspector: http:\/\/127\.0\.0\.1:\d+\/\?key=\w+$/,
      )
      expect(text).not.toMatch(/Relay on|Loopback URL|Webhook set|Webhook deleted|Ready:|long polling|Chatting with/)
      expect(text).toMatch(
        /✗ Unknown command :foo\. Commands: :press N \| :press LABEL, :photo PATH, :file PATH, :pay, :save NAME, :help, :quit\./,
      )
      expect(text).toMatch(/■ bot dev --offline ended after [\d.]+s: 2 updates sent, [1-9]\d* failures?; exit code 0\./)
      outputs.push(r.output)
    }
    const [colored, plain] = outputs
    expect(colored).toContain(
      RED(
        '✗ Unknown command :foo. Commands: :press N | :press LABEL, :photo PATH, :file PATH, :pay, :save NAME, :help, :quit. To send a message that starts with ":", begin it with "::".',
      ),
    )
    expect(colored).toMatch(/\u001B\[2m\d\d:\d\d:\d\d ← #\d+ message chat 1111 "hello" → 200/)
    expect(colored).toMatch(/\u001B\[31m\d\d:\d\d:\d\d ✗ #\d+ message chat 1111 "fail now" → 500/)
    expect(plain).not.toMatch(SGR)
  }, 120_000)

  it('bot init: the install spinner ends with ✓ or a red ✗, never ora’s ✔/✖', async () => {
    for (const [exit, expected] of [
      [0, /\u001B\[32m✓\u001B\[39m Installed dependencies with npm/],
      [1, /\u001B\[31m✗\u001B\[39m \u001B\[31mCould not install dependencies/],
    ] as const) {
      const bin = mkdtempSync(join(tmpdir(), 'bot-pty-bin-'))
      writeFileSync(join(bin, 'npm'), `#!/bin/sh\nexit ${exit}\n`)
      chmodSync(join(bin, 'npm'), 0o755)
      const env = {PATH: `${bin}:${process.env.PATH}`}
      const colored = await onTerminal(['init', 'my-bot', '--pm', 'npm', '--no-git', '--yes'], {color: true, env})
      const plain = await onTerminal(['init', 'my-bot', '--pm', 'npm', '--no-git', '--yes'], {color: false, env})
      for (const r of [colored, plain]) expectOneGlyphSet(r)
      expect(colored.output).toMatch(expected)
      expect(plain.output).not.toMatch(SGR)
      expect(plain.output).toContain(
        exit === 0 ? '✓ Installed dependencies with npm' : '✗ Could not install dependencies',
      )
    }
  }, 120_000)

  it('bot doctor, webhook, emulator and a bad-input error: ✓ ! ✗ only; errors red; NO_COLOR the same text without codes', async () => {
    const emu = await BotApiEmulator.start({timeScale: 0.01})
    closers.push(() => emu.stop())
    const bot = emu.createBot({username: 'glyph_bot'})
    const env = {BOT_TOKEN: bot.token, BOT_API_ROOT: emu.apiRoot}
    const commands: Array<{args: string[]; steps?: PtyStep[]}> = [
      {args: ['doctor', '--no-probe']},
      {args: ['webhook', 'info']},
      {args: ['webhook', 'delete']},
      {args: ['webhook', 'set', 'https://example.com/hook', '--max-connections', '500']},
      {args: ['emulator', '--port', '0'], steps: [{pattern: 'Bot API emulator on', send: '\u0003'}]},
    ]
    for (const {args, steps} of commands) {
      const [colored, plain] = await Promise.all([
        onTerminal(args, {color: true, env, steps}),
        onTerminal(args, {color: false, env, steps}),
      ])
      for (const r of [colored, plain]) expectOneGlyphSet(r)
      expect(plain.output, args.join(' ')).not.toMatch(SGR)
      if (args[1] !== 'info') expect(stripSgr(plain.output), args.join(' ')).toMatch(/[✓✗!] /)
    }
    // bot dev whose first step fails: the spinner ends with a red ✗ and a red line, then the red error.
    const unknownBot = {
      BOT_TOKEN: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1',
      BOT_API_ROOT: emu.apiRoot,
      BOT_STATE_DIR: mkdtempSync(join(tmpdir(), 'bot-pty-state-')),
    }
    const devArgs = ['dev', '--no-watch', '--', 'node', '-e', '0']
    const [devColored, devPlain] = await Promise.all([
      onTerminal(devArgs, {color: true, env: unknownBot}),
      onTerminal(devArgs, {color: false, env: unknownBot}),
    ])
    for (const r of [devColored, devPlain]) {
      expect(r.exitCode, r.output).toBe(1)
      expectOneGlyphSet(r)
    }
    expect(devColored.output).toContain(`\u001B[31m✗\u001B[39m ${RED('Checking the token: failed')}`)
    expect(devColored.output).toMatch(/\u001B\[31m✗ [^\u001B]*401[^\u001B]*\u001B\[39m/)
    expect(devPlain.output).not.toMatch(SGR)
    expect(lines(devPlain.output)).toContain('✗ Checking the token: failed')

    // A bad-input error: red on a colour terminal, the same bytes without the colour otherwise.
    const bad = ['webhook', 'info']
    const [colored, plain] = await Promise.all([onTerminal(bad, {color: true}), onTerminal(bad, {color: false})])
    expect(colored.exitCode).toBe(2)
    // Each run has a folder of its own, which "no .env in …" names: compared without it.
    const folder = (text: string) => text.replace(/[^\s()]*bot-pty-\w+/g, '<folder>')
    const errorLine = lines(folder(plain.output)).find((l) => l.startsWith('✗ '))!
    expect(errorLine).toBeDefined()
    expect(folder(colored.output)).toContain(RED(errorLine))
    expect(folder(stripSgr(colored.output))).toBe(folder(plain.output))
  }, 150_000)
})

describe.skipIf(!hasPty)('output on a terminal: interrupted', () => {
  it('Ctrl-C during a spinner: "✗ Interrupted." in red, plain with NO_COLOR', async () => {
    const server = await silentServer()
    closers.push(() => server.close())
    const env = {BOT_TOKEN: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1', BOT_API_ROOT: server.url}
    const steps = [{pattern: 'Checking', send: '\u0003'}]
    const [colored, plain] = await Promise.all([
      onTerminal(['doctor', '--no-probe'], {color: true, env, steps}),
      onTerminal(['doctor', '--no-probe'], {color: false, env, steps}),
    ])
    for (const r of [colored, plain]) {
      expect(r.exitCode, r.output).toBe(130)
      expectOneGlyphSet(r)
    }
    expect(colored.output).toContain(RED('✗ Interrupted.'))
    expect(plain.output).toContain('✗ Interrupted.')
    expect(plain.output).not.toMatch(SGR)
  }, 90_000)
})

describe('output through pipes (not a terminal)', () => {
  it('no escape codes at all, even without NO_COLOR', async () => {
    const noNoColor = {NO_COLOR: undefined, TERM: 'xterm'}
    const bad = await runCli(['webhook', 'info'], {env: noNoColor})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^✗ /)
    const offline = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('picky-bot.mjs')], {
      env: noNoColor,
      input: 'hello\nfail\n:foo\n',
      timeoutMs: 90_000,
    })
    expect(offline.stdout).toContain('bot › ok: hello')
    expect(offline.stdout).toContain('✗ Unknown command :foo.')
    for (const text of [bad.stdout, bad.stderr, offline.stdout, offline.stderr]) expect(text).not.toMatch(/\u001B/)
    expect(offline.stdout + offline.stderr).not.toMatch(ORA_GLYPHS)
  })
})
