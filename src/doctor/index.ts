/** `bot doctor` as a service: build the context, run the checks, return the report. Prints nothing. */
import {linked} from '../lib/deadline.js'
import {CHECKS} from './checks/index.js'
import {createContext} from './context.js'
import {runChecks, type RunOptions} from './run.js'
import type {CheckReport, DoctorOptions, DoctorReport} from './types.js'

export {CHECKS} from './checks/index.js'
export {runChecks, selectChecks} from './run.js'
export type * from './types.js'

/**
 * The longest a doctor run takes, whatever the servers do: 30 s, plus the probe's listening time
 * when the probe runs. Every check also has its own, shorter limit, and its requests end with it.
 */
export function doctorBoundMs(options: Pick<DoctorOptions, 'probe' | 'probeSeconds'>): number {
  return 30_000 + (options.probe ? options.probeSeconds * 1000 : 0)
}

export interface DoctorRunOptions {
  only?: string[]
  skip?: string[]
  signal?: AbortSignal
  /** Limit for the whole run (default doctorBoundMs(options)). */
  totalTimeoutMs?: number
  onResult?: (report: CheckReport) => void
}

export async function runDoctor(
  options: DoctorOptions,
  run: DoctorRunOptions = {},
): Promise<DoctorReport & {timings: Record<string, number>}> {
  // Aborted once the report is complete: a request a check gave up on must not outlive the run.
  const scope = linked(run.signal)
  const ctx = createContext(options, scope.signal)
  const runOptions: RunOptions = {
    only: run.only,
    skip: run.skip,
    redact: ctx.redact,
    onResult: run.onResult,
    totalTimeoutMs: run.totalTimeoutMs ?? doctorBoundMs(options),
  }
  try {
    const result = await runChecks(CHECKS, ctx, runOptions)
    return {checks: result.checks, ok: result.ok, timings: result.timings}
  } finally {
    scope.abort(new Error('doctor finished'))
    scope.clear()
  }
}
