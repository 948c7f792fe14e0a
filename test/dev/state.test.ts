import {mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {
  claimState,
  listStates,
  loadOrCreateSecret,
  readState,
  removeState,
  stateDir,
  statePath,
  writeState,
  type SessionState,
} from '../../src/session-store/state.js'
import {isPidAlive} from '../../src/session-store/processes.js'

const dir = () => mkdtempSync(join(tmpdir(), 'bot-dev-state-'))
const sample = (patch: Partial<SessionState> = {}): SessionState => ({
  version: 1,
  botId: 123456,
  botUsername: 'x_bot',
  pid: process.pid,
  startedAt: new Date().toISOString(),
  cwd: '/tmp',
  mode: 'webhook',
  apiRoot: 'http://127.0.0.1:1',
  webhook: {url: 'https://example.com/webhook/abc'},
  ...patch,
})

describe('session state', () => {
  it('writes a 0600 file keyed by bot id, atomically, and reads it back', () => {
    const d = dir()
    writeState(sample(), d)
    const path = statePath(123456, d)
    expect(path).toBe(join(d, 'session-123456.json'))
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readState(123456, d)).toEqual(sample({startedAt: readState(123456, d)!.startedAt}))
    expect(readdirSync(d)).toEqual(['session-123456.json']) // no temp file left behind
    writeState(sample({mode: 'polling', webhook: undefined}), d)
    expect(readState(123456, d)?.mode).toBe('polling')
    expect(listStates(d).map((s) => s.botId)).toEqual([123456])
    removeState(123456, d)
    expect(readState(123456, d)).toBeUndefined()
    removeState(123456, d) // idempotent
  })

  it('claims a bot only once', () => {
    const d = dir()
    expect(claimState(sample(), d)).toBe(true)
    expect(claimState(sample({pid: 1}), d)).toBe(false)
    expect(readState(123456, d)?.pid).toBe(process.pid)
  })

  it('ignores torn or foreign files', () => {
    const d = dir()
    writeState(sample(), d)
    writeFileSync(statePath(123456, d), '{"version":1,')
    expect(readState(123456, d)).toBeUndefined()
    expect(listStates(d)).toEqual([])
  })

  it('keeps a stable 0600 webhook secret per bot', () => {
    const d = dir()
    const a = loadOrCreateSecret(1, d)
    expect(a).toMatch(/^[A-Za-z0-9_-]{32,256}$/)
    expect(loadOrCreateSecret(1, d)).toBe(a)
    expect(loadOrCreateSecret(2, d)).not.toBe(a)
    expect(statSync(join(d, 'secret-1')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(d, 'secret-1'), 'utf8').trim()).toBe(a)
  })

  it('never stores the token', () => {
    const d = dir()
    writeState(sample(), d)
    expect(readFileSync(statePath(123456, d), 'utf8')).not.toMatch(/\d+:[\w-]{30,}/)
  })

  it('tells live pids from dead ones', () => {
    expect(isPidAlive(process.pid)).toBe(true)
    expect(isPidAlive(2 ** 22 + 12345)).toBe(false)
    expect(isPidAlive(0)).toBe(false)
  })

  it('finds its folder from BOT_STATE_DIR, then XDG_STATE_HOME', () => {
    const saved = {a: process.env.BOT_STATE_DIR, b: process.env.XDG_STATE_HOME}
    try {
      process.env.BOT_STATE_DIR = '/x/state'
      expect(stateDir()).toBe('/x/state')
      delete process.env.BOT_STATE_DIR
      process.env.XDG_STATE_HOME = '/y'
      expect(stateDir()).toBe('/y/bot')
      delete process.env.XDG_STATE_HOME
      expect(stateDir()).toMatch(/\.local\/state\/bot$/)
    } finally {
      if (saved.a === undefined) delete process.env.BOT_STATE_DIR
      else process.env.BOT_STATE_DIR = saved.a
      if (saved.b === undefined) delete process.env.XDG_STATE_HOME
      else process.env.XDG_STATE_HOME = saved.b
    }
  })
})
