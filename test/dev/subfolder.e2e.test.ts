/**
 * `bot dev` started in a subfolder of the project (`src/`). The command from
 * package.json runs in the package's folder, as `npm run` does, with one line saying so; the
 * project's .env (at its root) is read; a command after `--` still runs where it was typed.
 */
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startCli} from '../support/cli.js'
import {waitFor} from '../support/wait.js'
import {devWorld, fixture, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** A project whose package.json says `node src/bot.mjs`, its token and api root in the root's .env. */
function project(): {root: string; src: string} {
  const root = join(world.dir, 'project')
  const src = join(root, 'src')
  mkdirSync(src, {recursive: true})
  copyFileSync(fixture('echo-bot.mjs'), join(src, 'bot.mjs'))
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({name: 'my-bot', type: 'module', bot: {dev: {command: 'node src/bot.mjs', watch: false}}}),
  )
  writeFileSync(join(root, '.env'), `BOT_TOKEN=${world.token}\nBOT_API_ROOT=${world.emu.apiRoot}\n`)
  return {root, src}
}

function devIn(cwd: string, args: string[] = []) {
  return startCli(['dev', '--tunnel-host', world.lt.url, ...args], {
    cwd,
    timeoutMs: 90_000,
    env: {BOT_STATE_DIR: world.stateDir, FIXTURE_RECORD: world.record},
  })
}

describe('bot dev in a subfolder of the project', () => {
  it("runs package.json's command in the package's folder and says so; reads the root's .env", async () => {
    const {root, src} = project()
    const dev = devIn(src)
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    const update = world.emu.sendUserMessage(world.token, {text: '/start'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update'})
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      `Running in ${root}, the folder of package.json (the bot command comes from there), not in the current folder src.`,
    )
    expect(r.stderr).toMatch(/▶ node src\/bot\.mjs \(pid \d+/)
    expect(r.stdout + r.stderr).not.toMatch(/Cannot find module/)
  })

  it('a command after `--` runs in the current folder, as typed', async () => {
    const {src} = project()
    const dev = devIn(src, ['--no-watch', '--', 'node', 'bot.mjs'])
    await dev.waitForOutput(/Ready/, {timeoutMs: 20_000})
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/Running in /)
  })
})
