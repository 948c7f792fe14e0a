/** The config check through the CLI: the token read from .env, and .env kept out of git. */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli} from '../support/cli.js'
import {doctorWorld, expectNoToken, report, type DoctorWorld} from './helpers.js'

let world: DoctorWorld
beforeAll(async () => {
  world = await doctorWorld()
})
afterAll(async () => {
  await world.close()
})

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {cwd, stdio: 'pipe'})

function configOf(cwd: string) {
  return runCli(['doctor', '--json', '--only', 'config,token'], {
    cwd,
    env: {BOT_API_ROOT: world.emu.apiRoot, BOT_STATE_DIR: world.stateDir},
  })
}

describe('bot doctor: config', () => {
  it('reads the token from .env and checks that git ignores .env (not ignored → warn, ignored → ok, committed → fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-doctor-git-'))
    writeFileSync(join(dir, '.env'), `BOT_TOKEN=${world.token}\n`)
    git(dir, 'init', '-q')

    const notIgnored = await configOf(dir)
    const r1 = report(notIgnored)
    expect(r1.byId.config.status).toBe('warn')
    expect(r1.byId.config.detail).toContain(`token: from ${join(dir, '.env')}, well-formed (bot id ${world.botId})`)
    expect(r1.byId.config.detail).toContain('.env: NOT ignored by git')
    expect(r1.byId.config.fix).toContain('Add a line ".env" to .gitignore')
    expect(r1.byId.token.status).toBe('ok') // the token from .env works
    expect(notIgnored.code).toBe(0)
    expectNoToken(notIgnored, world.token)

    writeFileSync(join(dir, '.gitignore'), '.env\n')
    const ignored = report(await configOf(dir))
    expect(ignored.byId.config.status).toBe('ok')
    expect(ignored.byId.config.detail).toContain('.env: ignored by git')

    git(dir, 'add', '-f', '.env')
    git(dir, 'commit', '-q', '-m', 'oops')
    const committed = await configOf(dir)
    const r3 = report(committed)
    expect(r3.byId.config.status).toBe('fail')
    expect(r3.byId.config.detail).toContain('.env: committed to git')
    expect(r3.byId.config.fix).toContain('git rm --cached .env')
    expect(r3.byId.config.fix).toContain('revoke the token')
    expect(committed.code).toBe(1)
    expectNoToken(committed, world.token)
  })

  it('outside a git repository .env needs no ignoring; an http api root on another host is a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-doctor-nogit-'))
    writeFileSync(join(dir, '.env'), `BOT_TOKEN=${world.token}\n`)
    const r = report(await configOf(dir))
    expect(r.byId.config.detail).toContain('.env: not inside a git repository')
    expect(r.byId.config.status).toBe('ok')

    const remote = await runCli(
      ['doctor', '--json', '--only', 'config', '--api-root', 'http://bot-api.example.com:8081'],
      {
        env: {BOT_TOKEN: world.token, BOT_STATE_DIR: world.stateDir},
      },
    )
    const c = report(remote).byId.config
    expect(c.status).toBe('warn')
    expect(c.detail).toMatch(/plain http to another host sends the token unencrypted/)
    expect(c.detail).toContain('(--api-root')
  })
})
