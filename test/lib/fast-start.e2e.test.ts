/**
 * The start-up fast path must print exactly what oclif prints. Each case runs the real
 * CLI twice, with and without the fast path (BOT_NO_FAST_START=1), and compares bytes.
 */
import {spawnSync} from 'node:child_process'
import {createRequire} from 'node:module'

import {describe, expect, it} from 'vitest'

import {wrapPlain} from '../../src/cli/fast/render.js'
import {BIN, cliEnv, runCli} from '../support/cli.js'

const hasScript = spawnSync('script', ['--version']).status === 0

async function both(args: string[], env: Record<string, string> = {}) {
  const [fast, oclif] = await Promise.all([runCli(args, {env}), runCli(args, {env: {...env, BOT_NO_FAST_START: '1'}})])
  return {fast, oclif}
}

describe('bin/run.js fast path', () => {
  it('prints the same --version as oclif', async () => {
    const {fast, oclif} = await both(['--version'])
    expect(oclif.code).toBe(0)
    expect(fast.code).toBe(0)
    expect(fast.stdout).toBe(oclif.stdout)
    expect(fast.stdout).toMatch(/^bot-cli\/\d+\.\d+\.\d+\S* \S+-\S+ node-v\d+/)
    expect(fast.stderr).toBe(oclif.stderr)
  })

  it.each(['40', '57', '80', '100', '160'])('prints the same root help as oclif at %s columns', async (columns) => {
    for (const args of [['--help'], ['-h'], []]) {
      const {fast, oclif} = await both(args, {OCLIF_COLUMNS: columns})
      expect(oclif.code).toBe(0)
      expect(fast.code).toBe(0)
      expect(fast.stdout).toBe(oclif.stdout)
      expect(fast.stdout).toContain('USAGE\n  $ bot [COMMAND]')
      expect(fast.stdout).toMatch(/TOPICS\n {2}trigger [\s\S]*\n {2}webhook /)
    }
  })

  const COMMANDS = [
    'dev',
    'doctor',
    'emulator',
    'init',
    'webhook set',
    'webhook info',
    'webhook delete',
    'trigger',
    'trigger message',
    'trigger callback',
    'trigger update',
    'trigger photo',
    'trigger edited-message',
    'trigger inline',
    'trigger poll-answer',
    'trigger reaction',
    'trigger join-request',
    'trigger member',
    'trigger payment',
    'trigger business-message',
    'trigger web-app-data',
    'trigger subscription',
    'trigger widget-query',
    'trigger stopped-generation',
    'replay',
  ]

  it.each(COMMANDS)('prints the same help for %s as oclif (--help and -h, several widths)', async (command) => {
    for (const columns of ['40', '63', '80', '120']) {
      for (const flag of ['--help', '-h']) {
        const {fast, oclif} = await both([...command.split(' '), flag], {OCLIF_COLUMNS: columns})
        expect(oclif.code).toBe(0)
        expect(fast.code).toBe(0)
        expect(fast.stdout).toBe(oclif.stdout)
        expect(fast.stdout).toContain(`USAGE\n  $ bot ${command}`)
        expect(fast.stderr).toBe(oclif.stderr)
      }
    }
  })

  it.each(['webhook'])('prints the same topic help for %s as oclif (--help and -h, several widths)', async (topic) => {
    for (const columns of ['40', '63', '80', '120']) {
      for (const flag of ['--help', '-h']) {
        const {fast, oclif} = await both([topic, flag], {OCLIF_COLUMNS: columns})
        expect(oclif.code).toBe(0)
        expect(fast.code).toBe(0)
        expect(fast.stdout).toBe(oclif.stdout)
        expect(fast.stdout).toContain(`USAGE\n  $ bot ${topic} COMMAND\n\nCOMMANDS\n  ${topic} `)
        expect(fast.stderr).toBe(oclif.stderr)
      }
    }
  })

  it("is actually taken: oclif is never loaded for --version, root help, a command's and a topic's help", async () => {
    // A preload that reports every CommonJS load of @oclif/core (an ESM import of a CJS
    // package goes through Module._load too).
    const probe = [
      `import M from 'node:module'`,
      `const load = M._load`,
      `M._load = function (request, ...rest) { if (/@oclif[\\/]core/.test(String(request))) process.stderr.write('OCLIF-LOADED\\n'); return load.call(this, request, ...rest) }`,
    ].join(';')
    const nodeArgs = ['--import', `data:text/javascript,${encodeURIComponent(probe)}`]
    for (const args of [
      ['--version'],
      ['--help'],
      ['-h'],
      [],
      ['dev', '--help'],
      ['webhook', 'info', '-h'],
      ['init', '--help'],
      ['webhook', '--help'],
      ['trigger', '-h'],
      ['trigger', 'payment', '--help'],
    ]) {
      const r = await runCli(args, {nodeArgs})
      expect(r.code).toBe(0)
      expect(r.stderr).not.toContain('OCLIF-LOADED')
    }
    // Control: the probe does see oclif when the fast path is off.
    const control = await runCli(['--help'], {nodeArgs, env: {BOT_NO_FAST_START: '1'}})
    expect(control.stderr).toContain('OCLIF-LOADED')
    // A plugin's command and an unknown command are left to oclif.
    for (const args of [
      ['autocomplete', '--help'],
      ['nope', '--help'],
    ]) {
      expect((await runCli(args, {nodeArgs})).stderr).toContain('OCLIF-LOADED')
    }
  })

  // On a terminal oclif prints bold headers depending on TERM/COLORTERM/NO_COLOR; util-linux
  // `script` gives the CLI a real pseudo-terminal.
  it
    .runIf(hasScript)
    .each([
      {TERM: 'xterm-256color'},
      {TERM: 'xterm-256color', NO_COLOR: '1'},
      {TERM: 'dumb'},
      {TERM: 'unknown-terminal'},
      {TERM: 'unknown-terminal', COLORTERM: 'truecolor'},
    ])('prints the same root help as oclif on a terminal with %o', (vars) => {
    const onTty = (extra: Record<string, string>) => {
      const env = cliEnv({env: {...vars, ...extra}})
      delete env.NO_COLOR
      if (vars.NO_COLOR) env.NO_COLOR = vars.NO_COLOR
      // CI=true (as CI runs us) turns colours off in oclif's detection; this test is about TERM.
      delete env.CI
      const r = spawnSync(
        'script',
        ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --help`, '/dev/null'],
        {env, encoding: 'utf8', timeout: 20_000},
      )
      expect(r.status).toBe(0)
      return r.stdout
    }
    for (const args of [
      ['dev', '--help'],
      ['webhook', 'set', '-h'],
      ['webhook', '--help'],
      ['trigger', '-h'],
    ]) {
      const cmdOnTty = (extra: Record<string, string>) => {
        const env = cliEnv({env: {...vars, ...extra}})
        delete env.NO_COLOR
        if (vars.NO_COLOR) env.NO_COLOR = vars.NO_COLOR
        delete env.CI
        const line = [process.execPath, BIN, ...args].map((a) => JSON.stringify(a)).join(' ')
        const r = spawnSync('script', ['-qec', line, '/dev/null'], {env, encoding: 'utf8', timeout: 20_000})
        expect(r.status).toBe(0)
        return r.stdout
      }
      expect(cmdOnTty({})).toBe(cmdOnTty({BOT_NO_FAST_START: '1'}))
    }
    const fast = onTty({})
    expect(fast).toContain('USAGE')
    if (vars.TERM === 'xterm-256color' && !vars.NO_COLOR) expect(fast).toContain('\u001B[1mUSAGE\u001B[22m')
    expect(fast).toBe(onTty({BOT_NO_FAST_START: '1'}))
  })

  it('leaves everything else to oclif', async () => {
    const r = await runCli(['webhook', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('webhook set')
    const bad = await runCli(['--help', 'webhook'])
    expect(bad.stdout).toContain('webhook info')
  })
})

describe('wrapPlain', () => {
  // oclif's own wrap-ansi, resolved the way @oclif/core resolves it.
  const requireFromOclif = createRequire(createRequire(import.meta.url).resolve('@oclif/core'))
  const wrapAnsi = requireFromOclif('wrap-ansi') as (s: string, cols: number, o: {hard: boolean}) => string

  it('matches wrap-ansi {hard: true} on random text', () => {
    let seed = 42
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < 2000; i++) {
      const words = Array.from({length: 1 + rand(25)}, () =>
        'abcdefghijklmnopqrstuvwxyz'.slice(0, rand(4) === 0 ? rand(26) : 1 + rand(9)).repeat(1 + rand(3)),
      )
      const text = words.join(rand(5) === 0 ? '  ' : ' ') + (rand(4) === 0 ? '\nsecond line' : '')
      const cols = 5 + rand(60)
      expect(wrapPlain(text, cols), JSON.stringify({text, cols})).toBe(wrapAnsi(text, cols, {hard: true}))
    }
  })
})
