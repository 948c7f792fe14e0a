/**
 * The 409 probe: is another process long-polling this token? (Client.cpp process_get_updates_query, abort_long_poll)
 *
 * The Bot API keeps one waiting getUpdates per bot. A new waiting poll displaces the OLDER one,
 * which is answered 409 "terminated by other getUpdates request". So:
 *
 * - a poller that comes back after a 409 (or was between two polls when we arrived) sends a new
 *   poll while ours waits: OUR poll gets the 409. That is direct evidence.
 * - a poller that was waiting when our first poll arrived gets the 409 itself. If it stops on
 *   409 (grammY, Telegraf) we would never hear from it again. But the server rate-limits 409s:
 *   one sent within the last 3 s holds the next one back for 3 s. So right after our first poll
 *   we send a second one, which displaces our own first poll: that 409 comes back at once when
 *   nobody else got one, and ~3 s late when our first poll had just displaced someone.
 *
 * Every poll is `getUpdates(limit=1, timeout=…)` without offset: nothing is confirmed, no update
 * is consumed, and allowed_updates is left as it is.
 */
import {setTimeout as delay} from 'node:timers/promises'
import {BotApiError, type BotApi, type Update} from '../telegram/index.js'

export interface ProbeOptions {
  /** How long to keep a poll waiting, in seconds. */
  seconds: number
  signal?: AbortSignal
  /** Pause between the first and the second poll (ms): long enough for the first to be the waiting one. */
  settleMs?: number
  /** A self-caused 409 later than this after the second poll (ms) was held back by the 409 rate limit. */
  heldThresholdMs?: number
  /**
   * A quick check (bot dev's, before it takes the updates), bounded in time: it ends as soon as a poll
   * returns updates ('clear', updatesPending: while updates are pending no poll waits, so none can be
   * displaced, and a short window learns nothing more); its displaced first poll not back `heldAfterMs`
   * after the second is taken as held back (a 'held-409' conflict) instead of waited for; and a poll
   * still waiting when the window closes is not waited for (the Bot API may hold one up to 3 s).
   * The caller aborts what is left once it has the outcome. `closes`: the window closes when it
   * settles instead (`seconds` then bounds it, and each poll's timeout).
   */
  quick?: {heldAfterMs: number; closes?: Promise<void>}
}

export type ProbeOutcome =
  | {kind: 'clear'; polls: number; updatesPending: boolean; ms: number}
  | {kind: 'conflict'; evidence: 'direct' | 'held-409'; polls: number; ms: number; heldMs?: number; afterMs: number}
  | {kind: 'webhook'; polls: number; ms: number}
  | {kind: 'error'; error: BotApiError; polls: number; ms: number}

interface PollAnswer {
  sentAt: number
  at: number
  updates?: Update[]
  error?: unknown
}

const MAX_POLLS = 40
const UPDATES_PAUSE_MS = 500

/** A pause that ends early (resolving, not failing) when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, {signal}).catch(() => undefined)
}

const isPollConflict = (a: PollAnswer) => a.error instanceof BotApiError && a.error.isPollerConflict
const isWebhookConflict = (a: PollAnswer) => a.error instanceof BotApiError && a.error.isWebhookActiveConflict

export async function probePollers(api: BotApi, options: ProbeOptions): Promise<ProbeOutcome> {
  const settleMs = options.settleMs ?? 300
  const heldThresholdMs = options.heldThresholdMs ?? 2000
  const started = performance.now()
  const now = () => performance.now()
  const deadline = started + options.seconds * 1000
  const secondsLeft = () => Math.max(1, Math.ceil((deadline - now()) / 1000))
  let polls = 0
  let updatesPending = false
  let held: number | undefined

  // A quick check's poll outwaits the wait for a held 409: a poll that timed out first (a window of
  // 0.5 s made it 1 s, as long as that wait) came back [] and ended the check before a 409 held back
  // for a displaced poller was taken as one, at load 8. The caller cuts what is left.
  const minPollSeconds = options.quick ? Math.ceil(options.quick.heldAfterMs / 1000) + 1 : 1
  const poll = (): Promise<PollAnswer> => {
    polls++
    const sentAt = now()
    const timeout = Math.max(minPollSeconds, secondsLeft())
    return api.getUpdates({limit: 1, timeout}, {signal: options.signal, timeoutMs: 10_000}).then(
      (updates) => ({sentAt, at: now(), updates}),
      (error: unknown) => ({sentAt, at: now(), error}),
    )
  }
  const elapsed = () => Math.round(now() - started)
  const end = (answer: PollAnswer): ProbeOutcome | undefined => {
    if (isPollConflict(answer))
      return {kind: 'conflict', evidence: 'direct', polls, ms: elapsed(), afterMs: Math.round(answer.at - started)}
    if (isWebhookConflict(answer)) return {kind: 'webhook', polls, ms: elapsed()}
    if (answer.error instanceof BotApiError) {
      if (answer.error.kind === 'aborted') return {kind: 'clear', polls, updatesPending, ms: elapsed()}
      return {kind: 'error', error: answer.error, polls, ms: elapsed()}
    }
    if (answer.error) throw answer.error
    if (answer.updates && answer.updates.length > 0) updatesPending = true
    if (updatesPending && options.quick) return {kind: 'clear', polls, updatesPending, ms: elapsed()}
    return undefined
  }

  // 1. The first poll, and (once it waits) a second one that displaces it.
  let current = poll()
  const early = await Promise.race([current, sleep(settleMs, options.signal).then(() => undefined)])
  if (early) {
    const done = end(early)
    if (done) return done
    if (updatesPending) await sleep(UPDATES_PAUSE_MS, options.signal)
    current = poll()
  } else {
    const secondSentAt = now()
    const second = poll()
    const tagged = (p: Promise<PollAnswer>, other: Promise<PollAnswer>) => p.then((a) => ({a, other}))
    const racing = [tagged(current, second), tagged(second, current)]
    const firstBack = await Promise.race(
      options.quick ? [...racing, sleep(options.quick.heldAfterMs, options.signal).then(() => undefined)] : racing,
    )
    if (!firstBack) {
      if (options.signal?.aborted) return {kind: 'clear', polls, updatesPending, ms: elapsed()}
      // Our displaced first poll is not back: its 409 is held, as right after one to someone else.
      held = Math.round(now() - secondSentAt)
      return heldOutcome()
    }
    if (isPollConflict(firstBack.a)) {
      // Our own displacement. Late means the server had just sent a 409 to someone else.
      const latency = firstBack.a.at - secondSentAt
      if (latency >= heldThresholdMs) held = Math.round(latency)
    } else {
      const done = end(firstBack.a)
      if (done) return done
    }
    current = firstBack.other
  }

  // 2. Keep one poll waiting until the window closes; any 409 on it now comes from someone else.
  let closed = false
  const closes = options.quick
    ? Promise.race([
        sleep(Math.max(0, deadline - now()), options.signal),
        ...(options.quick.closes ? [options.quick.closes] : []),
      ])
    : undefined
  void closes?.then(() => (closed = true))
  for (;;) {
    const answer = closes ? await Promise.race([current, closes.then(() => undefined)]) : await current
    // (quick: the window closed with a poll still waiting, or the caller aborted)
    if (!answer) break
    const done = end(answer)
    if (done) return held !== undefined && done.kind === 'clear' ? heldOutcome() : done
    if (closed || now() >= deadline - 250 || polls >= MAX_POLLS || options.signal?.aborted) break
    if (answer.updates && answer.updates.length > 0) await sleep(UPDATES_PAUSE_MS, options.signal)
    if (closed || now() >= deadline - 250) break
    current = poll()
  }
  return held !== undefined ? heldOutcome() : {kind: 'clear', polls, updatesPending, ms: elapsed()}

  function heldOutcome(): ProbeOutcome {
    return {kind: 'conflict', evidence: 'held-409', polls, ms: elapsed(), heldMs: held, afterMs: Math.round(settleMs)}
  }
}
