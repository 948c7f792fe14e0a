/**
 * A `:save NAME` that writes nothing, in `bot dev --offline` as a real process with piped input: the chat goes on,
 * and the run ends with exit code 1 and one line naming the cause (a piped chat is a check: a script that asked
 * for a chat script and got none must not pass). Needs `npm run build`.
 */
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {fixture} from '../dev/helpers.js'
import {runCli} from '../support/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
})

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'save-failure-'))
  dirs.push(dir)
  return dir
}

describe('bot dev --offline, piped: a failed :save', () => {
  it('a folder it cannot write (test is a file): exit code 1, the cause named once, the next lines still sent', async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'test'), 'not a folder')
    const r = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('picky-bot.mjs')], {
      cwd,
      input: 'hello\n:save talk\nagain\n',
      timeoutMs: 90_000,
    })
    expect(r.stdout).toMatch(/^✗ cannot create the folder test: a file has that name \((ENOTDIR|EEXIST)\)$/m)
    // the chat went on after it
    expect(r.stdout).toContain('bot › ok: again')
    expect(r.stderr).toMatch(
      /^✗ 1 :save wrote nothing \(cannot create the folder test: a file has that name \((ENOTDIR|EEXIST)\)\) \(of 2 lines piped in\): exiting with code 1\.$/m,
    )
    expect(r.stderr).toMatch(/: 2 updates sent, 0 failures; exit code 1\./)
    expect(r.code).toBe(1)
  })

  it('a bad name: exit code 1 with the fix; a good :save after it still writes', async () => {
    const cwd = project()
    const r = await runCli(['dev', '--offline', '--no-watch', '--json', '--', 'node', fixture('picky-bot.mjs')], {
      cwd,
      input: 'hello\n:save ../out\n:save good\n',
      timeoutMs: 90_000,
    })
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {type: string; event?: {type: string; text?: string}; failedSaves?: number})
    const errors = events.filter((e) => e.type === 'chat' && e.event?.type === 'error').map((e) => e.event!.text)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^✗ .*name/)
    expect(existsSync(join(cwd, 'test', 'good.chat.yml'))).toBe(true)
    expect(existsSync(join(cwd, 'out.chat.yml'))).toBe(false)
    expect(events.at(-2)).toMatchObject({type: 'offline-result', ok: false, failedSaves: 1})
    expect(events.at(-1)).toMatchObject({type: 'summary', exitCode: 1})
    expect(r.code).toBe(1)
  })

  it('a :save that works keeps exit code 0', async () => {
    const cwd = project()
    const r = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('picky-bot.mjs')], {
      cwd,
      input: 'hello\n:save ok\n',
      timeoutMs: 90_000,
    })
    expect(r.stdout).toMatch(/^✓ Saved test\/ok\.chat\.yml: /m)
    expect(r.code, r.stdout + r.stderr).toBe(0)
    // no default command in this project: the script names the one after --
    expect(readFileSync(join(cwd, 'test', 'ok.chat.yml'), 'utf8')).toMatch(/^bot: node .*picky-bot\.mjs$/m)
  })

  it("the command after -- is the project's default (its dev:bot script): no bot: line", async () => {
    const cwd = project()
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({scripts: {'dev:bot': `node ${fixture('picky-bot.mjs')}`}}))
    const r = await runCli(['dev', '--offline', '--no-watch', '--', 'node', fixture('picky-bot.mjs')], {
      cwd,
      input: 'hello\n:save ok\n',
      timeoutMs: 90_000,
    })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const text = readFileSync(join(cwd, 'test', 'ok.chat.yml'), 'utf8')
    expect(text).toContain('  - user: hello\n')
    expect(text).not.toMatch(/^bot:/m)
  })
})
