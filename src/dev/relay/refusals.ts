/**
 * Refused requests are reported without flooding the log: the first few one by one, then one
 * summary per window ("N requests refused in the last minute"). While refusals go on window after
 * window, only the summaries are reported; after a quiet window, single ones are shown again.
 */

export type RefusalReason = 'secret' | 'path' | 'method' | 'too-large' | 'busy'

export interface RelayRejectedEvent {
  time: string
  status: number
  reason: RefusalReason
  method: string
  /** The path asked for, made safe to print (controls escaped, cut). */
  path: string
}

export interface RelayRefusedSummaryEvent {
  time: string
  /** Requests refused in the window and not reported one by one. */
  count: number
  windowMs: number
  byReason: Partial<Record<RefusalReason, number>>
  /** e.g. "120 requests refused in the last minute (118 wrong secret, 2 unknown path); none was forwarded". */
  text: string
}

const REASON_TEXT: Record<RefusalReason, string> = {
  secret: 'wrong secret',
  path: 'unknown path',
  method: 'not a POST',
  'too-large': 'body too large',
  busy: 'too many bytes in flight',
}

export function refusedSummaryText(
  count: number,
  windowMs: number,
  byReason: Partial<Record<RefusalReason, number>>,
): string {
  const window = windowMs === 60_000 ? 'the last minute' : `the last ${Math.round(windowMs / 1000)} s`
  const parts = Object.entries(byReason).map(([reason, n]) => `${n} ${REASON_TEXT[reason as RefusalReason]}`)
  return `${count} request${count === 1 ? '' : 's'} refused in ${window} (${parts.join(', ')}); none was forwarded`
}

export interface RefusalLogOptions {
  onEach?: (event: RelayRejectedEvent) => void
  onSummary?: (event: RelayRefusedSummaryEvent) => void
  /** Refusals reported one by one per window, while the previous window was quiet. Default 5. */
  individual?: number
  windowMs?: number
}

export class RefusalLog {
  #options: Required<Pick<RefusalLogOptions, 'individual' | 'windowMs'>> & RefusalLogOptions
  #timer: NodeJS.Timeout | undefined
  #shown = 0
  #allowance: number
  #suppressed = 0
  #byReason: Partial<Record<RefusalReason, number>> = {}
  #any = false

  constructor(options: RefusalLogOptions) {
    this.#options = {individual: 5, windowMs: 60_000, ...options}
    this.#allowance = this.#options.individual
  }

  record(event: RelayRejectedEvent): void {
    this.#any = true
    if (!this.#timer) this.#timer = setInterval(() => this.#endWindow(), this.#options.windowMs).unref()
    if (this.#shown < this.#allowance) {
      this.#shown++
      call(this.#options.onEach, event)
      return
    }
    this.#suppressed++
    this.#byReason[event.reason] = (this.#byReason[event.reason] ?? 0) + 1
  }

  /** Report what is pending now and stop the timer. */
  close(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#flush()
  }

  #endWindow(): void {
    const flooded = this.#suppressed > 0
    this.#flush()
    // A flood goes on: only summaries. A quiet window: single refusals are shown again.
    this.#allowance = flooded ? 0 : this.#options.individual
    this.#shown = 0
    if (!this.#any) {
      clearInterval(this.#timer)
      this.#timer = undefined
      this.#allowance = this.#options.individual
    }
    this.#any = false
  }

  #flush(): void {
    if (this.#suppressed === 0) return
    const {windowMs} = this.#options
    const event = {
      time: new Date().toISOString(),
      count: this.#suppressed,
      windowMs,
      byReason: this.#byReason,
      text: refusedSummaryText(this.#suppressed, windowMs, this.#byReason),
    }
    this.#suppressed = 0
    this.#byReason = {}
    call(this.#options.onSummary, event)
  }
}

/** A listener that throws must not take the relay down (there is nowhere left to report it). */
function call<T>(listener: ((event: T) => void) | undefined, event: T): void {
  try {
    listener?.(event)
  } catch {
    // ignored: see above
  }
}
