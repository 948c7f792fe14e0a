/**
 * Reports in declared order as soon as they can be: checks finish in any order, but a check's
 * report is handed on only once every check before it has been handed on. Prints nothing itself.
 */
import type {CheckReport} from './types.js'

export interface OrderedReports {
  /** A check finished (any order). */
  push(report: CheckReport): void
  /** Ids not handed on yet (for a caller that stops early). */
  pending(): string[]
}

export function orderedReports(ids: readonly string[], emit: (report: CheckReport) => void): OrderedReports {
  const waiting = new Map<string, CheckReport>()
  let next = 0
  return {
    push(report) {
      if (!ids.includes(report.id) || waiting.has(report.id) || ids.indexOf(report.id) < next) return
      waiting.set(report.id, report)
      while (next < ids.length && waiting.has(ids[next])) {
        const ready = waiting.get(ids[next])!
        waiting.delete(ids[next])
        next++
        emit(ready)
      }
    },
    pending: () => ids.slice(next),
  }
}
