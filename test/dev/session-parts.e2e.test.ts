/** The session's small parts on their own, for real: sockets, processes, streams, files. */
import {spawn} from 'node:child_process'
import {mkdtempSync, statSync} from 'node:fs'
import http from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'

import {describe, expect, it} from 'vitest'

import {guardOutput} from '../../src/cli/closed-output.js'
import {listenerOwner, processGroup} from '../../src/session-store/proc-net.js'
import {stopOrphan} from '../../src/session-store/processes.js'
import {readRestoreSecret, removeRestoreSecret, saveRestoreSecret} from '../../src/session-store/state.js'
import {Teardown} from '../../src/dev/teardown.js'
import {waitFor} from '../support/wait.js'

describe.skipIf(process.platform !== 'linux')('listenerOwner', () => {
  it("tells our process group's listener from another group's", async () => {
    const server = http.createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as {port: number}).port
    try {
      const mine = processGroup(process.pid)!
      expect(listenerOwner(port, mine).owner).toBe('ours')
      const other = listenerOwner(port, 999_999)
      expect(other.owner).toBe('foreign')
      expect(other.pids).toContain(process.pid)
    } finally {
      server.close()
    }
  })
})

describe('Teardown', () => {
  it('runs steps in reverse order, once; a step past its budget is reported and the rest still run', async () => {
    const t = new Teardown()
    const ran: string[] = []
    const errors: string[] = []
    t.register('first', async () => void ran.push('first'))
    t.register('stuck', () => new Promise<void>(() => {}), 50)
    t.register('last', async () => void ran.push('last'))
    const a = t.run(10, (step) => errors.push(step))
    const b = t.run(10, (step) => errors.push(step))
    await Promise.all([a, b])
    expect(ran).toEqual(['last', 'first'])
    expect(errors).toEqual(['stuck'])
  })
})

describe('guardOutput', () => {
  it('a write error marks the stream closed and calls back once', () => {
    const out = new PassThrough()
    const err = new PassThrough()
    const seen: string[] = []
    const guard = guardOutput([out, err], (e) => seen.push(e.code ?? ''))
    expect(guard.writable(out)).toBe(true)
    out.emit('error', Object.assign(new Error('write EPIPE'), {code: 'EPIPE'}))
    err.emit('error', Object.assign(new Error('write EPIPE'), {code: 'EPIPE'}))
    expect(seen).toEqual(['EPIPE'])
    expect(guard.writable(out)).toBe(false)
    guard.dispose()
    expect(() => out.emit('error', new Error('late'))).not.toThrow()
  })
})

describe.skipIf(process.platform !== 'linux')('stopOrphan', () => {
  it('SIGKILLs a marked process group that ignores SIGTERM, and only a marked one', async () => {
    const marker = 'abc123'
    const code = "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"
    const stubborn = spawn(process.execPath, ['-e', code], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {...process.env, BOT_DEV_SESSION: marker},
    })
    const unmarked = spawn(process.execPath, ['-e', code], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {...process.env, BOT_DEV_SESSION: 'other'},
    })
    let ready = 0
    for (const child of [stubborn, unmarked]) child.stdout!.once('data', () => ready++)
    try {
      await waitFor(() => ready === 2, {what: 'both ready (SIGTERM handler installed)'})
      expect(await stopOrphan({pid: unmarked.pid!, marker}, 200)).toBe('none')
      expect(await stopOrphan({pid: stubborn.pid!, marker}, 300)).toBe('killed')
      await waitFor(() => stubborn.exitCode !== null || stubborn.signalCode !== null, {what: 'the stubborn one gone'})
      expect(stubborn.signalCode).toBe('SIGKILL')
      expect(unmarked.exitCode).toBeNull()
    } finally {
      unmarked.kill('SIGKILL')
      stubborn.kill('SIGKILL')
    }
  })
})

describe('restore secret', () => {
  it('is kept 0600 beside the state and removed with it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-restore-secret-'))
    saveRestoreSecret(42, 'prod_SECRET-1', dir)
    expect(statSync(join(dir, 'restore-secret-42')).mode & 0o777).toBe(0o600)
    expect(readRestoreSecret(42, dir)).toBe('prod_SECRET-1')
    removeRestoreSecret(42, dir)
    expect(readRestoreSecret(42, dir)).toBeUndefined()
  })
})
