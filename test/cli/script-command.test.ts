/**
 * The `bot:` line a chat script saved in a session gets (src/cli/script-command.ts): the session's command only when
 * it is not what `bot test` runs by default in the project (package.json's "bot".dev.command, its dev:bot script,
 * its entry file).
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {scriptBotCommand} from '../../src/cli/script-command.js'
import {resolveBotCommand} from '../../src/dev/bot/command.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

function project(pkg?: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'script-command-'))
  dirs.push(dir)
  if (pkg) writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg))
  return dir
}

/** What `bot dev` resolves for these words (after `--`, else package.json's command, else the default). */
const session = (dir: string, words: string[]) => resolveBotCommand(words, dir)

describe('scriptBotCommand', () => {
  it('no bot: for the default command (nothing after --)', () => {
    const dir = project({scripts: {'dev:bot': 'node bot.js'}})
    expect(scriptBotCommand(session(dir, []), ['dev', '--offline'], undefined, dir)).toBeUndefined()
  })

  it('no bot: when the command after -- is the default one anyway', () => {
    const dir = project({main: 'bot.js'})
    writeFileSync(join(dir, 'bot.js'), '')
    // (the default shows as `node bot.js`, the same words typed after --)
    const argv = ['dev', '--', 'node', 'bot.js']
    expect(scriptBotCommand(session(dir, ['node', 'bot.js']), argv, undefined, dir)).toBeUndefined()
    // package.json's "bot".dev.command is the default too
    const words = ['python3', 'bot.py']
    expect(scriptBotCommand(session(dir, words), ['dev', '--', ...words], words, dir)).toBeUndefined()
  })

  it('bot: when the command after -- differs from the default, or the project has none', () => {
    const dir = project({scripts: {'dev:bot': 'node bot.js'}})
    const words = ['python3', 'bot.py']
    expect(scriptBotCommand(session(dir, words), ['dev', '--', ...words], undefined, dir)).toBe('python3 bot.py')
    const empty = project()
    expect(scriptBotCommand(session(empty, words), ['dev', '--', ...words], undefined, empty)).toBe('python3 bot.py')
  })
})
