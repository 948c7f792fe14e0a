/**
 * delivery: how updates leave Telegram (getWebhookInfo). Long polling, or a webhook: its URL
 * valid for the server in use, the last delivery error explained with a fix, the backlog,
 * allowed_updates that leave out messages, and a TLS handshake with the webhook host.
 */
import {explainForDoctor} from '../api-error.js'
import {maskUrl} from '../../lib/mask-url.js'
import {BotApiError, DEFAULT_API_ROOT, type WebhookInfo} from '../../telegram/index.js'
import {explainDeliveryError, formatAge} from '../../webhook/explain-error.js'
import {WEBHOOK_PORTS} from '../../webhook/validate.js'
import {worst} from '../status.js'
import {checkTls} from '../tls.js'
import type {Check, CheckResult, CheckStatus, DoctorContext} from '../types.js'

/** An error older than this with nothing pending is history, not a current failure. */
const STALE_ERROR_S = 600
const BACKLOG_WARN = 100

interface Part {
  status: CheckStatus
  line: string
  fix?: string
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\./.test(h)
}

function urlParts(info: WebhookInfo, cloud: boolean): {parts: Part[]; url?: URL} {
  let url: URL
  try {
    url = new URL(info.url)
  } catch {
    return {
      parts: [
        {
          status: 'fail',
          line: 'URL: not a valid URL',
          fix: 'Set a valid https URL with `bot webhook set`, or `bot webhook delete` to go back to long polling.',
        },
      ],
    }
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  if (cloud && url.protocol !== 'https:')
    return {
      url,
      parts: [
        {
          status: 'fail',
          line: `URL: ${url.protocol} is not allowed (Telegram delivers over https only)`,
          fix: 'Set an https URL with `bot webhook set`.',
        },
      ],
    }
  if (cloud && !(WEBHOOK_PORTS as readonly number[]).includes(port))
    return {
      url,
      parts: [
        {
          status: 'fail',
          line: `URL: port ${port} is not one Telegram delivers to (443, 80, 88, 8443)`,
          fix: 'Serve the webhook on 443, 80, 88 or 8443 and set that URL with `bot webhook set`.',
        },
      ],
    }
  return {
    url,
    parts: [
      {
        status: 'ok',
        line: `URL: valid for ${cloud ? 'api.telegram.org' : 'a local Bot API server'} (${url.protocol.slice(0, -1)}, port ${port})`,
      },
    ],
  }
}

function lastErrorPart(info: WebhookInfo, now: number): Part | undefined {
  if (!info.last_error_message) return undefined
  const age = info.last_error_date ? now / 1000 - info.last_error_date : undefined
  const when = age === undefined ? '' : ` (${formatAge(age)})`
  const e = explainDeliveryError(info.last_error_message)
  const current = info.pending_update_count > 0 || age === undefined || age < STALE_ERROR_S
  const line = `last error${when}: "${info.last_error_message}": ${e.meaning}`
  if (current) return {status: 'fail', line, fix: e.fix}
  return {status: 'warn', line: `${line} Nothing is pending now, so deliveries since have probably worked.`, fix: e.fix}
}

function allowedPart(info: WebhookInfo, mode: 'webhook' | 'polling'): Part | undefined {
  const allowed = info.allowed_updates
  if (!allowed || allowed.length === 0) return undefined
  if (allowed.includes('message')) return {status: 'ok', line: `allowed_updates: ${allowed.join(', ')}`}
  return {
    status: 'warn',
    line: `allowed_updates: ${allowed.join(', ')}: messages are NOT delivered`,
    fix:
      mode === 'webhook'
        ? 'Set the webhook again with message included (`bot webhook set URL --allowed-updates message,…`), or with an empty list for the default set.'
        : "The bot's last getUpdates set this list: pass allowed_updates including message (grammY: bot.start({allowed_updates: [...]})), or [] for the default set.",
  }
}

export const deliveryCheck: Check = {
  id: 'delivery',
  title: 'Delivery mode (getWebhookInfo)',
  needs: ['token'],
  prefetch: (ctx) => {
    if (ctx.token) void ctx.webhookInfo()
  },
  timeoutMs: () => 20_000,
  async run(ctx: DoctorContext): Promise<CheckResult> {
    let info: WebhookInfo
    try {
      info = await ctx.webhookInfo()
    } catch (error) {
      if (!(error instanceof BotApiError)) throw error
      const e = explainForDoctor(error, ctx.apiRoot)
      return {status: 'fail', detail: ctx.redact(e.message), fix: e.fix && ctx.redact(e.fix)}
    }
    const pending = info.pending_update_count
    const parts: Part[] = []

    if (!info.url) {
      parts.push({
        status: 'ok',
        line: 'mode: long polling (no webhook set): updates wait until the bot calls getUpdates',
      })
      parts.push({
        status: 'ok',
        line: `pending updates: ${pending}${pending > 0 ? ' (waiting for a getUpdates; if your bot runs and they stay, see the poller checks)' : ''}`,
      })
      const allowed = allowedPart(info, 'polling')
      if (allowed) parts.push(allowed)
      return summarize(parts, info)
    }

    const cloud = ctx.apiRoot === DEFAULT_API_ROOT
    parts.push({
      status: 'ok',
      line: `mode: webhook → ${ctx.redact(maskUrl(info.url))} (a bot that long-polls gets 409 "webhook is active" until \`bot webhook delete\`)`,
    })
    const {parts: urlChecks, url} = urlParts(info, cloud)
    parts.push(...urlChecks)
    if (info.ip_address && info.ip_address !== '<unknown>')
      parts.push({status: 'ok', line: `Telegram connects to ${info.ip_address}`})
    if (info.has_custom_certificate) parts.push({status: 'ok', line: 'a self-signed certificate was uploaded'})
    parts.push({
      status: pending >= BACKLOG_WARN && !info.last_error_message ? 'warn' : 'ok',
      line: `pending updates: ${pending}`,
      fix:
        pending >= BACKLOG_WARN
          ? 'A backlog is building up: the bot answers too slowly for the update rate; raise --max-connections or answer faster.'
          : undefined,
    })
    const lastError = lastErrorPart(info, Date.now())
    if (lastError) parts.push(lastError)
    const allowed = allowedPart(info, 'webhook')
    if (allowed) parts.push(allowed)

    if (url) {
      const host = url.hostname.replace(/^\[|\]$/g, '')
      if (url.protocol !== 'https:')
        parts.push({status: 'ok', line: 'TLS: check skipped (http URL, allowed by a local Bot API server)'})
      else if (isLoopback(host)) parts.push({status: 'ok', line: `TLS: check skipped (loopback host ${host})`})
      else {
        const port = Number(url.port || 443)
        const tls = await checkTls(host, port, {customCertificate: info.has_custom_certificate, signal: ctx.signal})
        parts.push({status: tls.status, line: tls.detail, fix: tls.fix})
      }
    }
    return summarize(parts, info)
  },
}

function summarize(parts: Part[], info: WebhookInfo): CheckResult {
  const status = worst(parts.map((p) => p.status))
  const fixes = [...new Set(parts.filter((p) => p.status !== 'ok' && p.fix).map((p) => p.fix!))]
  return {
    status,
    detail: parts.map((p) => p.line).join('\n'),
    fix: fixes.length > 0 ? fixes.join('\n') : undefined,
    data: info,
  }
}
