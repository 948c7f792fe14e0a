/**
 * One update from the request to its answer: a retry of an answered update gets that answer again
 * (answers.ts), any other goes to the bot (deliver.ts) and its answer, or the relay's own 503, goes
 * back at once. What only people and the inspector need (the update line, describing the update,
 * the recording's finish) is done after the answer was written; for the bot's answers, which arrive
 * in I/O callbacks, for all the updates answered in one turn of the event loop together (setImmediate
 * runs before any client can have read one of those answers).
 */
import {isoTime} from '../../lib/iso-time.js'
import {sanitizeForTerminal} from '../../lib/terminal.js'
import type {EntrySource} from '../../inspector/types.js'
import {peekUpdateId} from '../../telegram/describe.js'
import {Attempt} from './answers.js'
import {answerText, type Deliverer, type Delivered, type DeliveryDone, detachedLink, type Link} from './deliver.js'
import {scanUpdate} from './scan.js'
import type {Conn} from './connection.js'
import type {BotAnswer} from './upstream.js'

import type {InjectResult, RelayRecorder, RelayStats, RelayUpdateEvent} from './types.js'

export interface ForwarderOptions {
  onUpdate?: (event: RelayUpdateEvent) => void
  /** Tokens to redact from previews. */
  secrets?: Array<string | undefined>
}

/** Failed update_ids remembered (the oldest are forgotten first). */
const FAILED_IDS_MAX = 10_000

export class Forwarder {
  readonly stats: RelayStats = {relayed: 0, failures: 0, rejected: 0, repeats: 0}
  recorder: RelayRecorder | undefined
  readonly deliverer: Deliverer
  readonly #options: ForwarderOptions
  /** Answered, their line and record still to come. */
  #answered: Exchange[] = []
  #flushing = false
  /** Updates not answered yet: close() waits for them, so their lines and counts come before the summary. */
  #open = 0
  #drained: (() => void) | undefined

  /** update_ids counted as failures: Telegram's retries of one are the same update, not new failures. */
  readonly #failedIds = new Set<number>()

  constructor(deliverer: Deliverer, o: ForwarderOptions) {
    this.deliverer = deliverer
    this.#options = o
  }

  /**
   * A delivery failed: counted once per update (the summary counts updates, not attempts). One that got through on a
   * later try stays a failure: the bot (or Telegram) failed it once.
   */
  failed(updateId: number | undefined): void {
    if (updateId !== undefined) {
      if (this.#failedIds.has(updateId)) return
      if (this.#failedIds.size >= FAILED_IDS_MAX) this.#failedIds.delete(this.#failedIds.values().next().value!)
      this.#failedIds.add(updateId)
    }
    this.stats.failures++
  }

  /** A webhook request with the right secret: answer it from the cache, or deliver it. */
  webhook(conn: Conn, contentType: string | undefined, body: Buffer): void {
    const ex = new Exchange(this, conn, body, performance.now(), 'webhook')
    this.#open++
    const id = (ex.updateId = peekUpdateId(body))
    if (id !== undefined) {
      // A retry of an update the bot answered (or is answering): give Telegram that answer again.
      const known = this.deliverer.answers.lookup(id)
      if (known instanceof Attempt) return known.wait((answer) => ex.retried(answer, contentType))
      if (known) return ex.answered({answer: known, heldMs: 0}, true)
    }
    ex.deliver(contentType)
  }

  /** Deliver `body` like an update from Telegram, past the answer cache (a replay, a trigger). Never rejects. */
  inject(body: Buffer | string, o: {source: 'trigger' | 'replay'; replayOf?: number}): Promise<InjectResult> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
    return new Promise<InjectResult>((resolve) => {
      const ex = new Exchange(this, undefined, bytes, performance.now(), o.source, o.replayOf)
      ex.resolve = resolve
      this.#open++
      ex.deliver('application/json')
    })
  }

  /** Resolves once every update under way was answered and reported (or at once). */
  drained(): Promise<void> {
    if (this.#open === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const before = this.#drained
      this.#drained = () => {
        before?.()
        resolve()
      }
    })
  }

  /** Report (line, record) every update answered so far. */
  flush(): void {
    const batch = this.#answered
    this.#answered = []
    this.#flushing = false
    for (const ex of batch) this.report(ex)
  }

  /** Someone wants the update lines. */
  get listening(): boolean {
    return this.#options.onUpdate !== undefined
  }

  /** An exchange was answered: its report waits for the end of this turn. */
  answered(ex: Exchange): void {
    this.#answered.push(ex)
    if (this.#flushing) return
    this.#flushing = true
    setImmediate(() => this.flush())
  }

  /** The update line and the record's finish (the line first: the recording shows failing calls after it). */
  report(ex: Exchange): void {
    try {
      if (this.#options.onUpdate) {
        // Read once per update: from the record when there is one, else by the bounded scan.
        const described =
          (ex.record !== undefined ? ex.recorder?.describe?.(ex.record) : undefined) ??
          scanUpdate(ex.body, this.#options.secrets)
        const event: RelayUpdateEvent = {
          time: isoTime(ex.answeredAt),
          updateId: described.updateId,
          updateType: described.updateType,
          chatId: described.chatId,
          preview: described.preview,
          ...(described.content !== undefined ? {content: described.content} : {}),
          status: ex.status,
          ms: ex.ms,
          heldMs: Math.round(ex.heldMs),
        }
        if (ex.repeat) event.repeat = true
        if (ex.error) event.error = ex.error
        if (ex.source !== 'webhook') event.source = ex.source
        if (ex.replayOf !== undefined) event.replayOf = ex.replayOf
        try {
          this.#options.onUpdate(event)
        } catch {
          // A listener that throws must not take the relay down.
        }
      }
      const recorder = ex.recorder
      if (recorder) {
        const text = answerText(ex.answer, ex.error)
        try {
          recorder.finish(ex.record, {status: ex.status, body: text}, ex.ms)
        } catch {
          // A recorder that throws must not take the relay down.
        }
        ex.resolve?.({
          status: ex.status,
          body: text,
          ms: ex.ms,
          ...(ex.error ? {error: ex.error} : {}),
          record: ex.record,
        })
      } else
        ex.resolve?.({
          status: ex.status,
          body: answerText(ex.answer, ex.error),
          ms: ex.ms,
          ...(ex.error ? {error: ex.error} : {}),
        })
    } finally {
      if (--this.#open === 0 && this.#drained) {
        const drained = this.#drained
        this.#drained = undefined
        drained()
      }
    }
  }
}

/** One update under way: a webhook request (with its connection) or an injected update. */
class Exchange implements DeliveryDone {
  updateId: number | undefined = undefined
  recorder: RelayRecorder | undefined = undefined
  record: unknown = undefined
  answer: BotAnswer | undefined = undefined
  error: string | undefined = undefined
  status = 0
  ms = 0
  heldMs = 0
  repeat = false
  answeredAt = 0
  resolve: ((result: InjectResult) => void) | undefined = undefined

  constructor(
    readonly f: Forwarder,
    readonly conn: Conn | undefined,
    readonly body: Buffer,
    readonly started: number,
    readonly source: EntrySource,
    readonly replayOf?: number,
  ) {}

  deliver(contentType: string | undefined): void {
    const f = this.f
    const link: Link = this.conn ?? detachedLink()
    try {
      f.deliverer.deliver(this.body, contentType, this.started, this.updateId, link, this)
    } catch (bug) {
      return this.delivered({heldMs: 0, bug})
    }
    // Recorded once it is on its way to the bot: the recorder's work is not in the bot's path.
    const recorder = f.recorder
    if (recorder) {
      this.recorder = recorder
      try {
        this.record = recorder.begin(this.body, this.source, this.replayOf, this.updateId)
      } catch {
        this.record = undefined
      }
    }
  }

  /** The delivery this retry waited for ended: its answer is this one's, or this one goes to the bot itself. */
  retried(answer: BotAnswer | undefined, contentType: string | undefined): void {
    if (answer) this.answered({answer, heldMs: 0}, true)
    else this.deliver(contentType)
  }

  delivered(result: Delivered): void {
    // The bot's answer arrives in an I/O callback: its report can wait for the end of this turn (the
    // client reads the answer in a later one). Any other outcome may come from a timer: reported now.
    this.answered(result, false, result.answer !== undefined)
  }

  /** Answer the request (when there is one), count it, and report it (`later`: at the end of this turn). */
  answered(result: Delivered, repeat: boolean, later = false): void {
    const f = this.f
    const conn = this.conn
    const {answer} = result
    let error = result.error
    let status: number
    if (result.bug !== undefined) {
      // A bug: answer 500 (Telegram retries), report it, keep serving.
      const message = result.bug instanceof Error ? result.bug.message : String(result.bug)
      error = `relay error: ${sanitizeForTerminal(message).slice(0, 200)}`
      status = 500
      if (conn) conn.respond(500, 'content-type: text/plain\r\n', 'bot dev: relay error\n', true)
    } else if (answer) {
      status = answer.status
      if (conn) conn.respond(status, answer.contentType ? `content-type: ${answer.contentType}\r\n` : '', answer.text)
    } else if (conn?.gone) {
      status = 499 // nginx's "client closed request": nothing was sent back
      conn.respond(499, '', '') // gives the budget back; the connection is closed already
    } else {
      status = 503
      if (conn) conn.respond(503, 'content-type: text/plain\r\nretry-after: 1\r\n', latin1(`bot dev: ${error}\n`))
    }
    if (repeat) f.stats.repeats++
    else if (status >= 200 && status < 300) f.stats.relayed++
    else f.failed(this.updateId)
    this.answer = answer
    this.error = error
    this.status = status
    this.repeat = repeat
    this.heldMs = result.heldMs
    this.ms = Math.round((performance.now() - this.started) * 10) / 10
    this.answeredAt = Date.now()
    // Nobody to tell (no line, no recording, no caller): nothing more to do.
    if (!this.recorder && !this.resolve && !f.listening) f.report(this)
    else if (later && !this.resolve) f.answered(this)
    else f.report(this)
  }
}

/** Text of the relay's own (UTF-8) as the latin1 string of its bytes, for a latin1 write. */
function latin1(text: string): string {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1')
  return text
}
