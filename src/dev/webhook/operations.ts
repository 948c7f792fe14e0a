/**
 * The webhook operations of a dev session: set ours, recognise a foreign (production) one,
 * delete ours and restore the one we replaced. Pending updates are never dropped unless asked.
 */
import {randomBytes} from 'node:crypto'

import {FixableError} from '../../lib/errors.js'
import {maskUrl} from '../../lib/mask-url.js'
import type {BotApi, WebhookInfo} from '../../telegram/index.js'
import type {ReplacedWebhook, SessionState, WebhookRecord} from '../../session-store/state.js'

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

export interface SetOptions {
  url: string
  secret: string
  maxConnections?: number
  allowedUpdates?: string[]
  dropPendingUpdates?: boolean
  signal?: AbortSignal
}

export async function setDevWebhook(api: BotApi, options: SetOptions): Promise<WebhookRecord> {
  await api.setWebhook(
    {
      url: options.url,
      secret_token: options.secret,
      ...(options.maxConnections !== undefined ? {max_connections: options.maxConnections} : {}),
      ...(options.allowedUpdates !== undefined ? {allowed_updates: options.allowedUpdates} : {}),
      ...(options.dropPendingUpdates ? {drop_pending_updates: true} : {}),
    },
    {signal: options.signal},
  )
  return {
    url: options.url,
    ...(options.maxConnections !== undefined ? {maxConnections: options.maxConnections} : {}),
    ...(options.allowedUpdates !== undefined ? {allowedUpdates: options.allowedUpdates} : {}),
  }
}

/** deleteWebhook keeping pending updates. */
export async function deleteDevWebhook(
  api: BotApi,
  options: {timeoutMs?: number; signal?: AbortSignal} = {},
): Promise<void> {
  await api.deleteWebhook({drop_pending_updates: false}, {timeoutMs: options.timeoutMs, signal: options.signal})
}

/**
 * Put back the webhook we replaced (url, max_connections, allowed_updates, and the secret when known).
 * The ip_address getWebhookInfo shows is the resolved one, not necessarily one that was set, so it is not pinned.
 */
export async function restoreWebhook(
  api: BotApi,
  replaced: ReplacedWebhook,
  secret: string | undefined,
  options: {timeoutMs?: number} = {},
): Promise<void> {
  await api.setWebhook(
    {
      url: replaced.url,
      ...(secret ? {secret_token: secret} : {}),
      ...(replaced.maxConnections !== undefined ? {max_connections: replaced.maxConnections} : {}),
      // Absent in getWebhookInfo means "the default": an empty list asks for exactly that.
      allowed_updates: replaced.allowedUpdates ?? [],
    },
    {timeoutMs: options.timeoutMs},
  )
}
