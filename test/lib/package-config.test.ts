/**
 * src/cli/package-config.ts with `bot dev`'s real flag definitions and oclif's real parser: the
 * nearest package.json's "bot".dev section gives the flags their defaults (camelCase keys; `command`
 * is the bot command), so the command line and the environment (.env included) win over it;
 * unknown keys and wrong types are UsageErrors (exit 2) naming the key and the file.
 */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'

import Dev from '../../src/commands/dev.js'
import {UsageError} from '../../src/lib/errors.js'
import {
  findPackageJson,
  readPackageConfig,
  splitCommand,
  withDefaults,
  type FlagDefinition,
} from '../../src/cli/package-config.js'

const flags = Dev.flags as unknown as Record<string, FlagDefinition>

function project(pkg: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-pkgcfg-'))
  writeFileSync(join(dir, 'package.json'), typeof pkg === 'string' ? pkg : JSON.stringify(pkg))
  return dir
}

const apply = (cwd: string) => readPackageConfig('dev', flags, {cwd})

/** The flags oclif parses from `argv` (with `env` as the environment) once package.json gave the defaults. */
async function parsed(cwd: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const config = await apply(cwd)
  const saved = process.env
  process.env = {...env}
  try {
    const out = await Parser.parse(argv, {flags: withDefaults(Dev.flags, config), strict: false})
    return out.flags as Record<string, unknown>
  } finally {
    process.env = saved
  }
}

async function usage(p: Promise<unknown>): Promise<UsageError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UsageError)
  expect((error as UsageError).exitCode).toBe(2)
  return error as UsageError
}

describe('package.json "bot".dev defaults', () => {
  it('turns camelCase keys into flag defaults and `command` into the bot command', async () => {
    const dir = project({
      bot: {
        dev: {
          command: 'node bot.mjs',
          mode: 'polling',
          allowedUpdates: ['message', 'callback_query'],
          watch: false,
          port: 8080,
        },
      },
    })
    const r = await apply(dir)
    expect(r?.path).toBe(join(dir, 'package.json'))
    expect(r?.command).toEqual(['node', 'bot.mjs'])
    expect(r?.defaults).toEqual({
      mode: 'polling',
      'allowed-updates': 'message,callback_query',
      watch: false,
      port: 8080,
    })
    const f = await parsed(dir)
    expect([f.mode, f['allowed-updates'], f.watch, f.port]).toEqual(['polling', 'message,callback_query', false, 8080])
    // flags package.json does not name keep their own defaults
    expect([f.tunnel, f['hold-timeout']]).toEqual(['auto', 30])
  })

  it('is found from a sub-folder, like npm', async () => {
    const dir = project({bot: {dev: {mode: 'polling'}}})
    mkdirSync(join(dir, 'src', 'deep'), {recursive: true})
    expect(findPackageJson(join(dir, 'src', 'deep'))).toBe(join(dir, 'package.json'))
    expect((await parsed(join(dir, 'src', 'deep'))).mode).toBe('polling')
  })

  it('flags win: a flag on the command line (any form) wins over its default from package.json', async () => {
    const dir = project({bot: {dev: {command: 'node other.mjs', mode: 'polling', watch: false, port: 1}}})
    const f = await parsed(dir, ['--mode', 'webhook', '--watch', '--port=2', '--', 'node', 'mine.mjs'])
    expect([f.mode, f.watch, f.port]).toEqual(['webhook', true, 2])
    expect((await parsed(dir, ['--no-watch'])).watch).toBe(false)
  })

  it('the environment (and so .env) wins over package.json for flags with a variable', async () => {
    const dir = project({bot: {dev: {apiRoot: 'http://from-package.test'}}})
    expect((await parsed(dir, [], {BOT_API_ROOT: 'http://from-env.test'}))['api-root']).toBe('http://from-env.test')
    expect((await parsed(dir, [], {}))['api-root']).toBe('http://from-package.test')
    expect(
      (await parsed(dir, ['--api-root', 'http://from-flag.test'], {BOT_API_ROOT: 'http://from-env.test'}))['api-root'],
    ).toBe('http://from-flag.test')
  })

  it('no package.json, no "bot" section, or no "dev" in it: nothing changes', async () => {
    expect(await apply(project({name: 'x'}))).toBeUndefined()
    expect(await apply(project({bot: {}}))).toBeUndefined()
  })

  it('unknown keys: exit 2 naming every one and the file, with the known keys', async () => {
    const dir = project({bot: {dev: {tunel: 'none', mode: 'polling', comand: 'x'}}})
    const e = await usage(apply(dir))
    expect(e.message).toBe(`Unknown keys "tunel", "comand" in "bot".dev in ${join(dir, 'package.json')}.`)
    expect(e.fix).toMatch(
      /^Known keys \(the flags of `bot dev` in camelCase\): command, apiRoot, mode, .*allowedUpdates/,
    )
    expect(e.fix).not.toMatch(/\btoken\b/)
    const section = await usage(apply(project({bot: {dve: {}}})))
    expect(section.message).toMatch(/^Unknown key "dve" in "bot" in /)
  })

  it('wrong types and values: exit 2 naming the key', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{port: 'abc'}, /"bot"\.dev\.port in .*: Expected an integer but received: abc\./],
      [{port: 70000}, /"bot"\.dev\.port in .*: Expected an integer less than or equal to 65535/],
      [{watch: 'no'}, /"bot"\.dev\.watch in .* must be true or false, not a string\./],
      [{mode: 'carrier-pigeon'}, /"bot"\.dev\.mode in .* is "carrier-pigeon", not one of webhook, polling\./],
      [{mode: ['polling']}, /"bot"\.dev\.mode in .* must be a string or a number, not an array\./],
      [
        {allowedUpdates: [1]},
        /"bot"\.dev\.allowedUpdates in .* must be an array of strings or a string, not an array\./,
      ],
      [{command: ''}, /"bot"\.dev\.command in .* is empty\./],
      [{command: {run: 'x'}}, /"bot"\.dev\.command in .* must be a string or an array of strings, not an object\./],
      [{token: '123:abc'}, /"bot"\.dev\.token in .* is not allowed: the bot token is a secret/],
    ]
    for (const [dev, message] of cases) expect((await usage(apply(project({bot: {dev}})))).message).toMatch(message)
    expect((await usage(apply(project({bot: 'dev'})))).message).toMatch(/"bot" in .* must be an object/)
    expect((await usage(apply(project('{"bot": ')))).message).toMatch(/package\.json is not valid JSON/)
  })

  it('splits a command string like a shell', () => {
    expect(splitCommand(`node --import tsx 'src/my bot.ts' "a \\"b\\"" c\\ d`)).toEqual([
      'node',
      '--import',
      'tsx',
      'src/my bot.ts',
      'a "b"',
      'c d',
    ])
    expect(() => splitCommand('node "x')).toThrow(/unclosed/)
  })
})
