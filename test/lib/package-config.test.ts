/**
 * src/cli/package-config.ts with `bot dev`'s real flag definitions: the nearest package.json's
 * "bot".dev section becomes flags (camelCase keys, `command` after `--`), only where neither the
 * command line nor the environment (.env included) sets the flag; unknown keys and wrong types
 * are UsageErrors (exit 2) naming the key and the file.
 */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import Dev from '../../src/commands/dev.js'
import {UsageError} from '../../src/lib/errors.js'
import {findPackageJson, splitCommand, withPackageConfig, type FlagDefinition} from '../../src/cli/package-config.js'

const flags = Dev.flags as unknown as Record<string, FlagDefinition>

function project(pkg: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'bot-pkgcfg-'))
  writeFileSync(join(dir, 'package.json'), typeof pkg === 'string' ? pkg : JSON.stringify(pkg))
  return dir
}

const apply = (cwd: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  withPackageConfig('dev', argv, flags, {cwd, env})

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
  it('turns camelCase keys into flags and `command` into the words after --', async () => {
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
    expect(r?.argv).toEqual([
      '--mode=polling',
      '--allowed-updates=message,callback_query',
      '--no-watch',
      '--port=8080',
      '--',
      'node',
      'bot.mjs',
    ])
  })

  it('is found from a sub-folder, like npm', async () => {
    const dir = project({bot: {dev: {mode: 'polling'}}})
    mkdirSync(join(dir, 'src', 'deep'), {recursive: true})
    expect(findPackageJson(join(dir, 'src', 'deep'))).toBe(join(dir, 'package.json'))
    expect((await apply(join(dir, 'src', 'deep')))?.argv).toEqual(['--mode=polling'])
  })

  it('flags win: a flag on the command line (any form) and a command after -- are kept as given', async () => {
    const dir = project({bot: {dev: {command: 'node other.mjs', mode: 'polling', watch: false, port: 1}}})
    const r = await apply(dir, ['--mode', 'webhook', '--watch', '--port=2', '--', 'node', 'mine.mjs'])
    expect(r?.argv).toEqual(['--mode', 'webhook', '--watch', '--port=2', '--', 'node', 'mine.mjs'])
  })

  it('the environment (and so .env) wins over package.json for flags with a variable', async () => {
    const dir = project({bot: {dev: {apiRoot: 'http://from-package.test'}}})
    expect((await apply(dir, [], {BOT_API_ROOT: 'http://from-env.test'}))?.argv).toEqual([])
    expect((await apply(dir, [], {}))?.argv).toEqual(['--api-root=http://from-package.test'])
  })

  it('no package.json, no "bot" section, or no "dev" in it: nothing changes', async () => {
    expect(await apply(project({name: 'x'}), ['--mode', 'polling'])).toBeUndefined()
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
