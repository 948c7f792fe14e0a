/**
 * The state folder and its files against another local user: the `nobody`
 * account (tests run as root) plants files and symlinks for real, with setpriv. A folder nobody
 * owns, or one every user can write, makes `bot dev` exit 2 with one line naming the folder and
 * the fix, before anything is sent. In the user's own folder a planted secret that is not the
 * user's 0600 file is not used, and symlinks at the history's name and at the old predictable temp
 * name (`history-<id>.jsonl.<pid>.tmp`) are not followed: the files they point to stay as they were.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

const NOBODY = 65534
const asRoot = process.getuid?.() === 0
if (!asRoot) console.warn('test/dev/state-folder.e2e.test.ts skipped: it needs root to act as the nobody account')

/** Runs a shell command as nobody (the other local user). */
function asNobody(script: string): void {
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'sh', '-c', script], {
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`as nobody: ${script}: ${r.stderr}`)
}

const PLANTED = 'PLANTED_by_nobody_0123456789abcdef'
const SCRIPT = '#!/bin/sh\necho precious\n'

let world: DevWorld | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

/** A folder like /tmp: every user may create entries in it (sticky). */
function sharedFolder(w: DevWorld): string {
  chmodSync(w.dir, 0o755) // nobody may look inside the test's folder, as in any home
  const shared = join(w.dir, 'shared')
  mkdirSync(shared)
  chmodSync(shared, 0o1777)
  return shared
}

/** `bot dev` (its bot: the echo fixture) with this state folder: it must exit 2 at once, having sent nothing. */
async function refusedWith(w: DevWorld, env: Record<string, string | undefined>): Promise<string> {
  const cli = startDev(w, {env, timeoutMs: 90_000})
  const result = await cli.exited
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(2)
  // Nothing was sent: the emulator saw no call of this bot (not even getMe).
  expect(w.emu.calls(w.token)).toEqual([])
  const lines = result.stderr.trim().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  return lines[0]
}

describe.skipIf(!asRoot)('the state folder against another local user', () => {
  it('a folder another user owns (BOT_STATE_DIR or XDG_STATE_HOME), with a secret planted in it: exit 2 naming it, nothing sent', async () => {
    world = await devWorld()
    const w = world
    const shared = sharedFolder(w)
    const state = join(shared, 'state')
    asNobody(
      `mkdir -m 700 ${state} && printf '${PLANTED}' > ${state}/secret-${w.botId} && chmod 600 ${state}/secret-${w.botId}`,
    )
    const line = await refusedWith(w, {BOT_STATE_DIR: state})
    expect(line).toContain(state)
    expect(line).toMatch(/owned by uid 65534, not by you/)
    expect(line).toMatch(/BOT_STATE_DIR/)

    // XDG_STATE_HOME: the folder is $XDG_STATE_HOME/bot.
    const xdg = join(shared, 'xdg')
    asNobody(`mkdir -p -m 755 ${xdg}/bot`)
    const xdgLine = await refusedWith(w, {BOT_STATE_DIR: undefined, XDG_STATE_HOME: xdg})
    expect(xdgLine).toContain(join(xdg, 'bot'))
  })

  it('a folder of the user that every user can write, with a history symlink planted by nobody: exit 2, the target untouched', async () => {
    world = await devWorld()
    const w = world
    chmodSync(w.dir, 0o755)
    const state = join(w.dir, 'open-state')
    mkdirSync(state)
    chmodSync(state, 0o777)
    const victim = join(w.dir, 'victim.sh')
    writeFileSync(victim, SCRIPT, {mode: 0o755})
    asNobody(`ln -s ${victim} ${state}/history-${w.botId}.jsonl`)
    const line = await refusedWith(w, {BOT_STATE_DIR: state})
    expect(line).toContain(state)
    expect(line).toMatch(/writable by every user \(mode 777\)/)
    expect(line).toMatch(/chmod 700/)
    expect(readFileSync(victim, 'utf8')).toBe(SCRIPT)
    expect(statSync(victim).mode & 0o777).toBe(0o755)

    chmodSync(state, 0o770)
    expect(await refusedWith(w, {BOT_STATE_DIR: state})).toMatch(/writable by its group \(mode 770\)/)
  })

  it("in the user's own folder: a secret not the user's 0600 file is not used; symlinks at the history's name and its old temp name are not followed", async () => {
    world = await devWorld()
    const w = world
    const state = w.stateDir
    mkdirSync(state, {mode: 0o700})
    // Left there (say, while the folder was open to everyone): nobody's secret, and two symlinks.
    const secretFile = join(state, `secret-${w.botId}`)
    writeFileSync(secretFile, PLANTED, {mode: 0o600})
    chownSync(secretFile, NOBODY, NOBODY)
    const script = join(w.dir, 'victim.sh')
    const config = join(w.dir, 'victim.conf')
    writeFileSync(script, SCRIPT, {mode: 0o755})
    writeFileSync(config, 'keep me\n', {mode: 0o644})
    const history = join(state, `history-${w.botId}.jsonl`)
    symlinkSync(script, history)

    const dev = startDev(w, {args: ['--no-watch', '--json'], timeoutMs: 90_000})
    // The name the old code wrote its compacted history to, through whatever was there.
    symlinkSync(config, `${history}.${dev.child.pid}.tmp`)
    await dev.waitForOutput('"type":"ready"', {timeoutMs: 30_000})
    w.emu.sendUserMessage(w.token, {text: 'hello'})
    await waitFor(() => w.recorded().length === 1, {what: 'the bot to get the message'})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code, result.stderr).toBe(0)

    // Nothing written through the symlinks: both files as they were.
    expect(readFileSync(script, 'utf8')).toBe(SCRIPT)
    expect(statSync(script).mode & 0o777).toBe(0o755)
    expect(readFileSync(config, 'utf8')).toBe('keep me\n')
    expect(statSync(config).mode & 0o777).toBe(0o644)
    // The history is a file of its own now, 0600, with the update in it.
    expect(lstatSync(history).isFile()).toBe(true)
    expect(lstatSync(history).mode & 0o777).toBe(0o600)
    expect(readFileSync(history, 'utf8')).toContain('"hello"')
    // The planted secret was not used: a new one of the user's, 0600, replaced it.
    const secret = readFileSync(secretFile, 'utf8').trim()
    expect(secret).not.toBe(PLANTED)
    expect(secret).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(statSync(secretFile).uid).toBe(0)
    expect(statSync(secretFile).mode & 0o777).toBe(0o600)
    const setWebhook = w.emu.calls(w.token).find((c) => c.method === 'setWebhook')
    expect(JSON.stringify(setWebhook?.params ?? {})).not.toContain(PLANTED)
  })
})
