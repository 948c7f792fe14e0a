/** The runner: concurrency, `needs`, skipping after a failed need, --only/--skip, declared order, deadlines. */
import {describe, expect, it} from 'vitest'

import {runChecks, selectChecks, validateNeeds} from '../../src/doctor/run.js'
import type {Check, CheckResult, RunnerContext} from '../../src/doctor/types.js'
import {UsageError} from '../../src/lib/errors.js'

interface Ctx extends RunnerContext {
  log: string[]
}

const ctx = (): Ctx => ({log: [], outcome: async () => undefined})

function deferred<T>() {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return {promise, resolve}
}

/** A check that logs its start and end, and finishes when `gate` resolves (or at once). */
function check(
  id: string,
  result: Partial<CheckResult> = {},
  opts: {needs?: string[]; gate?: Promise<void>} = {},
): Check<Ctx> {
  return {
    id,
    title: `Title ${id}`,
    needs: opts.needs,
    async run(c) {
      c.log.push(`start ${id}`)
      await opts.gate
      c.log.push(`end ${id}`)
      return {status: 'ok', detail: `detail ${id}`, ...result}
    },
  }
}

describe('doctor runner', () => {
  it('runs independent checks concurrently and reports them in declared order', async () => {
    const gateA = deferred<void>()
    const gateB = deferred<void>()
    const c = ctx()
    const running = runChecks([check('a', {}, {gate: gateA.promise}), check('b', {}, {gate: gateB.promise})], c)
    // Both have started before either is allowed to finish.
    await new Promise((r) => setImmediate(r))
    expect(c.log).toEqual(['start a', 'start b'])
    gateB.resolve() // b finishes first…
    await new Promise((r) => setImmediate(r))
    gateA.resolve()
    const result = await running
    expect(c.log).toEqual(['start a', 'start b', 'end b', 'end a'])
    // …but the report keeps the declared order.
    expect(result.checks.map((r) => r.id)).toEqual(['a', 'b'])
    expect(result.checks[0]).toEqual({id: 'a', title: 'Title a', status: 'ok', detail: 'detail a', fix: null})
    expect(result.ok).toBe(true)
  })

  it('starts a check with needs only after those finished, even when it is declared first', async () => {
    const c = ctx()
    const gate = deferred<void>()
    const running = runChecks([check('late', {}, {needs: ['early']}), check('early', {}, {gate: gate.promise})], c)
    await new Promise((r) => setImmediate(r))
    expect(c.log).toEqual(['start early'])
    gate.resolve()
    const result = await running
    expect(c.log).toEqual(['start early', 'end early', 'start late', 'end late'])
    expect(result.checks.map((r) => r.id)).toEqual(['late', 'early'])
  })

  it('calls every prefetch before any check waits for its needs', async () => {
    const c = ctx()
    const gate = deferred<void>()
    const withPrefetch: Check<Ctx> = {...check('b', {}, {needs: ['a']}), prefetch: (x) => x.log.push('prefetch b')}
    const running = runChecks([check('a', {}, {gate: gate.promise}), withPrefetch], c)
    await new Promise((r) => setImmediate(r))
    expect(c.log).toEqual(['prefetch b', 'start a'])
    gate.resolve()
    await running
  })

  it('skips a check whose need failed, and cascades through a skipped need; ok is false', async () => {
    const c = ctx()
    const result = await runChecks(
      [
        check('a', {status: 'fail', detail: 'broken', fix: 'mend it'}),
        check('b', {}, {needs: ['a']}),
        check('c', {}, {needs: ['b']}),
        check('d'),
      ],
      c,
    )
    const byId = Object.fromEntries(result.checks.map((r) => [r.id, r]))
    expect(byId.a).toMatchObject({status: 'fail', fix: 'mend it'})
    expect(byId.b.status).toBe('skipped')
    expect(byId.b.detail).toContain('"Title a", which failed')
    expect(byId.c.status).toBe('skipped')
    expect(byId.c.detail).toContain('"Title b", which was skipped')
    expect(byId.d.status).toBe('ok')
    expect(c.log).not.toContain('start b')
    expect(c.log).not.toContain('start c')
    expect(result.ok).toBe(false)
  })

  it('a warning does not block dependents and keeps ok true', async () => {
    const result = await runChecks([check('a', {status: 'warn', detail: 'hmm'}), check('b', {}, {needs: ['a']})], ctx())
    expect(result.checks.map((r) => r.status)).toEqual(['warn', 'ok'])
    expect(result.ok).toBe(true)
  })

  it('--only runs just those (a need outside the selection is not waited for); --skip leaves some out', async () => {
    const checks = [check('a'), check('b', {}, {needs: ['a']}), check('c')]
    const c1 = ctx()
    const only = await runChecks(checks, c1, {only: ['b']})
    expect(only.checks.map((r) => r.id)).toEqual(['b'])
    expect(only.checks[0].status).toBe('ok')
    expect(c1.log).toEqual(['start b', 'end b'])

    const c2 = ctx()
    const skip = await runChecks(checks, c2, {skip: ['a', 'c']})
    expect(skip.checks.map((r) => r.id)).toEqual(['b'])
    expect(c2.log).not.toContain('start a')

    expect(selectChecks(checks, {only: ['c', 'a']}).map((x) => x.id)).toEqual(['a', 'c'])
  })

  it('refuses unknown ids in --only/--skip as a usage error naming the known ones', () => {
    const checks = [check('a'), check('b')]
    expect(() => selectChecks(checks, {only: ['nope']})).toThrow(UsageError)
    expect(() => selectChecks(checks, {skip: ['zzz']})).toThrow(/--skip "zzz" is not a check id/)
    try {
      selectChecks(checks, {only: ['nope']})
    } catch (error) {
      expect((error as UsageError).exitCode).toBe(2)
      expect((error as UsageError).fix).toContain('a, b')
    }
  })

  it('rejects needs on unknown checks and cycles', () => {
    expect(() => validateNeeds([check('a', {}, {needs: ['ghost']})])).toThrow(/unknown check "ghost"/)
    expect(() => validateNeeds([check('a', {}, {needs: ['b']}), check('b', {}, {needs: ['a']})])).toThrow(/cycle/)
  })

  it('a check that throws fails with its (redacted) message; one that hangs fails at its deadline', async () => {
    const boom: Check<Ctx> = {
      id: 'boom',
      title: 'Boom',
      run: async () => {
        throw new Error('exploded with SECRET inside')
      },
    }
    const hang: Check<Ctx> = {
      id: 'hang',
      title: 'Hang',
      timeoutMs: () => 50,
      run: () => new Promise<CheckResult>(() => {}),
    }
    const result = await runChecks([boom, hang], ctx(), {redact: (t) => t.replace('SECRET', '<token>')})
    expect(result.checks[0]).toMatchObject({
      status: 'fail',
      detail: 'The check itself failed: exploded with <token> inside',
    })
    expect(result.checks[1].status).toBe('fail')
    expect(result.checks[1].detail).toMatch(/did not finish/)
  })

  it("outcome() gives a check another one's result without a hard need", async () => {
    const reader: Check<Ctx> = {
      id: 'reader',
      title: 'Reader',
      async run(c) {
        const other = await c.outcome('source')
        const absent = await c.outcome('not-selected')
        return {status: 'ok', detail: `${String(other?.data)} ${String(absent)}`}
      },
    }
    const source: Check<Ctx> = {
      id: 'source',
      title: 'Source',
      run: async () => ({status: 'warn', detail: 'x', data: 42}),
    }
    const result = await runChecks([reader, source, check('not-selected')], ctx(), {skip: ['not-selected']})
    expect(result.checks[0].detail).toBe('42 undefined')
  })
})
