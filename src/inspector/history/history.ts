/**
 * The session's update history: the newest `limit` updates (1000) with the bot's answer and the
 * Bot API calls made for each, in memory, and appended to a JSONL log (log.ts) so
 * `bot replay` works after a restart. What is kept is redacted and bounded (shape.ts).
 *
 * A call is attached to the update in flight for its chat or user (or its callback query), else to
 * the newest update of that chat or user that arrived within the last 60 s; any other call goes to
 * the one update in flight, when there is exactly one.
 */
import {randomBytes} from 'node:crypto'

import {isoTime} from '../../lib/iso-time.js'
import {HistoryLog, readLogFile} from './log.js'
import {callQueryId, cleanAnswer, cleanCall, MAX_CALLS, updateFacts, type Secrets} from './shape.js'
import {callTag, TAGS, updateTags} from './tags.js'
import {PaymentThreads} from './threads.js'
import type {ApiCall, EntryChange, EntrySource, HistoryView, UpdateEntry} from '../types.js'

export const HISTORY_LIMIT = 1000
/** A call this long after its update arrived is no longer attached to it (unless it is still in flight). */
export const ATTACH_WINDOW_MS = 60_000

export interface UpdateHistoryOptions {
  /** Entries kept in memory (default 1000). */
  limit?: number
  /** JSONL log (0600), e.g. history-<botId>.jsonl in the session's state folder. */
  logFile?: string
  /** Redacted everywhere (the token, the webhook secret and path); anything token-shaped is redacted anyway. */
  secrets?: Secrets
  /** Told once when the log cannot be written. */
  onError?: (message: string) => void
  /** How long changes gather before they are appended to the log (default 100 ms). */
  flushMs?: number
  /** Clock (tests). */
  now?: () => number
}

/** What the history knows of an entry besides what it shows. */
interface Meta {
  at: number
  /** The update's JSON as it arrived (redacted, one line), for the log. */
  json?: string
  inFlight: boolean
  chatId?: number
  userId?: number
  queryId?: string
}

type Listener = (entry: UpdateEntry, change: EntryChange) => void

/**
 * An entry's Meta, on the entry under a symbol: JSON.stringify and Object.keys skip it, so it is never
 * shown, served or logged, and a lookup costs no WeakMap (one per update, and ephemerons for the GC).
 * Only entries this history made have it (not those read back from a log).
 */
const META: unique symbol = Symbol('history meta')
type Kept = UpdateEntry & {[META]?: Meta}

function metaOf(entry: UpdateEntry): Meta | undefined {
  return (entry as Kept)[META]
}

export class UpdateHistory implements HistoryView {
  /** The entries of a log file, oldest first (for `bot replay` of an earlier session). */
  static readLog(file: string): UpdateEntry[] {
    return readLogFile(file)
  }

  readonly logFile: string | undefined
  #limit: number
  #secrets: Secrets
  #now: () => number
  #flushMs: number
  /** Oldest first. */
  #entries: UpdateEntry[] = []
  #listeners = new Set<Listener>()
  #seq = 0
  #log: HistoryLog | undefined
  #dirty = new Set<UpdateEntry>()
  #timer: NodeJS.Timeout | undefined
  #closed = false
  readonly #threads = new PaymentThreads()

  constructor(o: UpdateHistoryOptions = {}) {
    this.#limit = Math.max(1, o.limit ?? HISTORY_LIMIT)
    this.#secrets = o.secrets ?? []
    this.#now = o.now ?? Date.now
    this.#flushMs = o.flushMs ?? 100
    this.logFile = o.logFile
    if (o.logFile)
      this.#log = new HistoryLog(o.logFile, {
        limit: this.#limit,
        session: randomBytes(6).toString('hex'),
        onError: o.onError ?? (() => {}),
        json: (entry) => metaOf(entry)?.json,
      })
  }

  /** A new update reached the session (in flight until finish). */
  begin(update: unknown, source: EntrySource, replayOf?: number): UpdateEntry {
    const facts = updateFacts(update, this.#secrets)
    const now = this.#now()
    const entry: UpdateEntry = {
      updateId: facts.updateId,
      time: isoTime(now),
      type: facts.type,
      update: facts.update,
      answer: null,
      calls: [],
      seq: ++this.#seq,
      source,
    }
    if (facts.chatId !== undefined) entry.chatId = facts.chatId
    if (facts.preview !== undefined) entry.preview = facts.preview
    if (facts.content !== undefined) entry.content = facts.content
    if (replayOf !== undefined) entry.replayOf = replayOf
    if (facts.truncated) entry.truncated = true
    const tags = updateTags(facts.update)
    if (tags.length > 0) entry.tags = tags
    try {
      const thread = this.#threads.forUpdate(entry)
      if (thread) entry.thread = thread
    } catch {
      // a thread is a view: an update it cannot place is shown on its own
    }
    const meta: Meta = {at: now, inFlight: true}
    if (facts.json !== undefined) meta.json = facts.json
    if (facts.chatId !== undefined) meta.chatId = facts.chatId
    if (facts.userId !== undefined) meta.userId = facts.userId
    if (facts.queryId !== undefined) meta.queryId = facts.queryId
    ;(entry as Kept)[META] = meta
    this.#entries.push(entry)
    while (this.#entries.length > this.#limit) {
      const old = this.#entries.shift()!
      this.#dirty.delete(old)
    }
    this.#changed(entry, 'new')
    return entry
  }

  /** The bot answered (answer null: nothing to show, e.g. polling); the entry is no longer in flight. */
  finish(entry: UpdateEntry, answer: {status: number; body: string} | null, ms: number): void {
    const meta = metaOf(entry)
    if (!meta) return
    meta.inFlight = false
    entry.answer = answer ? cleanAnswer(answer, this.#secrets) : null
    if (Number.isFinite(ms)) entry.ms = Math.round(ms * 10) / 10
    this.#changed(entry, 'update')
  }

  /** Attach a call to its update (see the module comment), or to `to`; undefined when it belongs to none. */
  addCall(call: ApiCall, to?: UpdateEntry): UpdateEntry | undefined {
    const target = to && metaOf(to) ? to : this.#target(call)
    if (!target) return undefined
    const kept = cleanCall(call, this.#secrets)
    if (target.calls.length < MAX_CALLS) target.calls.push(kept)
    else target.droppedCalls = (target.droppedCalls ?? 0) + 1
    const tag = callTag(kept.method)
    if (tag && !target.tags?.includes(tag)) target.tags = TAGS.filter((t) => t === tag || target.tags?.includes(t))
    try {
      const thread = this.#threads.forCall(target, kept)
      if (thread) target.thread ??= thread
    } catch {
      // as above
    }
    this.#changed(target, 'update')
    return target
  }

  list(): UpdateEntry[] {
    return [...this.#entries].reverse()
  }

  find(updateId: number): UpdateEntry | undefined {
    for (let i = this.#entries.length - 1; i >= 0; i--)
      if (this.#entries[i].updateId === updateId) return this.#entries[i]
    if (!this.logFile) return undefined
    this.flush()
    const older = readLogFile(this.logFile)
    for (let i = older.length - 1; i >= 0; i--) if (older[i].updateId === updateId) return older[i]
    return undefined
  }

  /** The entries of a thread (a payment's updates) kept in memory, oldest first. */
  thread(id: string): UpdateEntry[] {
    return this.#entries.filter((e) => e.thread?.id === id)
  }

  last(): UpdateEntry | undefined {
    const newest = this.#entries.at(-1)
    if (newest || !this.logFile) return newest
    return readLogFile(this.logFile).at(-1)
  }

  /** Whether the entry is still waiting for the bot's answer. */
  inFlight(entry: UpdateEntry): boolean {
    return metaOf(entry)?.inFlight ?? false
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** Write pending changes to the log now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (!this.#log || this.#dirty.size === 0) return
    const entries = [...this.#dirty].sort((a, b) => a.seq - b.seq)
    this.#dirty.clear()
    this.#log.append(entries, () => this.#entries)
  }

  /** Flush and stop writing; listeners are dropped. */
  close(): void {
    this.flush()
    this.#closed = true
    this.#listeners.clear()
  }

  #target(call: ApiCall): UpdateEntry | undefined {
    const chatId =
      typeof call.chatId === 'number'
        ? call.chatId
        : typeof call.chatId === 'string' && /^-?\d+$/.test(call.chatId)
          ? Number(call.chatId)
          : undefined
    const userId = typeof call.userId === 'number' ? call.userId : undefined
    const queryId = callQueryId(call)
    const started = Date.parse(call.time)
    const when = Number.isFinite(started) ? Math.max(started, 0) : this.#now()
    const matches = (m: Meta) =>
      (queryId !== undefined && m.queryId === queryId) ||
      (chatId !== undefined && m.chatId === chatId) ||
      (userId !== undefined && (m.userId === userId || m.chatId === userId))
    const named = chatId !== undefined || userId !== undefined || queryId !== undefined
    let recent: UpdateEntry | undefined
    let onlyInFlight: UpdateEntry | undefined
    let inFlightCount = 0
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i]
      const m = metaOf(entry)!
      if (m.inFlight) inFlightCount++
      if (m.inFlight && !onlyInFlight) onlyInFlight = entry
      if (!named) continue
      if (m.inFlight && matches(m)) return entry
      // Newest first: once past the window nothing older can match, but an older in-flight one still can.
      if (!recent && !m.inFlight && m.at <= when + 1000 && when - m.at <= ATTACH_WINDOW_MS && matches(m)) recent = entry
    }
    // A call about another chat (a notice to an admin, a wrong id) made while exactly one update is being handled: that one's.
    return recent ?? (inFlightCount === 1 ? onlyInFlight : undefined)
  }

  #changed(entry: UpdateEntry, change: EntryChange): void {
    if (this.#closed) return
    if (this.#log) {
      this.#dirty.add(entry)
      this.#timer ??= setTimeout(() => {
        try {
          this.flush()
        } catch {
          // the log reports its own failures
        }
      }, this.#flushMs).unref()
    }
    if (this.#listeners.size === 0) return
    for (const listener of [...this.#listeners]) {
      try {
        listener(entry, change)
      } catch {
        // a listener that throws changes nothing
      }
    }
  }
}
