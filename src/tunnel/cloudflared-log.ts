/**
 * Reads cloudflared's log (zerolog console lines on stderr: `<time> <LVL> <message> <k=v…>`) and
 * finds the three things a supervisor needs: the quick tunnel's URL (the line after the banner
 * "Your quick Tunnel has been created! …", boxed in `|`), the first "Registered tunnel connection",
 * and the known failures (rate limit, the quick tunnel request failing, no network).
 *
 * Bounded: a line longer than MAX_LINE characters is cut, and only the last TAIL_LINES lines are
 * kept (for error messages), with every URL's path blanked (cloudflared's request errors name the
 * full URL, which carries the webhook's secret path).
 */

export const MAX_LINE = 4096
export const TAIL_LINES = 12

export type CloudflaredEvent =
  | {type: 'url'; url: string}
  | {type: 'registered'}
  | {type: 'failure'; reason: string; kind: CloudflaredFailure}

/** rate-limited: HTTP 429 / error 1015; request: the quick tunnel request failed; network: no network or DNS. */
export type CloudflaredFailure = 'rate-limited' | 'request' | 'network' | 'edge'

const BANNER = /Your quick Tunnel has been created!/
const BOXED_URL = /\|\s*(https?:\/\/[^\s|]+)\s*\|/
const REGISTERED = /Registered tunnel connection|\bConnection [0-9a-f-]{8,} registered\b/
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g
const NETWORK =
  /no such host|network is unreachable|i\/o timeout|connection refused|server misbehaving|temporary failure in name resolution|dial tcp/i

/** Drops the time stamp cloudflared puts in front of each line, for shorter messages. */
export function withoutTime(line: string): string {
  return line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)\s+/, '')
}

/** Blanks the path, query and fragment of every URL in a line (`https://host/secret` → `https://host/…`). */
export function redactPaths(line: string): string {
  return line
    .replace(/\b(https?:\/\/[^\s/"'|?#]+)[/?#][^\s"'|]*/g, (_m, origin: string) => `${origin}/…`)
    .replace(/\b(path|uri|url)=("[^"]*"|\S+)/g, '$1=…')
}

/** What a known failure line means, or undefined. */
export function classifyFailure(line: string): {kind: CloudflaredFailure; reason: string} | undefined {
  const text = withoutTime(line)
  if (/429 Too Many Requests|error code: 1015/.test(text)) {
    return {
      kind: 'rate-limited',
      reason:
        'trycloudflare.com refused a new quick tunnel: too many requests from this address (HTTP 429, Cloudflare error 1015)',
    }
  }
  const failed = /failed to (?:request|unmarshal) quick Tunnel: ?(.*)$/i.exec(text)
  if (failed) {
    const detail = failed[1] ?? ''
    if (/^failed to request/i.test(text) && NETWORK.test(detail)) {
      return {
        kind: 'network',
        reason: `cloudflared could not reach api.trycloudflare.com (${shortDetail(detail)}): no network, or DNS or a firewall blocks it`,
      }
    }
    return {
      kind: 'request',
      reason: `cloudflared could not get a quick tunnel from trycloudflare.com (${shortDetail(detail)})`,
    }
  }
  if (/ERR .*Error unmarshaling QuickTunnel response/.test(text)) {
    const status = /status_code="([^"]+)"/.exec(text)?.[1]
    return {
      kind: 'request',
      reason: `trycloudflare.com answered the quick tunnel request with an error${status ? ` (HTTP ${status})` : ''}`,
    }
  }
  if (/initial tunnel connection failed/i.test(text)) {
    return {
      kind: 'edge',
      reason: "cloudflared could not connect to Cloudflare's edge (a firewall may block UDP port 7844)",
    }
  }
  return undefined
}

function shortDetail(detail: string): string {
  const text = redactPaths(detail.trim())
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || 'no detail'
}

/**
 * Feed it chunks of cloudflared's output; it calls `onEvent` for the URL (once), the first
 * registration (once, only after the URL) and each known failure.
 */
export class CloudflaredLog {
  private partial = ''
  /** True while the rest of an over-long line is being skipped. */
  private skipping = false
  private afterBanner = false
  private url?: string
  private registered = false
  private readonly tail: string[] = []

  constructor(private readonly onEvent: (event: CloudflaredEvent) => void) {}

  /** The last lines (at most TAIL_LINES), time stamps dropped, URL paths blanked. */
  lastLines(): string[] {
    return [...this.tail]
  }

  /** The last line that looks like an error (ERR, or a bare line such as "failed to …"). */
  lastError(): string | undefined {
    for (let i = this.tail.length - 1; i >= 0; i--) {
      const line = this.tail[i]!
      if (/^(?:ERR|FTL|PNC)\b/.test(line) || !/^(?:INF|WRN|DBG)\b/.test(line)) return line
    }
    return undefined
  }

  push(chunk: string): void {
    let start = 0
    for (;;) {
      const nl = chunk.indexOf('\n', start)
      const piece = nl < 0 ? chunk.slice(start) : chunk.slice(start, nl)
      if (!this.skipping) {
        const room = MAX_LINE - this.partial.length
        if (piece.length > room) {
          this.partial += piece.slice(0, room)
          this.skipping = true
        } else {
          this.partial += piece
        }
      }
      if (nl < 0) {
        // An over-long line is handled as soon as it is cut, not when (if ever) it ends.
        if (this.skipping && this.partial) this.flush()
        return
      }
      if (!this.skipping || this.partial) this.flush()
      this.skipping = false
      start = nl + 1
    }
  }

  /** Handles what is left without a line end (the process ended). */
  end(): void {
    if (this.partial) this.flush()
    this.skipping = false
  }

  private flush(): void {
    const line = this.partial.replace(/\r$/, '')
    this.partial = ''
    this.line(line)
  }

  private line(raw: string): void {
    const text = withoutTime(raw.replace(ANSI, '')).trim()
    if (!text) return
    this.tail.push(redactPaths(text))
    if (this.tail.length > TAIL_LINES) this.tail.shift()

    if (this.url === undefined) {
      if (BANNER.test(text)) {
        this.afterBanner = true
        return
      }
      if (this.afterBanner) {
        const m = BOXED_URL.exec(text)
        if (m && isHttpUrl(m[1]!)) {
          this.url = m[1]!.replace(/\/+$/, '')
          this.onEvent({type: 'url', url: this.url})
          return
        }
      }
    } else if (!this.registered && REGISTERED.test(text)) {
      this.registered = true
      this.onEvent({type: 'registered'})
      return
    }
    const failure = classifyFailure(text)
    if (failure) this.onEvent({type: 'failure', ...failure})
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== ''
  } catch {
    return false
  }
}
