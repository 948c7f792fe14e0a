/**
 * getUpdates: offset/limit/timeout semantics, the single waiting long poll, 409s (Client.cpp process_get_updates_query,
 * abort_long_poll).
 */
import type {BotState, QueueEntry, WaitingPoll} from '../state/bot.js'
import type {Answer, CallContext, Core} from './core.js'
import {ApiError, CONFLICT_OTHER_POLL, CONFLICT_WEBHOOK_ACTIVE} from '../errors.js'
import {toInt, type Params} from '../http/params.js'
import type {Update} from '../types.js'
import {parseAllowedUpdates} from '../state/updates.js'

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647

/** Answered at once (no promise) when updates are waiting or timeout is 0; a long poll answers through a promise. */
export function getUpdates(bot: BotState, params: Params, core: Core, ctx: CallContext): Answer | Promise<Answer> {
  if (bot.webhook || bot.pendingSetWebhook)
    return core.conflict(bot, CONFLICT_WEBHOOK_ACTIVE).then((error) => {
      throw error
    })

  const offset = toInt(params.get('offset'), 0, INT32_MIN, INT32_MAX)
  let limit = toInt(params.get('limit'), 100, 1, 100)
  let timeoutMs = toInt(params.get('timeout'), 0, 0, 50) * 1000
  const allowed = parseAllowedUpdates(params.get('allowed_updates'))
  if (allowed) bot.allowed = allowed

  // Server-side throttle of repeated calls with the same offset (Client.cpp process_get_updates_query).
  const now = Date.now()
  const previous = bot.lastPoll
  if (previous && previous.offset === offset) {
    const since = now - previous.at
    if (timeoutMs < 3000 && since < core.scale(3000)) timeoutMs = Math.max(timeoutMs, core.scale(3000))
    if (since < core.scale(500)) limit = 1
  }
  bot.lastPoll = {offset, at: now}

  const size = bot.queue.size
  const from = applyOffset(bot, offset)
  if (bot.queue.size < size) core.confirmed(bot)
  if (timeoutMs === 0 || anyFrom(bot, from)) return collect(bot, from, limit)
  return waitForUpdates(bot, core, ctx, from, limit, timeoutMs)
}

/** Confirm / trim the queue as the offset says; returns the smallest update_id to answer. */
function applyOffset(bot: BotState, offset: number): number {
  if (offset < 0) {
    let excess = bot.queue.size + offset
    for (const id of bot.queue.keys()) {
      if (excess-- <= 0) break
      bot.queue.delete(id)
    }
    return INT32_MIN
  }
  if (offset === 0 || offset > bot.nextUpdateId + 10) return INT32_MIN // head; a far-future offset falls back to it
  for (const id of bot.queue.keys()) {
    if (id >= offset) break
    bot.queue.delete(id)
  }
  return offset
}

/**
 * A getUpdates answer stops growing once 50 bytes + the JSON of each update add up to more than 4 MiB (Client.cpp
 * JsonUpdates).
 */
const MAX_RESPONSE = 1 << 22

/** Up to `limit` updates from `from` on, expired ones dropped, cut at 4 MiB (the first is always answered). */
function collect(bot: BotState, from: number, limit: number): Answer {
  const updates: Update[] = []
  const parts: string[] = []
  const now = Date.now()
  let total = 0
  for (const [id, entry] of bot.queue) {
    if (entry.expiresAt <= now) {
      bot.queue.delete(id)
      continue
    }
    if (id < from) continue
    const json = jsonOf(entry)
    if (json === undefined) {
      bot.queue.delete(id) // it cannot be written as JSON (only the JavaScript API can queue such a value): dropped
      continue
    }
    total += 50 + Buffer.byteLength(json)
    if (updates.length > 0 && total > MAX_RESPONSE) break
    updates.push(entry.update)
    parts.push(json)
    if (updates.length >= limit) break
  }
  return {result: updates, raw: `[${parts.join(',')}]`}
}

/** The update's JSON (kept on the entry), or undefined when it has none (nested too deep, circular). */
function jsonOf(entry: QueueEntry): string | undefined {
  try {
    return (entry.json ??= JSON.stringify(entry.update))
  } catch {
    return undefined
  }
}

/** Whether an update from `from` on is waiting (expired ones dropped). */
function anyFrom(bot: BotState, from: number): boolean {
  const now = Date.now()
  for (const [id, entry] of bot.queue) {
    if (entry.expiresAt <= now) {
      bot.queue.delete(id)
      continue
    }
    if (id >= from) return true
  }
  return false
}

function waitForUpdates(
  bot: BotState,
  core: Core,
  ctx: CallContext,
  from: number,
  limit: number,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const poll = new LongPoll(bot, core, from, limit, resolve, reject)
    const older = bot.poll
    bot.poll = poll
    older?.fail(CONFLICT_OTHER_POLL)
    poll.armed(core.later(poll.end, timeoutMs), ctx.onAbort(poll.abort))
  })
}

/**
 * A getUpdates held until an update comes, its timeout, a 409 or its caller leaving: one object per long poll (its
 * callbacks are its own fields), as a bot in a loop makes one per update it answers.
 */
class LongPoll implements WaitingPoll {
  private done = false
  /** A wake-up's answer is due on the next turn (setImmediate). */
  private batching: NodeJS.Immediate | undefined
  private cancelTimer: (() => void) | undefined
  private unregister: (() => void) | undefined

  constructor(
    private readonly bot: BotState,
    private readonly core: Core,
    private readonly from: number,
    private readonly limit: number,
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** Its timeout and its caller's abort, once registered (each undone when it ends). */
  armed(cancelTimer: () => void, unregister: () => void): void {
    if (this.done) {
      cancelTimer()
      unregister()
      return
    }
    this.cancelTimer = cancelTimer
    this.unregister = unregister
  }

  wake(): void {
    if (this.done || this.batching) return
    // Updates queued in the same turn of the event loop are answered together; nothing waits longer.
    this.batching = setImmediate(this.answerIfAny)
  }

  /** Answer now with whatever there is (the timeout, a reset). */
  readonly end = (): void => {
    if (this.finish()) this.resolve(collect(this.bot, this.from, this.limit))
  }

  fail(description: string): void {
    if (!this.finish()) return
    this.core.conflict(this.bot, description).then(this.reject, this.reject)
  }

  /** The caller is gone. */
  readonly abort = (): void => {
    if (this.finish()) this.reject(new ApiError(499, 'Client Closed Request'))
  }

  /** After a wake-up: answer if something is there for this poll's offset, else keep waiting. */
  private readonly answerIfAny = (): void => {
    this.batching = undefined
    if (anyFrom(this.bot, this.from)) this.end()
  }

  private finish(): boolean {
    if (this.done) return false
    this.done = true
    if (this.batching) clearImmediate(this.batching)
    this.batching = undefined
    this.cancelTimer?.()
    if (this.bot.poll === this) this.bot.poll = undefined
    this.unregister?.()
    return true
  }
}
