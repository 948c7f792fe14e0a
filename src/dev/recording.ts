/**
 * What a `bot dev` session records (inspector/history): each update the relay forwards, with the
 * bot's answer; each Bot API call of the bot the api proxy sees (attached to its update), and in
 * polling mode the updates its getUpdates got; and the actions behind `bot trigger`, `bot replay`
 * and the page's Replay (control/actions.ts), which know the updates they injected.
 *
 * What the terminal shows of it: a failing call as `  ↳ sendMessage 400 Bad Request: …` under its
 * update (held until that update's line is out), an update seen in polling mode as one line, and
 * where an injected update came from.
 */
import {join} from 'node:path'

import {TriggerEngine, type OfflineTarget} from '../control/actions.js'
import {SessionFacts} from '../control/session-facts.js'
import {nextSyntheticUpdateId} from '../control/synthetic.js'
import {buildCall, redactorFor} from '../inspector/proxy/call-record.js'
import {LocalAnswers} from '../inspector/proxy/local-answers.js'
import type {RawCall} from '../inspector/proxy/api-proxy.js'
import {FailedCallLines} from '../inspector/history/failed-lines.js'
import {ATTACH_WINDOW_MS, UpdateHistory} from '../inspector/history/history.js'
import {pollingUpdateText, sourceSuffix} from '../inspector/render.js'
import type {ApiCall, EntrySource, UpdateEntry} from '../inspector/types.js'
import {isUpdateObject, peekUpdateId, withContent, type UpdateDescription} from '../telegram/describe.js'
import type {CallRow} from '../control/protocol.js'
import type {DevEvent, DevEventSink} from './events.js'
import type {Relay} from './relay/relay.js'
import {isJsonObject} from '../lib/json-object.js'

export interface SessionRecordingOptions {
  token: string
  mode: 'webhook' | 'polling'
  /** The bot's calls go through the api proxy (default true): false, and polled updates are recorded as they are put in. */
  apiProxy?: boolean
  /** Offline: triggers go into the emulator as its user's actions. */
  offline?: OfflineTarget
  /** Where the history log goes (the session's state folder; offline, a folder per project). */
  keepDir: string
  /** An update handed to the bot through the relay by a trigger or replay (offline: the emulator learns its chats). */
  beforeInject?: (update: Record<string, unknown>) => void
  emit: DevEventSink
  /** How long a trigger or replay waits for the bot's answer. Default 30 s (the control port waits 35 s). */
  actionTimeoutMs?: number
  /** How long the bot has to answer a synthetic pre-checkout query (default 10 s, as on Telegram). */
  preCheckoutWindowMs?: number
  /** Why the bot cannot take an update now (it exited and waits for a fix), else undefined. */
  botDown?: () => string | undefined
}

/** The query answered by a method, and the parameter that names it (a webhook reply can answer a synthetic query). */
const ANSWER_PARAMS: Record<string, string> = {
  answercallbackquery: 'callback_query_id',
  answerinlinequery: 'inline_query_id',
  answershippingquery: 'shipping_query_id',
  answerprecheckoutquery: 'pre_checkout_query_id',
}

/** The bot's calls kept for `bot mcp`'s list_calls (the newest). */
const CALLS_KEPT = 1000

/** update_ids of polling updates already shown (getUpdates may return one again). */
const SEEN_MAX = 5000
/** Polled updates counted as being handled at once (getUpdates returns at most 100). */
const POLLING_MAX = 200

export class SessionRecording {
  readonly #options: SessionRecordingOptions
  /** Redacted from everything the history keeps; the webhook secret and path join once known. */
  readonly #secrets: string[]
  #history: UpdateHistory | undefined
  #relay: Relay | undefined
  readonly #lines: FailedCallLines
  #seenPolling = new RecentIds(SEEN_MAX)
  /** Polled updates the bot may still be handling. */
  #polling = new Set<UpdateEntry>()
  /** update_ids of updates seen in this session (a synthetic id skips them), and the last synthetic one. */
  readonly #seenIds = new RecentIds(SEEN_MAX)
  #lastSynthetic: number | undefined
  #bot: {id: number; first_name?: string; username?: string} | undefined
  /** How the session delivers now (a webhook session switches to polling when the bot polls by itself). */
  #mode: 'webhook' | 'polling'
  readonly triggers: TriggerEngine
  /** What the session saw that triggers are filled with (the last chat and user, the bot's messages). */
  readonly facts = new SessionFacts()
  /** The api proxy's own answers to the ids triggers make up (synthetic queries, files, charges). */
  readonly local = new LocalAnswers()

  constructor(o: SessionRecordingOptions) {
    this.#options = o
    this.#mode = o.mode
    this.#secrets = [o.token]
    this.#lines = new FailedCallLines((line) => o.emit(line))
    const recording = this
    this.triggers = new TriggerEngine({
      // Read on each action: it follows a switch to polling.
      get mode() {
        return recording.#mode
      },
      offline: o.offline,
      timeoutMs: o.actionTimeoutMs ?? 30_000,
      bot: () => this.#bot,
      history: () => this.#history,
      relay: () => this.#injector(),
      // Down from 2^31-1: never Telegram's next real update_id (see nextSyntheticUpdateId).
      nextUpdateId: () =>
        (this.#lastSynthetic = nextSyntheticUpdateId(this.#lastSynthetic, (id) => this.#seenIds.has(id))),
      // Offline polling without the proxy: nothing sees the bot's getUpdates, so the injected update is recorded here.
      recordDirectly: o.mode === 'polling' && o.apiProxy === false,
      facts: this.facts,
      local: this.local,
      ...(o.preCheckoutWindowMs !== undefined ? {preCheckoutWindowMs: o.preCheckoutWindowMs} : {}),
      ...(o.botDown ? {botDown: o.botDown} : {}),
    })
  }

  get history(): UpdateHistory | undefined {
    return this.#history
  }

  /** The session delivers by polling from now on (the bot polls by itself). */
  switchToPolling(): void {
    this.#mode = 'polling'
  }

  /** The webhook secret and path, redacted from the history from now on. */
  addSecrets(...secrets: string[]): void {
    for (const s of secrets) if (s && !this.#secrets.includes(s)) this.#secrets.push(s)
  }

  /** The secrets redacted from everything kept (the api proxy and the servers redact them too). */
  get secrets(): string[] {
    return this.#secrets
  }

  /** Start the history of this bot (its JSONL log in the state folder). */
  open(bot: {id: number; first_name?: string; username?: string}): UpdateHistory {
    this.#bot = bot
    const history = new UpdateHistory({
      logFile: join(this.#options.keepDir, `history-${bot.id}.jsonl`),
      secrets: this.#secrets,
      onError: (text) => this.#options.emit({type: 'warn', text}),
    })
    this.#history = history
    return history
  }

  /** The relay as trigger and replay use it: what they hand the bot is shown to beforeInject first. */
  #injector(): Relay | Pick<Relay, 'inject'> | undefined {
    const relay = this.#relay
    const before = this.#options.beforeInject
    if (!relay || !before) return relay
    return {
      inject: (body, options) => {
        try {
          const update: unknown = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))
          if (isUpdateObject(update)) before(update)
        } catch {
          // not for us to judge: the bot gets it as it is
        }
        return relay.inject(body, options)
      },
    }
  }

  /** Record what the relay forwards. */
  attachRelay(relay: Relay): void {
    this.#relay = relay
    relay.setRecorder({
      begin: (body, source, replayOf, updateId) => this.#begin(body, source, replayOf, updateId),
      finish: (record, answer, ms) => this.#finish(record as UpdateEntry | undefined, answer, ms),
      describe: (record) => describeEntry(record as UpdateEntry | undefined),
    })
  }

  /** Marks an update line with where an injected update came from (called on every event before it is sent on). */
  decorate(event: DevEvent): void {
    if (event.type !== 'update') return
    // Offline, a trigger reaches the relay from the emulator like any update: the actions know it.
    const expected =
      event.source === undefined && event.updateId !== undefined ? this.triggers.expected(event.updateId) : undefined
    if (expected && expected.source !== 'webhook') {
      event.source = expected.source
      if (expected.replayOf !== undefined) event.replayOf = expected.replayOf
    }
    if (event.source === 'trigger' || event.source === 'replay')
      event.text += sourceSuffix(event.source, event.replayOf)
  }

  #begin(body: Buffer, source: EntrySource, replayOf?: number, updateId?: number): UpdateEntry | undefined {
    const history = this.#history
    if (!history) return undefined
    const id = updateId ?? peekUpdateId(body)
    const expected = id !== undefined ? this.triggers.expected(id) : undefined
    const entry = history.begin(body, expected?.source ?? source, expected?.replayOf ?? replayOf)
    this.#seen(entry.updateId)
    this.#note(entry, 'webhook')
    return entry
  }

  /** What triggers learn from an update (the last real chat and user, the user's messages); never breaks its recording. */
  #note(entry: UpdateEntry, real: EntrySource): void {
    try {
      this.facts.noteUpdate(entry.update, entry.source === real)
    } catch {
      // an update the facts cannot read is only recorded
    }
  }

  #seen(updateId: number): void {
    this.#seenIds.add(updateId)
  }

  #finish(entry: UpdateEntry | undefined, answer: {status: number; body: string}, ms: number): void {
    if (!entry) return
    // A call made in the webhook answer never reaches the api proxy: it is recorded from the answer.
    const reply = webhookReply(answer)
    if (reply) {
      // A synthetic query answered in the webhook reply (never seen by the api proxy): a trigger waiting for it learns it.
      const param = ANSWER_PARAMS[reply.method.toLowerCase()]
      const queryId = param ? reply.params[param] : undefined
      if (typeof queryId === 'string' || typeof queryId === 'number')
        this.local.answeredElsewhere(String(queryId), reply.params)
    }
    if (reply) {
      const call: ApiCall = {
        ...buildCall(
          {method: reply.method, params: reply.params, started: Date.now(), ms: 0, status: 200, envelope: {ok: true}},
          redactorFor(this.#secrets),
        ),
        webhookReply: true,
      }
      this.#history?.addCall(call, entry)
      this.#keepCall(call, entry)
    }
    this.#history?.finish(entry, answer, ms)
    // The update's line is out (the relay emits it first): now the failing calls made for it.
    this.#lines.finished(entry)
    this.triggers.settled(entry)
  }

  /** The bot's Bot API calls that failed, as the api proxy saw them (the closing line counts them). */
  failedCalls = 0

  /** The bot's newest calls (oldest first), each with the update it was attached to: what `bot mcp` lists. */
  readonly #calls: CallRow[] = []

  get calls(): readonly CallRow[] {
    return this.#calls
  }

  #keepCall(call: ApiCall, entry: UpdateEntry | undefined): void {
    this.#calls.push(entry ? {...call, updateId: entry.updateId} : call)
    if (this.#calls.length > CALLS_KEPT) this.#calls.splice(0, this.#calls.length - CALLS_KEPT)
  }

  /** Told each call the api proxy saw, with its parameters and result as sent and received (the online chat page). */
  readonly #rawListeners = new Set<(call: ApiCall, raw: RawCall) => void>()

  /** Listen to the bot's calls as sent and received (not redacted: what is shown must be); returns an unsubscribe. */
  onRawCall(listener: (call: ApiCall, raw: RawCall) => void): () => void {
    this.#rawListeners.add(listener)
    return () => this.#rawListeners.delete(listener)
  }

  /** A Bot API call the api proxy saw (with its parameters and result as sent and received). */
  onCall(call: ApiCall, raw?: RawCall): void {
    if (!call.ok) this.failedCalls++
    if (raw)
      for (const listener of this.#rawListeners)
        try {
          listener(call, raw)
        } catch {
          // a listener never breaks the recording
        }
    try {
      this.facts.noteCall(call.method, raw?.params ?? call.params, raw?.result ?? call.result, call.ok)
    } catch {
      // what triggers learn from a call never breaks its recording
    }
    const history = this.#history
    if (!history) return
    if (call.method.toLowerCase() === 'getupdates') {
      // Not about any update; its offset says which polled updates the bot is done with.
      this.#polled(Number(call.params?.offset))
      if (!call.ok) {
        this.#lines.failed(call, undefined, false)
        this.#keepCall(call, undefined)
      }
      return
    }
    const entry = history.addCall(call)
    this.#keepCall(call, entry)
    // A polled update's line is out already: its failing calls need not wait.
    if (!call.ok)
      this.#lines.failed(call, entry, entry !== undefined && history.inFlight(entry) && !this.#polling.has(entry))
  }

  /**
   * Polled updates count as being handled (calls about another chat go to the one being handled)
   * until the bot asks for updates past them, or for 60 s at most.
   */
  #polled(offset: number): void {
    const stale = Date.now() - ATTACH_WINDOW_MS
    for (const entry of this.#polling) {
      if (entry.updateId < offset || Date.parse(entry.time) < stale) {
        this.#polling.delete(entry)
        this.#history?.finish(entry, null, 0)
      }
    }
  }

  /** Polling: the updates the bot's getUpdates got, one line each (a repeat of one already shown is skipped). */
  onPollingUpdates(updates: unknown[]): void {
    const history = this.#history
    if (!history || !Array.isArray(updates)) return
    for (const update of updates) {
      const id = (update as {update_id?: unknown})?.update_id
      if (typeof id !== 'number' || this.#seenPolling.has(id)) continue
      this.#seenPolling.add(id)
      const expected = this.triggers.expected(id)
      const entry = history.begin(update, expected?.source ?? 'polling', expected?.replayOf)
      this.#note(entry, 'polling')
      const evicted = addBounded(this.#polling, entry, POLLING_MAX)
      if (evicted) history.finish(evicted, null, 0)
      this.#seen(entry.updateId)
      this.#options.emit(pollingEvent(entry))
      this.triggers.settled(entry)
    }
  }
}

/**
 * The newest `max` ids seen, in O(1) per id (a Set trimmed from its front with values().next() walks
 * over every deleted slot before the next live one: ~2 µs per update at 5000 ids).
 */
class RecentIds {
  readonly #set = new Set<number>()
  readonly #ring: number[] = []
  #next = 0

  constructor(readonly max: number) {}

  has(id: number): boolean {
    return this.#set.has(id)
  }

  add(id: number): void {
    if (this.#set.has(id)) return
    if (this.#ring.length < this.max) this.#ring.push(id)
    else {
      this.#set.delete(this.#ring[this.#next])
      this.#ring[this.#next] = id
      this.#next = (this.#next + 1) % this.max
    }
    this.#set.add(id)
  }
}

/** Add `value` to `set`; past `max` entries the oldest goes, and is returned. */
function addBounded<T>(set: Set<T>, value: T, max: number): T | undefined {
  set.add(value)
  if (set.size <= max) return undefined
  const oldest = set.values().next().value as T
  set.delete(oldest)
  return oldest
}

/** The Bot API call in a webhook answer (`{"method": "sendMessage", …}`), if it is one. */
export function webhookReply(answer: {
  status: number
  body: string
}): {method: string; params: Record<string, unknown>} | undefined {
  if (
    answer.status < 200 ||
    answer.status >= 300 ||
    answer.body.length > 64 * 1024 ||
    !answer.body.trimStart().startsWith('{') ||
    // No "method" key can be in it (written out, or with \u escapes): the usual `{}` or `{"ok":true}`.
    (!answer.body.includes('method') && !answer.body.includes('\\u'))
  )
    return undefined
  try {
    const parsed: unknown = JSON.parse(answer.body)
    if (!isJsonObject(parsed)) return undefined
    const {method, ...params} = parsed
    return typeof method === 'string' && /^[A-Za-z]{1,64}$/.test(method) ? {method, params} : undefined
  } catch {
    return undefined
  }
}

/**
 * What the update line shows of a recorded update, as the history read it (the same fields, read the
 * same way, as the relay's scan); undefined, and the relay scans the body, for one the history could
 * not read, one without an update_id, and one too large to keep whole (the scan reads its first 64 KiB).
 */
function describeEntry(entry: UpdateEntry | undefined): UpdateDescription | undefined {
  if (!entry || entry.truncated || entry.type === 'unknown' || (entry.updateId === 0 && !hasUpdateId(entry.update)))
    return undefined
  return {
    updateId: entry.updateId,
    updateType: entry.type,
    chatId: entry.chatId,
    preview: entry.preview,
    ...withContent(entry.content),
  }
}

function hasUpdateId(update: unknown): boolean {
  return typeof (update as {update_id?: unknown} | null)?.update_id === 'number'
}

/** The 'update' event of an update seen in the bot's getUpdates (no relay, so no answer or time of its own). */
export function pollingEvent(entry: UpdateEntry): DevEvent {
  return {
    type: 'update',
    time: entry.time,
    updateId: entry.updateId,
    updateType: entry.type,
    ...(entry.chatId !== undefined ? {chatId: entry.chatId} : {}),
    ...(entry.preview !== undefined ? {preview: entry.preview} : {}),
    ...withContent(entry.content),
    status: 200,
    ms: 0,
    heldMs: 0,
    source: entry.source === 'webhook' ? 'polling' : entry.source,
    ...(entry.replayOf !== undefined ? {replayOf: entry.replayOf} : {}),
    text: pollingUpdateText(entry),
  }
}
