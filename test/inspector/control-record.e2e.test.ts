import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {
  controlRecordPath,
  findControlRecord,
  removeControlRecord,
  writeControlRecord,
} from '../../src/control/record.js'
import type {ControlRecord} from '../../src/control/protocol.js'

function record(over: Partial<ControlRecord> = {}): ControlRecord {
  return {
    version: 1,
    pid: process.pid,
    botId: 123,
    cwd: '/some/where',
    offline: false,
    mode: 'webhook',
    port: 40_000,
    key: 'k'.repeat(32),
    startedAt: new Date().toISOString(),
    ...over,
  }
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], {stdio: 'ignore'})
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

/** A live process other than this one (for several live records), ended by the caller. */
function livePid(): {pid: number; stop: () => void} {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})
  return {pid: child.pid!, stop: () => child.kill()}
}

describe('control record', () => {
  it('is written atomically as control-<pid>.json, mode 0600, in a 0700 folder', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ctl-')), 'state')
    const path = writeControlRecord(record(), dir)
    expect(path).toBe(controlRecordPath(process.pid, dir))
    expect(path.endsWith(`control-${process.pid}.json`)).toBe(true)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(readdirSync(dir)).toEqual([`control-${process.pid}.json`]) // no temp file left
    writeControlRecord(record({port: 40_001}), dir)
    expect(findControlRecord({cwd: '/some/where', dir})?.port).toBe(40_001)
    removeControlRecord(process.pid, dir)
    expect(readdirSync(dir)).toEqual([])
    removeControlRecord(process.pid, dir) // twice is fine
  })

  it('defaults to stateDir() (BOT_STATE_DIR)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-'))
    const saved = process.env.BOT_STATE_DIR
    process.env.BOT_STATE_DIR = dir
    try {
      writeControlRecord(record({cwd: dir}))
      expect(readdirSync(dir)).toEqual([`control-${process.pid}.json`])
      expect(findControlRecord({cwd: dir})?.pid).toBe(process.pid)
      removeControlRecord(process.pid)
      expect(readdirSync(dir)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env.BOT_STATE_DIR
      else process.env.BOT_STATE_DIR = saved
    }
  })

  it('finds by bot id when one is known, else by folder; a stale record is ignored and removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-'))
    const project = mkdtempSync(join(tmpdir(), 'proj-'))
    const dead = await deadPid()
    writeControlRecord(
      record({pid: dead, botId: 123, cwd: project, startedAt: new Date(Date.now() + 60_000).toISOString()}),
      dir,
    )
    expect(findControlRecord({botId: 123, cwd: project, dir})).toBeUndefined()
    expect(findControlRecord({cwd: project, dir})).toBeUndefined()
    expect(readdirSync(dir)).toEqual([]) // removed on the way

    writeControlRecord(record({botId: 123, cwd: '/elsewhere'}), dir)
    expect(findControlRecord({botId: 123, cwd: project, dir})?.pid).toBe(process.pid)
    expect(findControlRecord({botId: 456, cwd: project, dir})).toBeUndefined()
    expect(findControlRecord({cwd: project, dir})).toBeUndefined()
    expect(findControlRecord({cwd: '/elsewhere', dir})?.botId).toBe(123)
  })

  it('an offline session in this folder answers for any bot id (its bot is a fake one)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-'))
    const project = mkdtempSync(join(tmpdir(), 'proj-'))
    writeControlRecord(record({botId: 999, cwd: project, offline: true}), dir)
    expect(findControlRecord({botId: 123, cwd: project, dir})?.botId).toBe(999)
    expect(findControlRecord({botId: 123, cwd: '/elsewhere', dir})).toBeUndefined()
  })

  it('several matches: the newest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-'))
    const other = livePid()
    try {
      writeControlRecord(record({pid: other.pid, port: 1, startedAt: '2026-01-01T00:00:00.000Z'}), dir)
      writeControlRecord(record({port: 2, startedAt: '2026-01-02T00:00:00.000Z'}), dir)
      expect(findControlRecord({botId: 123, cwd: '/x', dir})?.port).toBe(2)
      expect(findControlRecord({cwd: '/some/where', dir})?.port).toBe(2)
      writeControlRecord(record({port: 3, startedAt: '2025-01-01T00:00:00.000Z'}), dir)
      expect(findControlRecord({botId: 123, cwd: '/x', dir})?.port).toBe(1)
    } finally {
      other.stop()
    }
  })

  it('ignores torn, foreign and malformed files, and a missing folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-'))
    writeFileSync(join(dir, `control-${process.pid}.json`), '{"version":1,')
    writeFileSync(join(dir, 'session-123.json'), JSON.stringify(record()))
    mkdirSync(join(dir, 'control-1.json.d'))
    expect(findControlRecord({cwd: '/some/where', dir})).toBeUndefined()
    writeFileSync(join(dir, `control-${process.pid}.json`), JSON.stringify(record({pid: process.pid + 1})))
    expect(findControlRecord({cwd: '/some/where', dir})).toBeUndefined() // pid does not match its name
    writeFileSync(join(dir, `control-${process.pid}.json`), JSON.stringify({...record(), key: ''}))
    expect(findControlRecord({cwd: '/some/where', dir})).toBeUndefined()
    expect(findControlRecord({cwd: '/some/where', dir: join(dir, 'nope')})).toBeUndefined()
  })
})
