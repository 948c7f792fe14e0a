/**
 * Item 17, the parts without a network: a check's time limit aborts the signal it was given (so
 * its requests end), the run's total limit fails whatever is unfinished, and the deadline helper
 * really fires, whoever holds a reference to it.
 */
import {describe, expect, it} from 'vitest'

import {runChecks} from '../../src/doctor/run.js'
import type {Check, RunnerContext} from '../../src/doctor/types.js'
import {deadline, linked} from '../../src/lib/deadline.js'

interface Ctx extends RunnerContext {
  signal: AbortSignal
}

/** A check that never finishes on its own and reports when its signal aborts. */
function hanging(id: string, seen: Map<string, unknown>, timeoutMs?: number, needs?: string[]): Check<Ctx> {
  return {
    id,
    title: id,
    needs,
    timeoutMs: timeoutMs === undefined ? undefined : () => timeoutMs,
    run: (c) =>
      new Promise(() => {
        if (c.signal.aborted) seen.set(id, c.signal.reason)
        c.signal.addEventListener('abort', () => seen.set(id, c.signal.reason), {once: true})
      }),
  }
}

describe('doctor time limits', () => {
  it("a check's own limit fails it and aborts its signal", async () => {
    const seen = new Map<string, unknown>()
    const root = new AbortController()
    const result = await runChecks([hanging('slow', seen, 50)], {signal: root.signal, outcome: async () => undefined})
    expect(result.checks[0]).toMatchObject({status: 'fail', detail: 'The check did not finish within 0 s.'})
    expect(seen.has('slow')).toBe(true)
    expect(root.signal.aborted).toBe(false) // only that check's requests end
  })

  it("the run's total limit fails every unfinished check and skips those waiting for it", async () => {
    const seen = new Map<string, unknown>()
    const result = await runChecks(
      [hanging('a', seen, 60_000), hanging('b', seen, 60_000, ['a'])],
      {signal: new AbortController().signal, outcome: async () => undefined},
      {totalTimeoutMs: 100},
    )
    // The detail names the limit that ended the wait: the run's 100 ms, not the check's own 60 s.
    expect(result.checks[0]).toMatchObject({
      status: 'fail',
      detail: "The check did not finish within the doctor's time limit of 0 s.",
    })
    expect(result.checks[1].status).toBe('skipped')
    expect(seen.has('a')).toBe(true)
  })

  it('aborting the parent interrupts a check', async () => {
    const seen = new Map<string, unknown>()
    const root = new AbortController()
    const running = runChecks([hanging('x', seen, 60_000)], {signal: root.signal, outcome: async () => undefined})
    root.abort()
    const result = await running
    expect(result.checks[0]).toMatchObject({status: 'skipped', detail: 'Interrupted.'})
    expect(seen.has('x')).toBe(true)
  })
})

describe('deadline()', () => {
  it('aborts after the time with a TimeoutError and says so; a parent abort is not a timeout', async () => {
    const d = deadline(20)
    await new Promise((r) => d.signal.addEventListener('abort', r, {once: true}))
    expect(d.timedOut).toBe(true)
    expect((d.signal.reason as Error).name).toBe('TimeoutError')

    const parent = new AbortController()
    const e = deadline(60_000, parent.signal)
    parent.abort(new Error('stop'))
    expect(e.signal.aborted).toBe(true)
    expect(e.timedOut).toBe(false)
    expect((e.signal.reason as Error).message).toBe('stop')
    e.clear()
  })

  it('an already aborted parent aborts at once; clear() stops the timer', async () => {
    const parent = new AbortController()
    parent.abort()
    expect(deadline(60_000, undefined, parent.signal).signal.aborted).toBe(true)
    const d = deadline(10)
    d.clear()
    const later = deadline(50)
    await new Promise((r) => later.signal.addEventListener('abort', r, {once: true}))
    expect(d.signal.aborted).toBe(false)
  })

  it('a huge limit does not overflow into an immediate timeout', () => {
    const d = deadline(10 ** 12)
    expect(d.signal.aborted).toBe(false)
    d.clear()
  })

  it('linked() follows any of its parents and can be aborted itself', () => {
    const a = new AbortController()
    const l = linked(undefined, a.signal)
    expect(l.signal.aborted).toBe(false)
    a.abort('why')
    expect(l.signal.reason).toBe('why')
    const own = linked()
    own.abort('mine')
    expect(own.signal.reason).toBe('mine')
  })
})
