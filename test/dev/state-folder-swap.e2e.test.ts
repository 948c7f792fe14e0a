/**
 * The state folder swapped mid-session (issue 31, item 7): its parent is writable by every user, so
 * the `nobody` account (with setpriv) moves the folder away while `bot dev` runs and puts a symlink
 * to a folder of its own in its place. The session's writes (the update history, the session
 * record) go through the folder opened at start: nothing lands in nobody's folder, and the history
 * the session kept is in the real folder, under its new name.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

const asRoot = process.getuid?.() === 0
if (!asRoot) console.warn('test/dev/state-folder-swap.e2e.test.ts skipped: it needs root to act as the nobody account')

function asNobody(script: string): void {
  const r = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', 'sh', '-c', script], {
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`as nobody: ${script}: ${r.stderr}`)
}

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

describe.skipIf(!asRoot)('the state folder swapped for a symlink mid-session', () => {
  it("writes go to the folder opened at start, never to the symlink's target", async () => {
    world = await devWorld()
    const w = world
    chmodSync(w.dir, 0o755)
    const parent = join(w.dir, 'open-parent')
    mkdirSync(parent)
    chmodSync(parent, 0o777) // no sticky bit: anyone may rename what is in it
    const state = join(parent, 'state')
    const dev = startDev(w, {env: {BOT_STATE_DIR: state}, timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 30_000})
    const first = w.emu.sendUserMessage(w.token, {text: 'before the swap'})
    await waitFor(() => w.recorded().includes(first.update_id), {what: 'the first update'})

    const moved = join(parent, 'moved')
    const evil = join(parent, 'evil')
    asNobody(`mkdir -m 777 ${evil} && mv ${state} ${moved} && ln -s ${evil} ${state}`)

    const second = w.emu.sendUserMessage(w.token, {text: 'after the swap'})
    await waitFor(() => w.recorded().includes(second.update_id), {what: 'the second update'})
    const history = join(moved, `history-${w.botId}.jsonl`)
    await waitFor(() => existsSync(history) && readFileSync(history, 'utf8').includes(String(second.update_id)), {
      what: () => `the second update in the history of the folder opened at start\n${dev.stderr()}`,
    })
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)
    expect(readdirSync(evil)).toEqual([])
  })
})
