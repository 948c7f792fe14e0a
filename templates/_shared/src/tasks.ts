/**
 * Work in flight: the updates being handled and the work started after an update was
 * acknowledged. A clean stop (SIGTERM) waits for both, so a deploy never cuts a reply in half.
 *
 * Slow work (a report, a call to a slow API, anything that may take more than a few seconds) must
 * not hold the webhook request: Telegram waits for the answer, the framework gives up after its
 * timeout, and an update that is not acknowledged is delivered again. Answer the user at once,
 * then run the slow part with `afterAck(() => …)`: it runs after the handler returned (so after
 * the update was acknowledged), its errors are logged, and a clean stop waits for it. For work
 * that must survive a crash, use a queue instead (a Redis list or stream, BullMQ, your cloud's queue).
 */
const running = new Set<Promise<unknown>>()

/** Count `promise` as in flight until it settles; returns it unchanged. */
export function track<T>(promise: Promise<T>): Promise<T> {
  running.add(promise)
  const done = () => running.delete(promise)
  promise.then(done, done)
  return promise
}

/** Run `work` once the current handler has returned; its errors go to `onError`. */
export function afterAck(
  work: () => Promise<unknown> | unknown,
  onError: (err: unknown) => void = console.error,
): void {
  void track(
    new Promise<void>((resolve) => setImmediate(resolve)).then(work).then(
      () => undefined,
      (err: unknown) => onError(err),
    ),
  )
}

/** How many updates and background jobs are in flight. */
export function inFlight(): number {
  return running.size
}

/** Wait until nothing is in flight, or `ms` has passed; true when everything finished. */
export async function drain(ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (running.size > 0) {
    const left = deadline - Date.now()
    if (left <= 0) return false
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...running]),
      new Promise((resolve) => (timer = setTimeout(resolve, left))),
    ])
    clearTimeout(timer)
  }
  return true
}
