/**
 * The webhook operations behind `bot webhook set|info|delete`. No oclif, no printing:
 * each function calls the Bot API and returns plain data for the command to render.
 */
import type {BotApi, CallOptions} from '../telegram/client.js'
import type {SetWebhookParams, WebhookInfo} from '../telegram/types.js'
import {explainDeliveryError, formatAge, type DeliveryErrorExplanation} from './explain-error.js'
import type {ValidatedWebhook} from './validate.js'

/** Update types a bot does NOT get unless it lists them in allowed_updates. */
export const NOT_DEFAULT_UPDATE_TYPES = ['chat_member', 'message_reaction', 'message_reaction_count'] as const

export interface WebhookSummary {
  mode: 'webhook' | 'polling'
  /** The webhook URL, or null in long-polling mode. */
  url: string | null
  pendingUpdateCount: number
  maxConnections: number | null
  /** null = Telegram's default set (everything except NOT_DEFAULT_UPDATE_TYPES). */
  allowedUpdates: string[] | null
  ipAddress: string | null
  hasCustomCertificate: boolean
  lastError: null | {
    message: string
    /** Unix time (seconds). */
    date: number | null
    ageSeconds: number | null
    age: string | null
    explanation: DeliveryErrorExplanation
  }
  lastSynchronizationError: null | {date: number; ageSeconds: number; age: string}
}

export function summarizeWebhookInfo(info: WebhookInfo, nowMs = Date.now()): WebhookSummary {
  const nowS = nowMs / 1000
  const ageOf = (date: number) => Math.max(0, Math.round(nowS - date))
  const lastError: WebhookSummary['lastError'] = info.last_error_message
    ? {
        message: info.last_error_message,
        date: info.last_error_date ?? null,
        ageSeconds: info.last_error_date ? ageOf(info.last_error_date) : null,
        age: info.last_error_date ? formatAge(ageOf(info.last_error_date)) : null,
        explanation: explainDeliveryError(info.last_error_message),
      }
    : null
  const sync = info.last_synchronization_error_date
  return {
    mode: info.url ? 'webhook' : 'polling',
    url: info.url || null,
    pendingUpdateCount: info.pending_update_count ?? 0,
    maxConnections: info.max_connections ?? null,
    allowedUpdates: info.allowed_updates ?? null,
    ipAddress: info.ip_address ?? null,
    hasCustomCertificate: Boolean(info.has_custom_certificate),
    lastError,
    lastSynchronizationError: sync ? {date: sync, ageSeconds: ageOf(sync), age: formatAge(ageOf(sync))} : null,
  }
}

export async function readWebhook(
  api: BotApi,
  options?: CallOptions,
): Promise<{info: WebhookInfo; summary: WebhookSummary}> {
  const info = await api.getWebhookInfo(options)
  return {info, summary: summarizeWebhookInfo(info)}
}

export interface SetWebhookResult {
  /** Telegram's description: "Webhook was set" or "Webhook is already set". */
  description: string
  /** False when Telegram answered "Webhook is already set" (nothing changed). */
  changed: boolean
}

export function toSetWebhookParams(w: ValidatedWebhook): SetWebhookParams {
  const params: SetWebhookParams = {url: w.url}
  if (w.secretToken !== undefined) params.secret_token = w.secretToken
  if (w.maxConnections !== undefined) params.max_connections = w.maxConnections
  if (w.allowedUpdates !== undefined) params.allowed_updates = w.allowedUpdates
  if (w.ipAddress !== undefined) params.ip_address = w.ipAddress
  if (w.certificate !== undefined) params.certificate = {path: w.certificate.path}
  if (w.dropPendingUpdates) params.drop_pending_updates = true
  return params
}

/** setWebhook with validated input; returns Telegram's description. */
export async function applyWebhook(api: BotApi, w: ValidatedWebhook, options?: CallOptions): Promise<SetWebhookResult> {
  const description = await callWithDescription(api, 'setWebhook', {...toSetWebhookParams(w)}, options)
  return {description: description ?? 'Webhook was set', changed: !/already/i.test(description ?? '')}
}

export interface DeleteWebhookResult {
  description: string
  /** False when there was no webhook ("Webhook is already deleted"). */
  deleted: boolean
}

export async function removeWebhook(
  api: BotApi,
  dropPendingUpdates: boolean,
  options?: CallOptions,
): Promise<DeleteWebhookResult> {
  const description = await callWithDescription(
    api,
    'deleteWebhook',
    dropPendingUpdates ? {drop_pending_updates: true} : {},
    options,
  )
  return {description: description ?? 'Webhook was deleted', deleted: !/already/i.test(description ?? '')}
}

/** setWebhook/deleteWebhook answer `{ok, result: true, description}`; the description says whether anything changed. */
async function callWithDescription(
  api: BotApi,
  method: 'setWebhook' | 'deleteWebhook',
  params: Record<string, unknown>,
  options?: CallOptions,
): Promise<string | undefined> {
  const envelope = await api.callEnvelope(method, params, options)
  return envelope.description
}
