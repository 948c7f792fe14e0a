/** The relay's options, events and counters (see relay.ts). */
import type {EntrySource} from '../../inspector/types.js'
import type {UpdateDescription} from '../../telegram/describe.js'
import type {RelayRefusedSummaryEvent, RelayRejectedEvent} from './refusals.js'
import type {UpstreamTarget} from './upstream.js'

export type RelayTarget = UpstreamTarget

export interface RelayUpdateEvent {
  time: string
  updateId?: number
  updateType?: string
  chatId?: number
  /** A short preview of the update's text: tokens redacted, terminal controls escaped, then cut. */
  preview?: string
  /** What a message holds: `photo`, `document`, `voice`, `location`, `successful_payment 1 XTR`, … (none for text). */
  content?: string
  /** Status sent back to Telegram. */
  status: number
  ms: number
  /** Time spent waiting for the bot to listen. */
  heldMs: number
  /**
   * Telegram sent this update again (its copy of our answer was lost, e.g. a dropped tunnel, or it
   * timed out while the bot worked): the bot's earlier answer was sent back and the bot did not see it twice.
   */
  repeat?: boolean
  /** Why the relay answered by itself (the bot never answered). */
  error?: string
  /** Not a webhook POST from Telegram: delivered by `relay.inject` (bot trigger, a replay), or seen in the bot's getUpdates (polling). */
  source?: Exclude<EntrySource, 'webhook'>
  /** For a replay: the update_id it replays. */
  replayOf?: number
}

/**
 * Sees each update the relay forwards (not Telegram's repeats of answered ones): its body when it
 * arrives and the answer Telegram (or inject's caller) got. Set only while someone records (the
 * inspector); without one the relay does no extra work. Both calls are guarded: a throw changes nothing.
 */
export interface RelayRecorder {
  /** The update arrived (`updateId`: what the relay read of it, when it did); what it returns is handed to finish. */
  begin(body: Buffer, source: EntrySource, replayOf?: number, updateId?: number): unknown
  /**
   * What the update line shows of a recorded update, when the recorder read it already (the relay
   * then does not read the body again); undefined, and the relay reads it itself.
   */
  describe?(record: unknown): UpdateDescription | undefined
  /** The update was answered: the status and body sent back (the relay's own 503 when the bot never answered). */
  finish(record: unknown, answer: {status: number; body: string}, ms: number): void
}

/** What `relay.inject` got. */
export interface InjectResult {
  status: number
  /** The bot's answer body (utf-8), or the relay's own text when the bot never answered. */
  body: string
  ms: number
  /** Why the relay answered by itself. */
  error?: string
  /** What the recorder's begin returned, when one is set. */
  record?: unknown
}

export interface RelayOptions {
  secret: string
  /** The path Telegram posts to (the random webhook path). */
  path: string
  holdTimeoutMs?: number
  healthPath?: string
  host?: string
  port?: number
  /** Largest update body accepted (413 beyond). Default 4 MiB: real updates are a few KB. */
  maxBodyBytes?: number
  /** Most body bytes held across all requests at once (503 beyond, so Telegram retries). Default 32 MiB. */
  maxBufferedBytes?: number
  /** A request's headers must arrive within this time. Default 10 s. */
  headersTimeoutMs?: number
  /** A request (headers and body) must arrive within this time; holding it afterwards is not limited by it. Default 30 s. */
  bodyTimeoutMs?: number
  /** Tokens to redact from previews (anything token-shaped is redacted anyway). */
  secrets?: Array<string | undefined>
  onUpdate?: (event: RelayUpdateEvent) => void
  /** The first few refused requests, one by one (then see onRefusedSummary). */
  onRejected?: (event: RelayRejectedEvent) => void
  /** Refusals not reported one by one, once per minute while they go on. */
  onRefusedSummary?: (event: RelayRefusedSummaryEvent) => void
  /** How often refusals are summarised. Default 60 s. */
  refusalWindowMs?: number
  /**
   * Most connections without an authenticated request (idle between requests, sending a head):
   * beyond, the longest idle is closed first. Default 256 (Telegram opens at most 100).
   */
  maxAnonymousConnections?: number
  /**
   * `bot dev --web-app URL`: requests under `/app/` go to the web app's dev server at `url` (app.ts), WebSocket
   * upgrades too; `{bot: true}` (plain `bot dev` with a public URL): to the bot's own server, the target webhooks go
   * to at that moment, path kept (`/app/x` → `/app/x`). Without it they get 404 like any other path.
   */
  app?:
    | {url: string; timeoutMs?: number; maxConnections?: number}
    | {bot: true; timeoutMs?: number; maxConnections?: number}
}

export interface RelayStats {
  relayed: number
  failures: number
  rejected: number
  /** Retries of updates the bot had already answered, answered again without the bot. */
  repeats: number
}
