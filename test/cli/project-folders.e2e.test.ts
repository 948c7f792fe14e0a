/**
 * Issue 31 item 12, projects as people lay them out: `bot trigger` typed in a subfolder finds the
 * session started at the package's root (as `bot dev` finds package.json); in a monorepo package,
 * .env is looked up from the package folder up to the repository's root; "no token" names the
 * .env files it looked for.
 */
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {runCli} from '../support/cli.js'
import {devWorld, fixture, startDev, type DevWorld} from '../dev/helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** /repo (a git repository and npm workspace) with the bot's package in packages/bot. */
function monorepo(rootEnv?: string): {root: string; pkg: string} {
  const root = join(world.dir, 'repo')
  const pkg = join(root, 'packages', 'bot')
  mkdirSync(join(root, '.git'), {recursive: true})
  mkdirSync(join(pkg, 'src'), {recursive: true})
  writeFileSync(join(root, 'package.json'), JSON.stringify({private: true, workspaces: ['packages/*']}))
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({name: 'bot', type: 'module', main: 'src/bot.mjs'}))
  copyFileSync(fixture('echo-bot.mjs'), join(pkg, 'src', 'bot.mjs'))
  if (rootEnv !== undefined) writeFileSync(join(root, '.env'), rootEnv)
  return {root, pkg}
}

describe('a package of a monorepo', () => {
  it("reads the repository root's .env when the package has none", async () => {
    const {pkg} = monorepo(`BOT_TOKEN=${world.token}\nBOT_API_ROOT=${world.emu.apiRoot}\n`)
    const r = await runCli(['webhook', 'info'], {cwd: join(pkg, 'src'), env: {BOT_STATE_DIR: world.stateDir}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout + r.stderr).toMatch(/long polling|No webhook/i)
  })

  it('"no token" names the .env files it looked for, and the one it read', async () => {
    const {root, pkg} = monorepo('SOMETHING_ELSE=1\n')
    const r = await runCli(['webhook', 'info'], {cwd: pkg, env: {BOT_STATE_DIR: world.stateDir}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      `read ${join(root, '.env')} (none in ${pkg}, ${join(root, 'packages')}), which has no BOT_TOKEN`,
    )
    const none = join(world.dir, 'repo2')
    mkdirSync(join(none, '.git'), {recursive: true})
    const r2 = await runCli(['webhook', 'info'], {cwd: none, env: {BOT_STATE_DIR: world.stateDir}})
    expect(r2.code).toBe(2)
    expect(r2.stderr).toContain(`no .env in ${none})`)
  })
})

describe('bot trigger in a subfolder of the project', () => {
  it('finds the session started at the package root', async () => {
    const {pkg} = monorepo()
    // The session's token comes from its environment: the trigger has none, so only the folder finds it.
    const dev = startDev(world, {cwd: pkg, bot: ['node', 'src/bot.mjs'], timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 25_000})
    const r = await runCli(['trigger', 'message', 'from src', '--chat', '42'], {
      cwd: join(pkg, 'src'),
      env: {BOT_STATE_DIR: world.stateDir},
      timeoutMs: 90_000,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/message "from src" delivered → 200/)
    dev.kill('SIGINT')
    await dev.exited
  })
})
