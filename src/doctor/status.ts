import type {CheckStatus} from './types.js'

const RANK: Record<CheckStatus, number> = {skipped: 0, ok: 1, warn: 2, fail: 3}

/** The most serious of some statuses (fail > warn > ok > skipped); ok for none. */
export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  let out: CheckStatus = 'ok'
  for (const s of statuses) if (RANK[s] > RANK[out]) out = s
  return out
}
