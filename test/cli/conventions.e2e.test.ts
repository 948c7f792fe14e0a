/**
 * CLI conventions, run as real processes: help (`bot help`, `bot help dev`, `-h` everywhere),
 * "did you mean" for a mistyped command (space form, exit 2, no prompt unless interactive),
 * and bash/zsh completion through `bot autocomplete`.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {hasScript, runCli, runCliOnTerminal} from '../support/cli.js'

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
  'trigger shared-widget-query',
  'trigger stopped-generation',
  'replay',
]

describe('help', () => {
  it('bot help lists every command, help and autocomplete included', async () => {
    const r = await runCli(['help'])
    expect(r.code).toBe(0)
    for (const c of ['dev', 'doctor', 'emulator', 'init', 'replay', 'help', 'autocomplete'])
      expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'))
    expect(r.stdout).toMatch(/TOPICS\n {2}trigger .*\n(.*\n)? {2}webhook/)
    expect(r.stdout).not.toContain('webhook:')
  })

  it('bot help trigger lists its commands, space form', async () => {
    const r = await runCli(['help', 'trigger'])
    expect(r.code).toBe(0)
    for (const c of ['callback', 'message', 'update', 'payment', 'reaction', 'member'])
      expect(r.stdout).toMatch(new RegExp(`^  trigger ${c} `, 'm'))
    expect(r.stdout).not.toContain('trigger:')
  })

  it('bot help dev is bot dev --help is bot dev -h', async () => {
    const [a, b, c] = await Promise.all([runCli(['help', 'dev']), runCli(['dev', '--help']), runCli(['dev', '-h'])])
    for (const r of [a, b, c]) expect(r.code).toBe(0)
    expect(a.stdout).toContain('USAGE\n  $ bot dev')
    expect(b.stdout).toBe(a.stdout)
    expect(c.stdout).toBe(a.stdout)
  })

  it.each(COMMANDS)('-h works on %s', async (command) => {
    const r = await runCli([...command.split(' '), '-h'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`USAGE\n  $ bot ${command}`)
    expect(r.stderr).toBe('')
  })

  it('bot dev --help shows the --offline example first', async () => {
    const r = await runCli(['dev', '--help'])
    const examples = r.stdout.slice(r.stdout.indexOf('EXAMPLES\n'))
    const commands = examples
      .split('\n')
      .filter((l) => /^ {4}\S/.test(l))
      .map((l) => l.trim())
    expect(commands[0]).toBe('$ bot dev --offline')
    expect(commands[1]).toBe("printf '/start\\nhello\\n' | bot dev --offline")
  })

  it.each(COMMANDS)('%s --help has examples, each described', async (command) => {
    const r = await runCli([...command.split(' '), '--help'])
    const examples = r.stdout.slice(r.stdout.indexOf('EXAMPLES\n'))
    expect(examples).toMatch(/^EXAMPLES\n {2}\S.*\n(.*\n)?\n {4}\$ bot /)
  })

  it('-h after -- belongs to the bot command, not to bot', async () => {
    const r = await runCli(['dev', '--', 'node', 'bot.js', '-h'])
    expect(r.stdout).not.toContain('USAGE')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('BOT_TOKEN')
  })
})

describe('a mistyped command', () => {
  it.each([
    [['dvv'], 'dvv', 'dev'],
    [['doctr'], 'doctr', 'doctor'],
    [['webhook', 'inf'], 'webhook inf', 'webhook info'],
    [['webhok', 'delete'], 'webhok delete', 'webhook delete'],
  ])('%j suggests the closest command, space form, exit 2, no prompt', async (args, typed, suggestion) => {
    const r = await runCli(args, {env: {CI: undefined}})
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    const stderr = r.stderr
    expect(stderr).toBe(
      `✗ ${typed} is not a bot command. Did you mean ${suggestion}?\n  See \`bot help\` for the commands.\n`,
    )
    expect(stderr).not.toMatch(/webhook:\w/)
    expect(stderr).not.toContain('(Y/n)')
  })

  it.runIf(hasScript)('asks on a terminal, and a "no" exits 2', async () => {
    const r = await runCliOnTerminal(['dvv'], {
      env: {CI: undefined},
      answers: [{prompt: /Did you mean .*dev.*\?/, input: 'n'}],
    })
    expect(r.output).toMatch(/Did you mean .*dev/)
    expect(r.code).toBe(2)
  })

  it.runIf(hasScript)('asks on a terminal, and a "yes" runs the suggestion (space form)', async () => {
    const r = await runCliOnTerminal(['webhok', 'info'], {
      env: {CI: undefined},
      answers: [{prompt: /Did you mean .*webhook info.*\?/, input: 'y'}],
    })
    expect(r.output).not.toContain('webhook:info')
    // webhook info ran: without a token it says so (bad input).
    expect(r.output).toContain('No bot token')
    expect(r.code).toBe(2)
  })

  it.runIf(hasScript)('never asks in CI, even on a terminal', async () => {
    const r = await runCliOnTerminal(['dvv'], {env: {CI: 'true'}, timeoutMs: 30_000})
    expect(r.output).toContain('Did you mean dev?')
    expect(r.output).not.toContain('(Y/n)')
    expect(r.code).toBe(2)
  })
})

describe('bot autocomplete', () => {
  const home = mkdtempSync(join(tmpdir(), 'bot-ac-'))
  const env = {HOME: home, XDG_CACHE_HOME: join(home, '.cache')}

  it('prints setup instructions for bash and zsh', async () => {
    for (const shell of ['bash', 'zsh']) {
      const r = await runCli(['autocomplete', shell], {env, timeoutMs: 90_000})
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`bot autocomplete script ${shell}`)
    }
    const zsh = readFileSync(join(home, '.cache', 'bot', 'autocomplete', 'functions', 'zsh', '_bot'), 'utf8')
    expect(zsh).toContain('dev')
    expect(zsh).toContain('--offline')
  })

  it('completes commands, subcommands and flags in a real bash', async () => {
    const script = await runCli(['autocomplete', 'script', 'bash'], {env, timeoutMs: 90_000})
    expect(script.code).toBe(0)
    const setup = join(home, '.cache', 'bot', 'autocomplete', 'bash_setup')
    if (!existsSync(setup)) expect((await runCli(['autocomplete', 'bash'], {env, timeoutMs: 90_000})).code).toBe(0)
    const complete = (words: string[]) => {
      const program = `${script.stdout}\nCOMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _bot_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
      const r = spawnSync('bash', ['-c', program], {env: {...process.env, ...env}, encoding: 'utf8', timeout: 20_000})
      expect(r.status, r.stderr).toBe(0)
      return r.stdout.split('\n').filter(Boolean)
    }
    expect(complete(['bot', 'd'])).toEqual(['dev', 'doctor'])
    expect(complete(['bot', 'webhook', ''])).toEqual(['delete', 'info', 'set'])
    expect(complete(['bot', 'trigger', ''])).toEqual([
      'business-message',
      'callback',
      'edited-message',
      'inline',
      'join-request',
      'member',
      'message',
      'payment',
      'photo',
      'poll-answer',
      'reaction',
      'shared-widget-query',
      'stopped-generation',
      'subscription',
      'update',
      'web-app-data',
      'widget-query',
    ])
    expect(complete(['bot', 'r'])).toEqual(['replay'])
    expect(complete(['bot', 'dev', '--of'])).toEqual(['--offline'])
  })
})
