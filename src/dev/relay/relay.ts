/**
 * The relay: a local HTTP server between the tunnel and the bot. It speaks HTTP/1.1 itself
 * (server.ts, the strict subset Telegram and tunnels send) and forwards over kept-alive connections
 * of its own (upstream.ts): one read and one write on each side per update.
 *
 * - POST <path> with the right X-Telegram-Bot-Api-Secret-Token is forwarded to the bot
 *   (PORT + WEBHOOK_PATH, upstream.ts); the bot's status, content type and body go back
 *   unchanged, so webhook replies work and a 5xx makes Telegram retry.
 * - A wrong or missing secret gets 401, any other path 404, another method 405: answered at once
 *   with `Connection: close`, the body never read, never forwarded (a tunnel URL is public).
 *   They are reported a few at a time, then summarised (refusals.ts).
 * - Bodies are capped per request (413) and in total across requests (503, Telegram retries);
 *   slow headers and slow bodies time out. A held request (complete, waiting for the bot) is not
 *   affected by those timeouts: it waits up to holdTimeoutMs.
 * - While the bot is restarting or not yet listening, requests are held (up to holdTimeoutMs)
 *   and sent once it listens; after the deadline they get 503 so Telegram retries later
 *   (deliver.ts).
 * - A retry of an update the bot already answered gets that answer again (answers.ts).
 * - GET <healthPath> answers `bot-dev <nonce>` for tunnel probes.
 * - With `app` (bot dev --web-app), a connection whose request is under `/app` is handed over whole to the web
 *   app's dev server forwarder (app.ts): requests and WebSocket upgrades under `/app/` reach the dev server, what
 *   follows on that connection and is not the app's comes back here untouched. With `app: {bot: true}` (plain
 *   bot dev with a public URL) the same forwarder sends `/app/` to the bot's own server, the current target.
 * - One event per update after the answer is sent, for the updates answered in one turn together
 *   (forward.ts); the fields of the line are read by a bounded scan (scan.ts), not JSON.parse.
 * - Connections without an authenticated request are bounded (maxAnonymousConnections, the
 *   longest idle closed first), so idle or slow clients cannot use up the process's descriptors.
 * - A recorder (the inspector's history, setRecorder) sees each update's body and answer; `inject`
 *   delivers a body like an update from Telegram but past the answer cache (replays, triggers).
 * - Nothing a request does can throw out of the handler: a bug answers 500 and is reported as
 *   an update event with `error`; the server keeps serving.
 */
import {randomBytes} from 'node:crypto'

import {waitAtMost} from '../../lib/deadline.js'
import {sanitizeForTerminal} from '../../lib/terminal.js'
import {APP_PATH, AppForward, isAppPath} from './app.js'
import {Deliverer} from './deliver.js'
import {Forwarder} from './forward.js'
import {sameSecret, secretBytes} from './intake.js'
import {RefusalLog, type RefusalReason} from './refusals.js'
import type {RequestHead} from './request-head.js'
import type {Conn} from './connection.js'
import {RelayServer} from './server.js'

import type {InjectResult, RelayOptions, RelayRecorder, RelayStats, RelayTarget} from './types.js'

export {describeUpdate, peekUpdateId, safePreview, PREVIEW_MAX} from '../../telegram/describe.js'
export type {
  InjectResult,
  RelayOptions,
  RelayRecorder,
  RelayStats,
  RelayTarget,
  RelayUpdateEvent,
} from './types.js'
export {refusedSummaryText} from './refusals.js'
export type {RelayRefusedSummaryEvent, RelayRejectedEvent, RefusalReason} from './refusals.js'

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token'
export const DEFAULT_HEALTH_PATH = '/__bot-dev/health'

const REFUSAL_BODY: Record<number, string> = {
  401: 'Unauthorized\n',
  404: 'Not Found\n',
  405: 'Method Not Allowed\n',
}

export class Relay {
  readonly path: string
  readonly healthPath: string
  /** Sent back by the health path, so a probe knows it reached this relay. */
  readonly nonce = randomBytes(8).toString('hex')
  readonly stats: RelayStats
  #secret: Buffer
  #server: RelayServer
  #deliverer: Deliverer
  #forwarder: Forwarder
  #refusals: RefusalLog
  #closed = false
  #port = 0
  #aliases = new Set<string>()
  /** `/app/`: the web app's dev server (--web-app), or the bot's own server, when given. */
  #app: AppForward | undefined

  constructor(options: RelayOptions) {
    this.path = options.path
    this.healthPath = options.healthPath ?? DEFAULT_HEALTH_PATH
    this.#secret = secretBytes(options.secret)
    this.#deliverer = new Deliverer(options.secret, options.holdTimeoutMs ?? 30_000)
    this.#forwarder = new Forwarder(this.#deliverer, {onUpdate: options.onUpdate, secrets: options.secrets})
    this.stats = this.#forwarder.stats
    this.#refusals = new RefusalLog({
      onEach: options.onRejected,
      onSummary: options.onRefusedSummary,
      windowMs: options.refusalWindowMs,
    })
    const headersTimeoutMs = options.headersTimeoutMs ?? 10_000
    const app = options.app
    if (app && 'url' in app) this.#app = new AppForward({...app, relayPort: () => this.#port})
    else if (app)
      // Plain bot dev: the bot's own server, wherever the webhooks go now (a restart moves it to a fresh port).
      this.#app = new AppForward({
        timeoutMs: app.timeoutMs,
        maxConnections: app.maxConnections,
        relayPort: () => this.#port,
        url: () => {
          const t = this.#deliverer.target
          return t ? `http://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}${APP_PATH}` : undefined
        },
        unreachable: (url, reason) =>
          url
            ? `bot dev: your bot's server did not answer /app/ (${reason}). It serves its Mini App there itself: see its output.\n`
            : 'bot dev: your bot is not listening right now (starting or restarting). Reload in a moment.\n',
      })
    this.#server = new RelayServer(
      {
        host: options.host ?? '127.0.0.1',
        port: options.port ?? 0,
        maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
        maxBufferedBytes: options.maxBufferedBytes ?? 32 * 1024 * 1024,
        headersTimeoutMs,
        requestTimeoutMs: Math.max(headersTimeoutMs, options.bodyTimeoutMs ?? 30_000),
        keepAliveMs: 65_000, // longer than Telegram's 60 s, so Telegram closes idle connections first
        maxAnonymous: options.maxAnonymousConnections ?? 256,
      },
      {
        route: (conn, head) => this.#route(conn, head),
        request: (conn, head, body) => this.#forwarder.webhook(conn, head.contentType, body),
        refused: (_conn, head, status) =>
          this.#refused(status, status === 413 ? 'too-large' : 'busy', head.method, head.path),
      },
    )
  }

  get port(): number {
    return this.#port
  }

  get target(): RelayTarget | undefined {
    return this.#deliverer.target
  }

  /** Body bytes held right now, and the most held at once so far. */
  get buffered(): {now: number; peak: number} {
    const budget = this.#server.budget
    return {now: budget.inUse, peak: budget.peak}
  }

  /** Connections open now, and how many were closed to make room for new ones (see maxAnonymousConnections). */
  get connections(): {open: number; evicted: number} {
    return {open: this.#server.connections, evicted: this.#server.evicted}
  }

  async listen(): Promise<number> {
    await this.#app?.listen()
    this.#port = await this.#server.listen()
    return this.#port
  }

  /**
   * Also accept updates on this path: a public URL with a path prefix (https://host/bot) behind a
   * proxy that does not strip it sends /bot/webhook/… instead of /webhook/….
   */
  addAlias(path: string): void {
    this.#aliases.add(path)
  }

  /**
   * The secret the bot checks (X-Telegram-Bot-Api-Secret-Token toward the bot): the one its own
   * setWebhook asked for (answered by the session's api proxy). Incoming requests still carry the
   * session's secret, which is what the relay checks.
   */
  setBotSecret(secret: string): void {
    this.#deliverer.upstream.setSecret(secret)
  }

  /** Where to forward; undefined holds requests until a target is set again. */
  setTarget(target: RelayTarget | undefined): void {
    this.#deliverer.setTarget(target)
  }

  /** Stop accepting; held requests get 503 at once; open connections are closed. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#refusals.close()
    this.#deliverer.close()
    // In-flight answers get a moment to finish, then everything is cut.
    await Promise.all([this.#server.close(500), this.#app?.close()])
    await this.#deliverer.destroy()
    // Deliveries still under way end quickly now (nothing is held, the bot's connections are gone);
    // wait for them, within a bound, so every update is counted and shown before the session ends.
    await waitAtMost(this.#forwarder.drained(), 2000)
    this.#forwarder.flush()
  }

  /** Requests waiting for the bot right now. */
  get held(): number {
    return this.#deliverer.held
  }

  /** Record updates from now on (the inspector), or stop (undefined). */
  setRecorder(recorder: RelayRecorder | undefined): void {
    this.#forwarder.recorder = recorder
  }

  /**
   * Deliver `body` to the bot like an update from Telegram (held while the bot restarts, shown in
   * the log, recorded), but as a new delivery: the answer cache is neither read nor written, so an
   * update_id the bot already answered reaches it again (a replay). Never rejects.
   */
  inject(body: Buffer | string, o: {source: 'trigger' | 'replay'; replayOf?: number}): Promise<InjectResult> {
    return this.#forwarder.inject(body, o)
  }

  /** A head arrived: the webhook path with the secret reads on; anything else is answered here. */
  #route(conn: Conn, head: RequestHead): boolean {
    const path = head.path
    if (path !== this.path && !this.#aliases.has(path)) {
      if (path === this.healthPath && (head.method === 'GET' || head.method === 'HEAD')) {
        conn.respond(200, 'content-type: text/plain\r\ncache-control: no-store\r\n', `bot-dev ${this.nonce}\n`, true)
        return false
      }
      // --web-app: the connection goes to the dev server's forwarder whole (app.ts), or 503 at its bound.
      if (this.#app && isAppPath(path)) {
        const {socket, bytes} = conn.detach()
        if (!this.#app.splice(socket, bytes)) {
          socket.on('error', () => {})
          socket.end(
            'HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
          )
        }
        return false
      }
      return this.#refuse(conn, head, 404, 'path')
    }
    if (head.method !== 'POST') return this.#refuse(conn, head, 405, 'method')
    if (!sameSecret(head.secret, this.#secret)) return this.#refuse(conn, head, 401, 'secret')
    return true
  }

  /** Answer by itself and close the connection, without reading what is left of the request. */
  #refuse(conn: Conn, head: RequestHead, status: 401 | 404 | 405, reason: RefusalReason): false {
    conn.refuse(status, '', REFUSAL_BODY[status])
    this.#refused(status, reason, head.method, head.path)
    return false
  }

  #refused(status: number, reason: RefusalReason, method: string, path: string): void {
    this.stats.rejected++
    this.#refusals.record({
      time: new Date().toISOString(),
      status,
      reason,
      method: sanitizeForTerminal(method).slice(0, 16),
      path: printablePath(path),
    })
  }
}

/** A path from a request, safe to print: controls escaped, at most 80 characters. */
function printablePath(path: string): string {
  const safe = sanitizeForTerminal(path)
  return safe.length > 80 ? safe.slice(0, 79) + '…' : safe
}
