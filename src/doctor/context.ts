/** Builds the context the checks share: options, one Bot API client and memoized API reads. */
import {BotApi, inspectToken, redact as redactToken, type User, type WebhookInfo} from '../telegram/index.js'
import type {DoctorContext, DoctorOptions} from './types.js'

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => {
    if (!promise) {
      promise = fn()
      // Checks that read it handle the rejection; this keeps an unread one from being "unhandled".
      promise.catch(() => {})
    }
    return promise
  }
}

export function createContext(
  options: DoctorOptions,
  signal: AbortSignal = new AbortController().signal,
): DoctorContext {
  // A malformed token is never sent (the config check names the problem; the token check says so).
  const api =
    options.token && inspectToken(options.token).valid
      ? new BotApi({token: options.token, apiRoot: options.apiRoot, timeoutMs: 10_000, maxRetries: 1})
      : undefined
  const noToken = () => Promise.reject(new Error('no bot token'))
  return {
    ...options,
    api,
    signal,
    me: once<User>(() => (api ? api.getMe({signal}) : noToken())),
    webhookInfo: once<WebhookInfo>(() => (api ? api.getWebhookInfo({signal}) : noToken())),
    redact: (text: string) => redactToken(text, options.token),
    outcome: async () => undefined,
  }
}
