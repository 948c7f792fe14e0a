/**
 * A time limit that really ends a request.
 *
 * `AbortSignal.timeout()` combined with `AbortSignal.any()` is not reliable on Node 20: the
 * composite signal only holds its sources weakly, so after a garbage collection the timeout can
 * be gone and a fetch to a server that never answers waits for undici's own 300 s limit. Here a
 * plain AbortController is aborted by a timer this object holds, and every parent signal is
 * followed with an ordinary listener; `clear()` drops the timer and the listeners.
 */
export interface Deadline {
  /** Aborted when the time is up or any parent signal aborts. */
  readonly signal: AbortSignal
  /** True once the time limit (not a parent) aborted the signal. */
  readonly timedOut: boolean
  /** Stop the timer and forget the parents; call it once the work is done. */
  clear(): void
}

export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${+(ms / 1000).toFixed(1)}s`)
    this.name = 'TimeoutError'
  }
}

export function deadline(ms: number, ...parents: Array<AbortSignal | undefined>): Deadline {
  const link = linked(...parents)
  let timedOut = false
  let timer: NodeJS.Timeout | undefined
  const clear = () => {
    clearTimeout(timer)
    link.clear()
  }
  if (!link.signal.aborted) {
    timer = setTimeout(
      () => {
        timedOut = true
        link.abort(new TimeoutError(ms))
      },
      Math.max(0, Math.min(ms, 2_147_483_647)),
    )
    // However it ends (time, a parent, or abort), the timer and the parents' listeners go.
    link.signal.addEventListener('abort', clear, {once: true})
  }
  return {
    signal: link.signal,
    get timedOut() {
      return timedOut
    },
    clear,
  }
}

/** A signal that aborts when any of `signals` does, with listeners removed by `clear()`. */
export function linked(...signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal
  abort(reason?: unknown): void
  clear(): void
} {
  const controller = new AbortController()
  const listeners: Array<[AbortSignal, () => void]> = []
  const clear = () => {
    for (const [signal, listener] of listeners) signal.removeEventListener('abort', listener)
    listeners.length = 0
  }
  for (const parent of signals) {
    if (!parent) continue
    if (parent.aborted) {
      controller.abort(parent.reason)
      break
    }
    const listener = () => {
      controller.abort(parent.reason)
      clear()
    }
    parent.addEventListener('abort', listener, {once: true})
    listeners.push([parent, listener])
  }
  return {signal: controller.signal, abort: (reason) => controller.abort(reason), clear}
}

/** Wait until `work` settles (fulfilled or rejected, the outcome is not kept) or `ms` pass, whichever is first. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms)
    }),
  ])
  clearTimeout(timer)
}

/**
 * `work`'s outcome, or the error `onTimeout()` makes when `work` has not settled within `ms`. The
 * timer is cleared either way; `work` itself goes on (abort it through its own signal if it must stop).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), Math.max(0, Math.min(ms, 2_147_483_647)))
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
