/**
 * Webhook delivery for one bot (WebhookActor.cpp send_update, handle): POST each update as JSON with the secret header;
 * 2xx acknowledges it; anything else is recorded in last_error_* and retried (at once, then 2, 4, 8… s capped at 60–120
 * s, or after Retry-After). One update in flight per queue (chat or user), up to max_connections at once.
 */
import http from 'node:http'
import {isIP} from 'node:net'
import https from 'node:https'
import {Readable} from 'node:stream'
import type {BotState, QueueEntry, WebhookSettings} from '../state/bot.js'
import type {Core} from '../methods/core.js'
import {readParams} from '../http/params.js'
import {MAX_PARAMETERS} from '../http/body.js'
import {errorCode} from '../errors.js'

export class WebhookWorker {
  private readonly agent: http.Agent
  private readonly target: URL
  private readonly requests = new Set<http.ClientRequest>()
  private inFlight = 0
  /** The last delivery failed: the server then sends on one connection until one succeeds. */
  private failing = false
  private stopped = false
  private pumpQueued = false
  private cancelTimer?: () => void
  private timerAt = Infinity

  constructor(
    private readonly bot: BotState,
    private readonly settings: WebhookSettings,
    private readonly core: Core,
  ) {
    this.target = new URL(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(settings.url) ? settings.url : `https://${settings.url}`)
    const agentOptions = {keepAlive: true, maxSockets: settings.maxConnections}
    this.agent =
      this.target.protocol === 'https:'
        ? new https.Agent({...agentOptions, ...(settings.certificate ? {ca: settings.certificate} : {})})
        : new http.Agent(agentOptions)
    for (const entry of bot.queue.values()) {
      // retry state belongs to a webhook: a new one starts afresh
      entry.failures = 0
      entry.nextAttemptAt = 0
    }
    bot.onQueued = () => this.schedule()
    this.schedule()
  }

  /** Stop delivering: requests in flight are abandoned and their updates stay in the queue. */
  stop(): void {
    if (this.stopped) return
    this.stopped = true
    if (this.bot.onQueued) this.bot.onQueued = undefined
    this.cancelTimer?.()
    for (const req of this.requests) req.destroy()
    this.requests.clear()
    for (const entry of this.bot.queue.values()) entry.inFlight = false
    this.agent.destroy()
  }

  /** Run pump() once after the current burst of pushes. */
  schedule(): void {
    if (this.pumpQueued || this.stopped) return
    this.pumpQueued = true
    queueMicrotask(() => {
      this.pumpQueued = false
      this.pump()
    })
  }

  private pump(): void {
    if (this.stopped) return
    const now = Date.now()
    const heads = new Set<string>()
    let earliest = Infinity
    const connections = this.failing ? 1 : this.settings.maxConnections
    for (const [id, entry] of this.bot.queue) {
      if (!entry.inFlight && entry.expiresAt <= now) {
        this.bot.queue.delete(id) // its lifetime is over: dropped unsent
        continue
      }
      if (heads.has(entry.queue)) continue // only the oldest update of a queue may be in flight
      heads.add(entry.queue)
      if (entry.inFlight) continue
      if (entry.nextAttemptAt > now) {
        earliest = Math.min(earliest, entry.nextAttemptAt)
        continue
      }
      if (this.inFlight >= connections) break
      this.send(entry)
    }
    if (earliest !== Infinity && earliest < this.timerAt) {
      this.cancelTimer?.()
      this.timerAt = earliest
      this.cancelTimer = this.core.later(() => {
        this.timerAt = Infinity
        this.cancelTimer = undefined
        this.pump()
      }, earliest - now)
    }
  }

  private send(entry: QueueEntry): void {
    const body = bodyOf(entry)
    if (!body) {
      // An update that cannot be written as JSON (nested too deep, circular: only the JavaScript API can queue one)
      // can never be delivered: it is dropped, and the next one of its queue goes.
      this.bot.queue.delete(entry.update.update_id)
      this.schedule()
      return
    }
    entry.inFlight = true
    this.inFlight += 1
    const started = performance.now()
    const https_ = this.target.protocol === 'https:'
    const headers: Record<string, string | number> = {
      Host: this.target.host,
      'Content-Type': 'application/json',
      'Content-Length': body.length,
      'Accept-Encoding': 'gzip, deflate',
    }
    if (this.settings.secretToken) headers['X-Telegram-Bot-Api-Secret-Token'] = this.settings.secretToken
    if (this.target.username) {
      const userinfo = `${decodeURIComponent(this.target.username)}:${decodeURIComponent(this.target.password)}`
      headers.Authorization = `Basic ${Buffer.from(userinfo).toString('base64')}`
    }
    const ip = this.settings.resolvedIp ?? this.target.hostname
    const options: https.RequestOptions = {
      method: 'POST',
      host: ip,
      family: ip.includes(':') ? 6 : 4,
      port: this.target.port || (https_ ? 443 : 80),
      path: `${this.target.pathname}${this.target.search}`,
      headers,
      agent: this.agent,
      // SNI carries a host name only (an IP literal is not allowed there)
      ...(https_ && isIP(this.target.hostname.replace(/^\[(.*)\]$/, '$1')) === 0
        ? {servername: this.target.hostname}
        : {}),
    }
    let settled = false
    const settle = (ok: boolean, status: number | undefined, error: string | undefined, retryAfter?: number): void => {
      if (settled) return
      settled = true
      if (req) this.requests.delete(req)
      if (this.stopped) return
      this.inFlight -= 1
      entry.inFlight = false
      this.finish(entry, ok, status, error, retryAfter, performance.now() - started)
    }
    let req: http.ClientRequest | undefined
    try {
      req = (https_ ? https : http).request(options, (res) => this.answered(res, entry, settle))
    } catch (err) {
      // e.g. a request Node refuses to write: a failed delivery, never an exception out of the worker
      settle(false, undefined, describeError(err) ?? "Can't connect to the webhook")
      return
    }
    const sent = req
    this.requests.add(sent)
    sent.setTimeout(this.core.readTimeoutMs, () => {
      settle(false, undefined, 'Read timeout expired')
      sent.destroy()
    })
    sent.on('error', (err) => settle(false, undefined, describeError(err)))
    sent.end(body)
  }

  /** The webhook's answer: 2xx acknowledges (and may carry a method to run), anything else is a failed delivery. */
  private answered(
    res: http.IncomingMessage,
    entry: QueueEntry,
    settle: (ok: boolean, status: number | undefined, error: string | undefined, retryAfter?: number) => void,
  ): void {
    // A webhook reply is parameters: at most td's 1 MiB of them are kept; a longer answer runs no method.
    const chunks: Buffer[] = []
    let size = 0
    res.on('data', (c: Buffer) => {
      size += c.length
      if (size <= MAX_PARAMETERS) chunks.push(c)
      else chunks.length = 0
    })
    res.on('error', (err) => settle(false, undefined, describeError(err)))
    res.on('end', () => {
      const status = res.statusCode ?? 0
      if (status >= 200 && status < 300) {
        settle(true, status, undefined)
        const updateId = entry.update.update_id
        void this.runReply(res.headers, size <= MAX_PARAMETERS ? Buffer.concat(chunks) : Buffer.alloc(0))
          .then((replied) => this.core.handled(this.bot, updateId, replied))
          .catch(() => undefined)
        return
      }
      const reason = res.statusMessage || http.STATUS_CODES[status] || ''
      settle(
        false,
        status,
        `Wrong response from the webhook: ${status} ${reason}`.trimEnd(),
        retryAfterOf(res.headers['retry-after']),
      )
    })
  }

  private finish(
    entry: QueueEntry,
    ok: boolean,
    status: number | undefined,
    error: string | undefined,
    retryAfter: number | undefined,
    ms: number,
  ): void {
    const updateId = entry.update.update_id
    this.failing = !ok
    if (ok) {
      this.bot.queue.delete(updateId)
    } else if (this.bot.queue.get(updateId) === entry) {
      entry.failures += 1
      const seconds =
        retryAfter ?? (entry.failures === 1 ? 0 : Math.min(2 ** (entry.failures - 1), 60 + Math.random() * 60))
      // A floor of 10 ms after the first retry keeps a tiny timeScale from turning retries into a busy loop.
      const delay = this.core.scale(seconds * 1000)
      entry.nextAttemptAt = Date.now() + (entry.failures > 1 ? Math.max(10, delay) : delay)
      if (error !== undefined) {
        this.bot.lastErrorDate = Math.floor(Date.now() / 1000)
        this.bot.lastErrorMessage = error
      }
      // a retry that would come after the update's lifetime never happens: the server drops it
      if (entry.nextAttemptAt >= entry.expiresAt) this.bot.queue.delete(updateId)
    }
    this.core.delivered({
      token: this.bot.token,
      updateId,
      ok,
      ...(status !== undefined ? {status} : {}),
      ...(error !== undefined ? {error} : {}),
      ms,
    })
    this.schedule()
  }

  /** A 2xx answer may carry a method to execute (WebhookActor.cpp handle). */
  private async runReply(headers: http.IncomingHttpHeaders, body: Buffer): Promise<boolean> {
    if (body.length === 0) return false
    try {
      const params = await readParams('', headers, Readable.from([body]))
      return await this.core.executeReply(this.bot, params)
    } catch {
      return false // the result of a webhook reply is never reported
    }
  }
}

/** The POST body: the update's JSON, with the raw ",\n" the server writes after `"update_id":N`; undefined if it has none. */
function bodyOf(entry: QueueEntry): Buffer | undefined {
  try {
    return Buffer.from(
      (entry.json ??= JSON.stringify(entry.update)).replace(/^\{"update_id":(-?\d+),/, '{"update_id":$1,\n'),
    )
  } catch {
    return undefined
  }
}

/** Retry-After as an integer number of seconds clamped to 0..3600; HTTP dates are ignored. */
function retryAfterOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined
  return Math.min(3600, Number(value))
}

/** The facts' text for a TLS peer that is no TLS server (plain HTTP on the port; ISS tdlib/telegram-bot-api#478). */
export const SSL_NO_TLS_SERVER = 'SSL error {error:140840FF:SSL routines:ssl3_connect:unknown state}'
/** The facts' text for a certificate the server does not trust (OpenSSL 3's wording). */
export const SSL_VERIFY_FAILED = 'SSL error {error:0A000086:SSL routines::certificate verify failed}'

/** Node's codes for a certificate that fails verification (self-signed, unknown issuer, expired, wrong name…). */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/**
 * The text the server records in last_error_message for a connection-level failure (WebhookActor.cpp
 * on_connection_error), never Node's own words; undefined for a connection closed without an answer, which the server
 * only retries (WebhookActor.cpp:657).
 */
export function describeError(err: unknown): string | undefined {
  const code = errorCode(err) ?? ''
  const message = err instanceof Error ? err.message : ''
  if (CERTIFICATE_CODES.has(code)) return SSL_VERIFY_FAILED
  if (
    code === 'EPROTO' ||
    code.startsWith('ERR_SSL') ||
    /wrong version number|packet length too long|unknown protocol/i.test(message)
  )
    return SSL_NO_TLS_SERVER
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused'
    case 'ETIMEDOUT':
      return 'Connection timed out'
    case 'EHOSTUNREACH':
      return 'No route to host'
    case 'ENETUNREACH':
      return 'Network is unreachable'
    case 'ENOTFOUND':
      return 'Failed to resolve host: Name or service not known'
    case 'EAI_AGAIN':
      return 'Failed to resolve host: Temporary failure in name resolution'
  }
  if (message === 'socket hang up') return undefined // closed without a response: "Webhook connection closed", not recorded
  if (code === 'ECONNRESET') return 'Connection reset by peer'
  if (code === 'EPIPE') return 'Broken pipe'
  if (code.startsWith('HPE_')) return 'Wrong response from the webhook: the answer is not an HTTP response'
  if (/CERT|TLS|SSL/i.test(code)) return SSL_VERIFY_FAILED
  return "Can't connect to the webhook"
}
