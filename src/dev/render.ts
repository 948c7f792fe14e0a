/** The one-line texts of a dev session's events: updates, refused requests, the closing summary. */
import type {RelayRejectedEvent, RelayUpdateEvent} from './relay/relay.js'

export interface DevSummary {
  relayed: number
  failures: number
  rejected: number
  /** Telegram's retries of updates the bot had already answered (answered again, not re-sent to the bot). */
  repeats: number
  restarts: number
  durationMs: number
  exitCode: number
  reason: string
  mode: 'webhook' | 'polling'
  /** Polling mode: updates the bot fetched, when something saw them (no relay there). */
  seen?: number
  /** The bot's Bot API calls that failed (seen by the api proxy; absent without it). */
  failedCalls?: number
}

function clock(iso: string): string {
  return iso.slice(11, 19)
}

export function updateText(e: RelayUpdateEvent): string {
  const id = e.updateId !== undefined ? `#${e.updateId}` : '#?'
  const chat = e.chatId !== undefined ? ` chat ${e.chatId}` : ''
  const preview = e.preview !== undefined ? ` ${JSON.stringify(e.preview)}` : ''
  const held = e.heldMs > 50 ? `, held ${e.heldMs} ms` : ''
  const mark = e.repeat ? '↺' : e.status >= 200 && e.status < 300 ? '←' : '✗'
  const repeat = e.repeat
    ? ' (sent again by Telegram: the bot already answered it; same answer returned, the bot does not see it twice)'
    : ''
  const content = e.content !== undefined ? ` ${e.content}` : ''
  return `${clock(e.time)} ${mark} ${id} ${e.updateType ?? 'update'}${content}${chat}${preview} → ${e.status} ${e.ms} ms${held}${repeat}${e.error ? ` (${e.error})` : ''}`
}

const REFUSAL_TEXT: Record<string, string> = {
  secret: 'wrong or missing secret token',
  path: 'unknown path',
  method: 'not a POST',
  body: 'body too large',
  'too-large': 'body too large',
  busy: 'too many bodies at once',
}

export function rejectedText(e: RelayRejectedEvent): string {
  const why = REFUSAL_TEXT[e.reason] ?? String(e.reason)
  return `${clock(e.time)} ✗ refused ${e.method} ${e.reason === 'path' ? e.path : '(webhook path)'} → ${e.status} (${why}; not forwarded)`
}

/** "1 update" / "2 updates": a count and its noun (English plural by -s). */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** "3.6s" / "3m12s". */
export function durationText(ms: number): string {
  const secs = ms / 1000
  return secs < 60 ? `${secs.toFixed(1)}s` : `${Math.floor(secs / 60)}m${Math.round(secs % 60)}s`
}

/**
 * The closing line, per mode. Webhook mode counts what the relay saw: updates the bot answered
 * (2xx) and failures (the bot's non-2xx, an update held until the deadline, one Telegram gave up
 * on while it was held: 499). Polling mode has no relay: it shows counts only when they are known.
 * The bot's Bot API calls that failed are counted apart ("N failed calls"): an update can be answered
 * 200 while every call made for it failed.
 */
export function summaryText(s: DevSummary): string {
  const parts: string[] = []
  if (s.mode === 'webhook') parts.push(`${plural(s.relayed, 'update')} relayed`, plural(s.failures, 'failure'))
  else if (s.seen !== undefined) parts.push(`${plural(s.seen, 'update')} seen`)
  if (s.failedCalls) parts.push(plural(s.failedCalls, 'failed call'))
  if (s.rejected) parts.push(`${s.rejected} rejected`)
  if (s.repeats) parts.push(`${s.repeats} repeated by Telegram (answered without the bot)`)
  if (s.restarts) parts.push(plural(s.restarts, 'restart'))
  return `■ bot dev ended after ${durationText(s.durationMs)}${parts.length ? `: ${parts.join(', ')}` : ''}; exit code ${s.exitCode}.`
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function readyText(
  delivery: 'tunnel' | 'bridge' | 'polling',
  url: string | undefined,
  watching: boolean,
  forwardTo?: string,
): string {
  const w = watching ? '; restarting on file changes' : ''
  const to = forwardTo ? `your server at ${forwardTo}` : 'the bot'
  if (delivery === 'tunnel')
    return `Ready: updates reach ${to} through ${url}${w}. Ctrl-C stops and puts the bot back on long polling.`
  if (delivery === 'bridge')
    return `Ready: updates reach ${to} through the polling bridge in \`bot dev\` (no webhook, no public URL)${w}. Ctrl-C stops.`
  return `Ready: the bot runs on long polling${w}. Ctrl-C stops.`
}

/** The line of a fallback to the bridge; "webhook deleted" only when one was set. */
export function fallbackText(reason: string, webhookDeleted: boolean): string {
  return `! No tunnel works (${reason}). Updates now arrive by polling through \`bot dev\` (${webhookDeleted ? 'webhook deleted, ' : ''}pending updates kept); the bot keeps running in webhook mode, same process.`
}

/** The line of a webhook session switched to polling because the bot polls by itself, and how to say so up front. */
export function switchedText(handedOver: 'webhook' | 'bridge' | 'nothing'): string {
  const what =
    handedOver === 'webhook'
      ? 'webhook deleted, pending updates kept'
      : handedOver === 'bridge'
        ? 'the polling bridge stopped, pending updates kept'
        : 'no webhook was set'
  return `! The bot polls for updates itself (it called getUpdates), so this session now runs it on long polling, same process (${what}). To say so up front: \`bot dev --mode polling\`, or "bot": {"dev": {"mode": "polling"}} in package.json.`
}
