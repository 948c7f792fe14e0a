/**
 * Webhook replies (core.telegram.org/bots/api#making-requests-when-getting-updates; WebhookActor.cpp handle): a 2xx
 * answer whose body names a `method` (JSON, urlencoded or multipart) is executed against the Bot API as the bot, like
 * Telegram does. Telegram skips setWebhook, deleteWebhook, close, logOut and every get* method; so do we, and say so.
 * The outcome is reported once, never retried.
 */
import type {BotApi} from '../../../telegram/client.js'
import {isBotApiError} from '../../../telegram/errors.js'
import {isJsonObject} from '../../../lib/json-object.js'

export interface ReplyOutcome {
  method: string
  /** Why it was not run or failed; undefined when it ran fine. */
  error?: string
}

/** The method and parameters of a webhook reply, or undefined when the body carries none. */
export async function parseReply(
  contentType: string,
  body: Buffer,
): Promise<{method: string; params: Record<string, unknown>} | undefined> {
  const type = contentType.split(';')[0].trim().toLowerCase()
  let params: Record<string, unknown> = {}
  try {
    if (type === 'application/json') {
      const parsed: unknown = JSON.parse(body.toString('utf8'))
      if (!isJsonObject(parsed)) return undefined
      params = {...parsed}
    } else if (type === 'application/x-www-form-urlencoded') {
      params = Object.fromEntries(new URLSearchParams(body.toString('utf8')))
    } else if (type === 'multipart/form-data') {
      const form = await new Response(new Uint8Array(body), {headers: {'content-type': contentType}}).formData()
      form.forEach((value, key) => {
        params[key] = value
      })
    } else return undefined
  } catch {
    return undefined // not a webhook reply Telegram could read either
  }
  const method = params.method
  if (typeof method !== 'string' || method.trim() === '') return undefined
  delete params.method
  return {method: method.trim(), params}
}

/** Telegram does not run these as webhook replies (WebhookActor.cpp:612-632). */
export function runnableAsReply(method: string): boolean {
  const lower = method.toLowerCase()
  return !['deletewebhook', 'setwebhook', 'close', 'logout'].includes(lower) && !lower.startsWith('get')
}

/** Execute the reply carried by a 2xx answer, if any. Never throws. */
export async function executeReply(
  api: BotApi,
  reply: {contentType: string; body: Buffer},
  options: {timeoutMs: number; signal?: AbortSignal},
): Promise<ReplyOutcome | undefined> {
  const parsed = await parseReply(reply.contentType, reply.body)
  if (!parsed) return undefined
  const {method, params} = parsed
  if (!runnableAsReply(method)) {
    return {
      method,
      error: `not run: Telegram ignores ${method} as a webhook reply (call it through the Bot API instead)`,
    }
  }
  try {
    await api.call(method, params, {timeoutMs: options.timeoutMs, signal: options.signal})
    return {method}
  } catch (error) {
    const text = isBotApiError(error)
      ? error.kind === 'api'
        ? `${error.code} ${error.description}`
        : error.description
      : api.redact(error instanceof Error ? error.message : String(error))
    return {method, error: text}
  }
}
