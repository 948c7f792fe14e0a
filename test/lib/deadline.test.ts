import {describe, expect, it} from 'vitest'

import {deadline, linked, TimeoutError, waitAtMost, withTimeout} from '../../src/lib/deadline.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('deadline', () => {
  it('aborts with a TimeoutError when the time is up', async () => {
    const d = deadline(20)
    await sleep(60)
    expect(d.signal.aborted).toBe(true)
    expect(d.timedOut).toBe(true)
    expect(d.signal.reason).toBeInstanceOf(TimeoutError)
  })

  it('a parent that aborts first wins, and the timer never fires afterwards', async () => {
    const parent = new AbortController()
    const d = deadline(40, parent.signal)
    parent.abort(new Error('stop'))
    expect(d.signal.aborted).toBe(true)
    await sleep(80)
    expect(d.timedOut).toBe(false)
    expect((d.signal.reason as Error).message).toBe('stop')
  })

  it('an already aborted parent aborts at once; clear() stops the timer', async () => {
    const gone = AbortSignal.abort(new Error('before'))
    const d = deadline(20, undefined, gone)
    expect(d.signal.aborted).toBe(true)
    await sleep(50)
    expect(d.timedOut).toBe(false)
    const kept = deadline(20)
    kept.clear()
    await sleep(50)
    expect(kept.signal.aborted).toBe(false)
  })

  it('linked follows any of its parents', () => {
    const a = new AbortController()
    const l = linked(undefined, a.signal)
    a.abort('x')
    expect(l.signal.aborted).toBe(true)
    expect(l.signal.reason).toBe('x')
  })
})

describe('waitAtMost', () => {
  it('returns when the work settles, fulfilled or rejected, or when the time is up', async () => {
    // Ten minutes each: only the work settling can end these within the test.
    await waitAtMost(Promise.resolve(1), 600_000)
    await waitAtMost(Promise.reject(new Error('no')), 600_000)
    const t1 = performance.now()
    await waitAtMost(new Promise(() => {}), 50)
    expect(performance.now() - t1).toBeGreaterThanOrEqual(45)
  })
})

describe('withTimeout', () => {
  it("gives the work's outcome when it settles in time", async () => {
    await expect(withTimeout(Promise.resolve(7), 5000, () => new Error('late'))).resolves.toBe(7)
    await expect(withTimeout(Promise.reject(new Error('no')), 5000, () => new Error('late'))).rejects.toThrow('no')
  })

  it('rejects with the given error when the work has not settled in time', async () => {
    const never = new Promise<number>(() => {})
    await expect(withTimeout(never, 20, () => new Error('late by design'))).rejects.toThrow('late by design')
  })
})
