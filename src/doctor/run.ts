/**
 * The doctor's runner: runs the selected checks concurrently, except that a check with
 * `needs` waits for those (and is skipped when one of them failed or was skipped). Results come
 * back in the order the checks are declared, whatever order they finish in.
 */
import {deadline} from '../lib/deadline.js'
import {UsageError} from '../lib/errors.js'
import type {Check, CheckReport, CheckResult, RunnerContext} from './types.js'

export interface RunOptions {
  /** Run only these check ids. */
  only?: readonly string[]
  /** Do not run these check ids. */
  skip?: readonly string[]
  /** Default per-check deadline in ms when a check sets none. Default 20000. */
  defaultTimeoutMs?: number
  /**
   * A limit for the whole run in ms: past it every unfinished check fails with "did not finish"
   * and its requests are aborted (checks waiting for it are skipped). Default: none.
   */
  totalTimeoutMs?: number
  /** Scrubs text a crashing check may carry (error messages). */
  redact?: (text: string) => string
  /** Told when each check finishes (for progress display). */
  onResult?: (report: CheckReport) => void
}

export interface RunResult {
  checks: CheckReport[]
  ok: boolean
  /** Milliseconds each check took (its own run time, not its wait for needs). */
  timings: Record<string, number>
}

/** The checks --only/--skip select, in declared order; unknown ids are a usage error (exit 2). */
export function selectChecks<C>(
  checks: readonly Check<C>[],
  options: Pick<RunOptions, 'only' | 'skip'> = {},
): Check<C>[] {
  const known = new Set(checks.map((c) => c.id))
  for (const [flag, ids] of [
    ['--only', options.only],
    ['--skip', options.skip],
  ] as const)
    for (const id of ids ?? [])
      if (!known.has(id))
        throw new UsageError(
          `${flag} "${id}" is not a check id.`,
          `Known checks: ${[...known].join(', ')} (see --list-checks).`,
        )
  const only = options.only && options.only.length > 0 ? new Set(options.only) : undefined
  const skip = new Set(options.skip ?? [])
  return checks.filter((c) => (!only || only.has(c.id)) && !skip.has(c.id))
}

/** Throws when a check needs an unknown id or when needs form a cycle (a programming error). */
export function validateNeeds<C>(checks: readonly Check<C>[]): void {
  const byId = new Map(checks.map((c) => [c.id, c]))
  if (byId.size !== checks.length) throw new Error('doctor: two checks share an id')
  for (const c of checks)
    for (const n of c.needs ?? [])
      if (!byId.has(n)) throw new Error(`doctor: check "${c.id}" needs unknown check "${n}"`)
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 'done') return
    if (state.get(id) === 'visiting')
      throw new Error(`doctor: checks need each other in a cycle: ${[...path, id].join(' → ')}`)
    state.set(id, 'visiting')
    for (const n of byId.get(id)!.needs ?? []) visit(n, [...path, id])
    state.set(id, 'done')
  }
  for (const c of checks) visit(c.id, [])
}

/**
 * Run one check under its time limit. Past the limit the check fails with "did not finish", and
 * the signal it was given (when its context has one) is aborted, so its requests really end.
 */
function withDeadline<C>(
  check: Check<C>,
  ctx: C,
  ms: number,
  total?: {signal: AbortSignal; timedOut: boolean; ms: number},
): Promise<CheckResult> {
  const own =
    (ctx as {signal?: unknown}).signal instanceof AbortSignal ? (ctx as {signal: AbortSignal}).signal : undefined
  const limit = deadline(ms, own, total?.signal)
  const checkCtx = own ? ({...ctx, signal: limit.signal} as C) : ctx
  const late = new Promise<CheckResult>((resolve) => {
    const onAbort = () => {
      if (limit.timedOut)
        return resolve({
          status: 'fail',
          detail: `The check did not finish within ${Math.round(ms / 1000)} s.`,
          fix: 'Run it again; if it hangs, run it alone with --only and report it.',
        })
      if (total?.timedOut)
        return resolve({
          status: 'fail',
          detail: `The check did not finish within the doctor's time limit of ${Math.round(total.ms / 1000)} s.`,
          fix: 'Run it again; if it hangs, run it alone with --only and report it.',
        })
      resolve({status: 'skipped', detail: 'Interrupted.'})
    }
    if (limit.signal.aborted) onAbort()
    else limit.signal.addEventListener('abort', onAbort, {once: true})
  })
  return Promise.race([Promise.resolve().then(() => check.run(checkCtx)), late]).finally(() => limit.clear())
}

/**
 * Run `checks` (all declared checks) with `ctx`, honouring only/skip. The context's `outcome`
 * is set by the runner so checks can read each other's results.
 */
export async function runChecks<C extends RunnerContext>(
  checks: readonly Check<C>[],
  ctx: C,
  options: RunOptions = {},
): Promise<RunResult> {
  validateNeeds(checks)
  const selected = selectChecks(checks, options)
  const selectedIds = new Set(selected.map((c) => c.id))
  const titles = new Map(checks.map((c) => [c.id, c.title]))
  const redact = options.redact ?? ((t: string) => t)
  const timings: Record<string, number> = {}
  const promises = new Map<string, Promise<CheckResult>>()

  ctx.outcome = (id: string) => promises.get(id) ?? Promise.resolve(undefined)
  const totalMs = options.totalTimeoutMs
  const totalLimit = totalMs === undefined ? undefined : deadline(totalMs)
  const total = totalLimit && {
    signal: totalLimit.signal,
    ms: totalMs!,
    get timedOut() {
      return totalLimit.timedOut
    },
  }

  // Start every selected check's network requests at once, before anyone waits.
  for (const check of selected) {
    try {
      check.prefetch?.(ctx)
    } catch {
      // a prefetch is an optimisation: the check's own run() reports any problem
    }
  }

  const start = async (check: Check<C>): Promise<CheckResult> => {
    const needs = (check.needs ?? []).filter((id) => selectedIds.has(id))
    const needed = await Promise.all(needs.map(async (id) => ({id, result: await promises.get(id)!})))
    const blocker = needed.find((n) => n.result.status === 'fail' || n.result.status === 'skipped')
    if (blocker)
      return {
        status: 'skipped',
        detail: `Not run: it needs "${titles.get(blocker.id)}", which ${blocker.result.status === 'fail' ? 'failed' : 'was skipped'}.`,
      }
    const began = performance.now()
    try {
      return await withDeadline(check, ctx, check.timeoutMs?.(ctx) ?? options.defaultTimeoutMs ?? 20_000, total)
    } catch (error) {
      return {
        status: 'fail',
        detail: `The check itself failed: ${redact(error instanceof Error ? error.message : String(error))}`,
      }
    } finally {
      timings[check.id] = Math.round(performance.now() - began)
    }
  }

  // Declared order guarantees nothing about needs order, so create all promises lazily by id.
  const create = (check: Check<C>): Promise<CheckResult> => {
    let p = promises.get(check.id)
    if (!p) {
      p = start(check).then((result) => {
        options.onResult?.(toReport(check, result))
        return result
      })
      promises.set(check.id, p)
    }
    return p
  }
  // A check's needs must have promises before it awaits them: create in dependency order.
  const byId = new Map(selected.map((c) => [c.id, c]))
  const ensure = (check: Check<C>): void => {
    if (promises.has(check.id)) return
    for (const n of check.needs ?? []) if (byId.has(n)) ensure(byId.get(n)!)
    create(check)
  }
  for (const check of selected) ensure(check)

  const results = await Promise.all(selected.map((c) => promises.get(c.id)!)).finally(() => totalLimit?.clear())
  const reports = selected.map((c, i) => toReport(c, results[i]))
  return {checks: reports, ok: reports.every((r) => r.status !== 'fail'), timings}
}

function toReport<C>(check: Check<C>, result: CheckResult): CheckReport {
  return {id: check.id, title: check.title, status: result.status, detail: result.detail, fix: result.fix ?? null}
}
