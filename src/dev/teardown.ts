/**
 * The session's cleanups: each resource registers one as it is created; `run()` executes them in
 * reverse order, once, each bounded by what is left of an overall deadline (with a floor per step).
 */
import {withTimeout} from '../lib/deadline.js'

export interface Cleanup {
  name: string
  run: () => Promise<void>
  /** Minimum time this step gets even when the deadline has passed. */
  minMs?: number
}

export class Teardown {
  readonly #steps: Cleanup[] = []
  #running: Promise<void> | undefined

  register(name: string, run: () => Promise<void>, minMs?: number): void {
    this.#steps.push({name, run, minMs})
  }

  /** Run every step (reverse order); `onError` hears about each one that failed or timed out. */
  run(timeoutMs: number, onError: (step: string, error: unknown) => void): Promise<void> {
    this.#running ??= (async () => {
      const deadline = performance.now() + timeoutMs
      const steps = [...this.#steps].reverse()
      this.#steps.length = 0
      for (const step of steps) {
        const budget = Math.max(deadline - performance.now(), step.minMs ?? 200)
        try {
          await withTimeout(step.run(), budget, () => new Error(`timed out after ${Math.round(budget)} ms`))
        } catch (error) {
          onError(step.name, error)
        }
      }
    })()
    return this.#running
  }
}

/** Call `handler` on SIGINT, SIGTERM and SIGHUP; returns the function that removes the handlers. */
export function onSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  const installed: Array<[NodeJS.Signals, () => void]> = []
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]) {
    const listener = () => handler(sig)
    process.on(sig, listener)
    installed.push([sig, listener])
  }
  return () => {
    for (const [sig, listener] of installed) process.off(sig, listener)
    installed.length = 0
  }
}
