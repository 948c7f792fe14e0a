/**
 * getUpdates: offset/limit/timeout semantics, the single waiting long poll, 409s (Client.cpp process_get_updates_query,
 * abort_long_poll).
 */
import type {BotState, QueueEntry} from '../state/bot.js'
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
    let done = false
    let batching = false
    let unregister = (): void => undefined
    const cancels: Array<() => void> = []
    const finish = (): boolean => {
      if (done) return false
      done = true
      for (const cancel of cancels) cancel()
      if (bot.poll === me) bot.poll = undefined
      unregister()
      return true
    }
    const answer = (): void => {
      if (finish()) resolve(collect(bot, from, limit))
    }
    /** After a wake-up: answer if something is there for this poll's offset, else keep waiting. */
    const answerIfAny = (): void => {
      batching = false
      if (anyFrom(bot, from)) answer()
    }
    const me = {
      wake(): void {
        if (done || batching) return
        batching = true
        // Updates queued in the same turn of the event loop are answered together; nothing waits longer.
        const immediate = setImmediate(answerIfAny)
        cancels.push(() => clearImmediate(immediate))
      },
      end: answer,
      fail(description: string): void {
        if (!finish()) return
        core.conflict(bot, description).then(reject, reject)
      },
    }
    const onAbort = (): void => {
      if (finish()) reject(new ApiError(499, 'Client Closed Request'))
    }
    const older = bot.poll
    bot.poll = me
    older?.fail(CONFLICT_OTHER_POLL)
    cancels.push(core.later(answer, timeoutMs))
    unregister = ctx.onAbort(onAbort)
  })
}
