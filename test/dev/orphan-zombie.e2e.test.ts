/**
 * A process left by a dead session that has exited but is not yet collected (a zombie) is gone:
 * once `bot dev` has killed it, its slot in the process table lingers until its new parent (init,
 * for an orphan) collects it, which on this machine's init takes up to ~2 s. A clean-clone CI run
 * at load 8 saw "… is still alive after SIGTERM and SIGKILL" for a cloudflared that had died.
 * Real processes: the zombie's parent is `sleep`, which never collects a child, so the zombie stays
 * for as long as the test needs it (session-store/processes.ts).
 */
import {spawn, type ChildProcess} from 'node:child_process'

import {afterEach, describe, expect, it} from 'vitest'

import {BOT_MARKER_ENV, groupAlive, isPidAlive, statOf as stat, stopOrphan} from '../../src/session-store/processes.js'
import {waitFor} from '../support/wait.js'

const parents: ChildProcess[] = []
afterEach(() => {
  // Without its parent, a zombie goes to init, which collects it.
  for (const p of parents.splice(0)) p.kill('SIGKILL')
})

/**
 * Under a `sleep` that never collects it: a Node process leading its own session and process group
 * that runs `script`, then prints its pid (so a SIGTERM handler in `script` is in place once the pid
 * is known), with the marker in its environment.
 */
async function underSleep(marker: string, script: string): Promise<number> {
  const program = `${script}\nconsole.log(process.pid)`
  const parent = spawn('sh', ['-c', 'setsid "$0" -e "$1" & exec sleep 600', process.execPath, program], {
    env: {...process.env, [BOT_MARKER_ENV]: marker},
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  parents.push(parent)
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (chunk: Buffer) => resolve(Number.parseInt(String(chunk), 10)))
    parent.once('exit', (code) => reject(new Error(`sh exited (${code}) before the child said its pid`)))
  })
  expect(stat(pid)?.pgrp).toBe(pid)
  return pid
}

describe.skipIf(process.platform !== 'linux')('a process that died but is not collected yet (a zombie)', () => {
  it('a left-over process that ignores SIGTERM is "killed" once SIGKILL makes it a zombie, not "survived"', async () => {
    const pid = await underSleep('z-1', `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`)
    expect(isPidAlive(pid)).toBe(true)

    expect(await stopOrphan({pid, marker: 'z-1'}, 100)).toBe('killed')
    // It is still in the process table, uncollected: the case this is about.
    expect(stat(pid)?.state).toBe('Z')
    expect(isPidAlive(pid)).toBe(false)
    expect(groupAlive(pid)).toBe(false)
  }, 30_000)

  it('a group whose leader is a zombie is alive while another member runs', async () => {
    // The leader starts a child in its own group, then exits: the leader is a zombie, the child runs on.
    const pid = await underSleep(
      'z-2',
      `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'}); c.unref(); c.once('spawn', () => process.exit(0))`,
    )
    await waitFor(() => stat(pid)?.state === 'Z', {what: 'the leader a zombie'})
    expect(isPidAlive(pid)).toBe(false)
    expect(groupAlive(pid)).toBe(true)

    process.kill(-pid, 'SIGKILL')
    await waitFor(() => !groupAlive(pid), {what: 'the group gone once its running member is killed'})
    expect(stat(pid)?.state).toBe('Z')
  }, 30_000)
})
