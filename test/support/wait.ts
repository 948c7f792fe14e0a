/**
 * The suite's one wait, shaped like vitest's `vi.waitFor(callback, {timeout, interval})`, for a
 * condition as well as an assertion:
 *
 *   await waitFor(() => seen.length === 2, {what: 'both updates'})
 *   const entry = await waitFor(() => history.find(7), {what: 'update 7', timeout: 30_000})
 *   await waitFor(() => expect(stdout()).toContain('ready'))
 *
 * `check` (sync or async) is called at once, then `interval` ms after each call has settled, until
 * it returns a truthy value without throwing: that value is the result. A falsy value or an error
 * means "not yet". After `timeout` ms it fails naming what it waited for, with the last error.
 * The timeout only bounds a failure, so it is generous: CI runs on a loaded machine.
 *
 * It needs no vitest runtime (the benches use the test helpers too), and uses the timers of the
 * moment it was loaded, so fake timers installed later do not stop it.
 */
const {setTimeout: realSetTimeout, clearTimeout: realClearTimeout} = globalThis

export interface WaitOptions {
  /** Give up after this many ms (default 30 000: it bounds a failure only, and CI may run at load 8 or more). */
  timeout?: number
  /** Poll every this many ms (default 20). */
  interval?: number
  /** What is awaited, for the error message (a function: built when it fails, e.g. with the output so far). */
  what?: string | (() => string)
}

export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: number | WaitOptions = {},
): Promise<NonNullable<T>> {
  const {
    timeout = 30_000,
    interval = 20,
    what = 'the condition',
  } = typeof options === 'number' ? {timeout: options} : options
  const started = performance.now()
  const left = () => timeout - (performance.now() - started)
  let last: unknown
  for (;;) {
    try {
      const value = await settled(check, left())
      if (value) return value as NonNullable<T>
      last = undefined
    } catch (error) {
      last = error
    }
    if (left() <= 0) {
      const awaited = typeof what === 'function' ? what() : what
      const error = last === undefined ? '' : `; last error: ${last instanceof Error ? last.message : String(last)}`
      throw new Error(`timed out after ${timeout} ms waiting for ${awaited}${error}`, {cause: last})
    }
    await new Promise((resolve) => realSetTimeout(resolve, Math.max(0, Math.min(interval, left()))))
  }
}

/** `check()`, or an error once `ms` have passed without it settling. */
async function settled<T>(check: () => T | Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error('the last check had not settled')), Math.max(0, ms))
  })
  try {
    return await Promise.race([Promise.resolve().then(check), late])
  } finally {
    realClearTimeout(timer)
  }
}
