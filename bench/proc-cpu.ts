/**
 * CPU time a process (or one of its threads) has used so far, read from /proc: for the benches that
 * measure another process's cost per request. Linux only.
 */
import {readFileSync, readdirSync} from 'node:fs'

/** User and system time in ms (utime and stime, in ticks of USER_HZ = 100); undefined off Linux or once it is gone. */
export function cpuTimes(pid: number, tid?: number): {user: number; sys: number} | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10}
  } catch {
    return undefined
  }
}

/** The ids of a process's threads (the first is the process's own id). */
export function threadIds(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map(Number)
}
