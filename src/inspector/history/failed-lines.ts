/**
 * When the terminal log shows a failing Bot API call: right under its update's line (a call made
 * while its update is in flight waits until that line is out), at once when it belongs to no update
 * (nothing is lost), and without flooding: the same failure again within 30 s (per update, or among
 * the calls of no update: a bot whose getUpdates keeps getting 409) is counted and mentioned with the
 * next one shown, and an update keeps at most 20 lines waiting.
 */
import {callText} from '../render.js'
import type {ApiCall, UpdateEntry} from '../types.js'

export const REPEAT_WINDOW_MS = 30_000
const WAITING_MAX = 20
const KEYS_MAX = 500

/** What the session emits for a failing call (a DevEvent of type 'api-call'). */
export interface FailedCallLine {
  type: 'api-call'
  time: string
  method: string
  ok: boolean
  errorCode?: number
  description?: string
  retryAfter?: number
  explanation?: string
  ms: number
  updateId?: number
  seq?: number
  /** Failures like this one not shown since the last line about it. */
  repeated?: number
  text: string
}

export class FailedCallLines {
  #emit: (line: FailedCallLine) => void
  #now: () => number
  #waiting = new Map<UpdateEntry, FailedCallLine[]>()
  #dropped = new Map<UpdateEntry, number>()
  #recent = new Map<string, {at: number; count: number}>()

  constructor(emit: (line: FailedCallLine) => void, now: () => number = Date.now) {
    this.#emit = emit
    this.#now = now
  }

  /** A call of the bot failed; `entry` is the update it was attached to, `inFlight` whether that one is still being handled. */
  failed(call: ApiCall, entry: UpdateEntry | undefined, inFlight: boolean): void {
    const key = `${entry?.seq ?? '-'}\u0000${call.method}\u0000${call.errorCode ?? ''}\u0000${call.description ?? ''}`
    const now = this.#now()
    const seen = this.#recent.get(key)
    if (seen && now - seen.at < REPEAT_WINDOW_MS) {
      seen.count++
      return
    }
    if (this.#recent.size >= KEYS_MAX) this.#recent.clear()
    this.#recent.set(key, {at: now, count: 0})
    const repeated = seen?.count ?? 0
    const line: FailedCallLine = {
      type: 'api-call',
      time: call.time,
      method: call.method,
      ok: call.ok,
      ...(call.errorCode !== undefined ? {errorCode: call.errorCode} : {}),
      ...(call.description !== undefined ? {description: call.description} : {}),
      ...(call.retryAfter !== undefined ? {retryAfter: call.retryAfter} : {}),
      ...(call.explanation !== undefined ? {explanation: call.explanation} : {}),
      ms: call.ms,
      ...(entry ? {updateId: entry.updateId, seq: entry.seq} : {}),
      ...(repeated ? {repeated} : {}),
      text: callText(call) + (repeated ? ` (${repeated} more like it before, not shown)` : ''),
    }
    if (!entry || !inFlight) return this.#emit(line)
    const waiting = this.#waiting.get(entry) ?? []
    if (waiting.length < WAITING_MAX) waiting.push(line)
    else this.#dropped.set(entry, (this.#dropped.get(entry) ?? 0) + 1)
    this.#waiting.set(entry, waiting)
  }

  /** The update's line is out: now the lines of its failing calls. */
  finished(entry: UpdateEntry): void {
    const waiting = this.#waiting.get(entry)
    if (!waiting) return
    this.#waiting.delete(entry)
    const dropped = this.#dropped.get(entry) ?? 0
    this.#dropped.delete(entry)
    if (dropped)
      waiting.at(-1)!.text +=
        ` (and ${dropped} more failed call${dropped === 1 ? '' : 's'} for this update: see the inspector)`
    for (const line of waiting) this.#emit(line)
  }
}
