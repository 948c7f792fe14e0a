/** Ctrl-C, a CI's SIGTERM, a closed terminal's SIGHUP: the signals that end a command, and its exit code for each. */

/** Each signal with the exit code a shell reports for it (128 + the signal's number). */
export const INTERRUPTS: ReadonlyArray<readonly [NodeJS.Signals, number]> = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]

/** Calls `handler` (once per signal) on SIGINT, SIGTERM or SIGHUP; returns the function that removes the handlers. */
export function onInterrupt(handler: (signal: NodeJS.Signals, code: number) => void): () => void {
  const listeners = INTERRUPTS.map(([signal, code]) => {
    const listener = () => handler(signal, code)
    process.once(signal, listener)
    return [signal, listener] as const
  })
  return () => {
    for (const [signal, listener] of listeners) process.removeListener(signal, listener)
  }
}
