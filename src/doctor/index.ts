/** `bot doctor` as a service: build the context, run the checks, return the report. Prints nothing. */
import {CHECKS} from './checks/index.js'
import {createContext} from './context.js'
import {runChecks, type RunOptions} from './run.js'
import type {CheckReport, DoctorOptions, DoctorReport} from './types.js'

export {CHECKS} from './checks/index.js'
export {runChecks, selectChecks} from './run.js'
export type * from './types.js'

export interface DoctorRunOptions {
  only?: string[]
  skip?: string[]
  signal?: AbortSignal
  onResult?: (report: CheckReport) => void
}

export async function runDoctor(options: DoctorOptions, run: DoctorRunOptions = {}): Promise<DoctorReport & {timings: Record<string, number>}> {
  const ctx = createContext(options, run.signal)
  const runOptions: RunOptions = {only: run.only, skip: run.skip, redact: ctx.redact, onResult: run.onResult}
  const result = await runChecks(CHECKS, ctx, runOptions)
  return {checks: result.checks, ok: result.ok, timings: result.timings}
}
