/**
 * What a dev session reads off webhooks: whose one is set (none, a dead session's, a foreign one),
 * what a replaced one was, the refusal of a foreign one, and the session's random path. The calls
 * that set or delete a webhook are SessionWebhook's (session-webhook.ts).
 */
import {randomBytes} from 'node:crypto'

import {FixableError} from '../../lib/errors.js'
import {maskUrl} from '../../lib/mask-url.js'
import type {BotApi, WebhookInfo} from '../../telegram/index.js'
import type {ReplacedWebhook, SessionState} from '../../session-store/state.js'

/** A fresh unguessable path for this run's webhook URL. */
export function randomWebhookPath(): string {
  return `/webhook/${randomBytes(12).toString('base64url')}`
}

/** Join a tunnel's base URL and a path. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`)
}

export type WebhookOwner = 'none' | 'ours' | 'foreign'

/**
 * Whose webhook is set: 'none', 'ours' (the URL a recorded, ended session set) or 'foreign'
 * (anything else: treated as production).
 */
export function classifyWebhook(info: WebhookInfo, recorded?: SessionState): WebhookOwner {
  if (!info.url) return 'none'
  if (recorded?.webhook?.url && recorded.webhook.url === info.url) return 'ours'
  return 'foreign'
}

export function describeWebhook(info: WebhookInfo): ReplacedWebhook {
  return {
    url: info.url,
    ...(info.max_connections !== undefined ? {maxConnections: info.max_connections} : {}),
    ...(info.allowed_updates !== undefined ? {allowedUpdates: info.allowed_updates} : {}),
    ...(info.has_custom_certificate ? {hasCustomCertificate: true} : {}),
    ...(info.ip_address && info.ip_address !== '<unknown>' ? {ipAddress: info.ip_address} : {}),
  }
}

export function foreignWebhookError(info: WebhookInfo, mode: 'webhook' | 'polling'): FixableError {
  const pending = info.pending_update_count
    ? `, ${info.pending_update_count} pending update${info.pending_update_count === 1 ? '' : 's'}`
    : ''
  return new FixableError(
    `A webhook that \`bot dev\` did not set is active: ${maskUrl(info.url)}${pending}. It looks like your production bot; ${mode === 'webhook' ? 'replacing' : 'deleting'} it would stop production from getting updates.`,
    {
      code: 'foreign_webhook',
      fix: 'Use a separate token for development, or pass --force to take it over for this session and restore it on exit (its secret_token cannot be read back: pass --restore-secret or set BOT_RESTORE_SECRET).',
    },
  )
}
