/**
 * The session's hold on the bot's webhook at Telegram, and the only caller of setWebhook and
 * deleteWebhook for the session: set ours (recorded in the state file before the call, so a crash
 * leaves a repairable record), clear the way for polling, delete ours (pending updates kept),
 * restore the production webhook we replaced with --force, let go of a webhook someone else set
 * meanwhile, and repair the one a dead session left. The webhook part (parts/webhook.ts) holds it
 * for the session's lifetime: it cleans on stop, and at once on a second signal. Emits nothing
 * itself: callers say what happened.
 */
import type {BotApi} from '../../telegram/index.js'
import type {ReplacedWebhook, SessionState} from '../../session-store/state.js'

export interface SessionWebhookOptions {
  api: BotApi
  secret: () => string
  maxConnections?: number
  allowedUpdates?: string[]
  dropPendingUpdates?: boolean
  /** The secret_token to restore the replaced webhook with. */
  restoreSecret?: string
  saveState: (patch: Partial<SessionState>) => void
  /** Our URL is known (set is under way): the bot may be started with it as WEBHOOK_URL. */
  onUrl?: (url: string) => void
}

export type CleanResult = 'deleted' | 'restored' | 'left-foreign' | 'nothing'

/** What clearing the way for polling did: deleted the webhook (--force), dropped pending updates (as asked), or nothing. */
export type ClearResult = 'deleted' | 'dropped' | 'nothing'

export class SessionWebhook {
  readonly #options: SessionWebhookOptions
  /** The webhook we replaced (--force), restored on exit. */
  replaced: ReplacedWebhook | undefined
  /** Our URL, when ours is (or may be) set at Telegram. */
  #url: string | undefined
  #everSet = false
  #restored = false
  /** Someone else set a webhook during the session: it is theirs, we leave it alone on exit. */
  #foreign: string | undefined
  /** The quick clean of a second signal, once started (see abandon). */
  #abandoning: Promise<CleanResult | {error: unknown}> | undefined
  /** Deleting/restoring failed: the state file is kept so the next run repairs it. */
  cleanFailed = false

  constructor(options: SessionWebhookOptions) {
    this.#options = options
  }

  get url(): string | undefined {
    return this.#url
  }

  get foreign(): string | undefined {
    return this.#foreign
  }

  get restoreSecret(): string | undefined {
    return this.#options.restoreSecret
  }

  /** Anything left to undo at Telegram on exit. */
  get dirty(): boolean {
    return !this.#foreign && (this.#url !== undefined || (this.replaced !== undefined && !this.#restored))
  }

  async set(url: string, signal?: AbortSignal): Promise<void> {
    const o = this.#options
    const record = {
      url,
      ...(o.maxConnections !== undefined ? {maxConnections: o.maxConnections} : {}),
      ...(o.allowedUpdates ? {allowedUpdates: o.allowedUpdates} : {}),
    }
    o.saveState({webhook: record, mode: 'webhook'})
    // From here on, exit deletes it (deleting an absent webhook is harmless).
    this.#url = url
    this.#foreign = undefined
    o.onUrl?.(url)
    await o.api.setWebhook(
      {
        url,
        secret_token: o.secret(),
        ...(o.maxConnections !== undefined ? {max_connections: o.maxConnections} : {}),
        ...(o.allowedUpdates !== undefined ? {allowed_updates: o.allowedUpdates} : {}),
        ...(o.dropPendingUpdates && !this.#everSet ? {drop_pending_updates: true} : {}),
      },
      {signal: signal?.aborted ? undefined : signal},
    )
    this.#everSet = true
  }

  /**
   * No webhook while updates are polled (the bot's own getUpdates, or the bridge's): the one --force
   * took over is deleted for the session (pending kept; restored on exit), or pending updates are
   * dropped when asked (--drop-pending-updates).
   */
  async clearForPolling(signal: AbortSignal): Promise<ClearResult> {
    if (this.replaced) {
      await deleteKeepingPending(this.#options.api, {signal})
      return 'deleted'
    }
    if (!this.#options.dropPendingUpdates) return 'nothing'
    await this.#options.api.deleteWebhook({drop_pending_updates: true}, {signal})
    return 'dropped'
  }

  /** deleteWebhook (pending kept) when ours may be set. */
  async deleteOurs(options: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<boolean> {
    if (this.#url === undefined || this.#foreign) return false
    await deleteKeepingPending(this.#options.api, options)
    this.#url = undefined
    this.#options.saveState({webhook: undefined})
    return true
  }

  /**
   * Polling takes over (the bot polls by itself, or the tunnel gave way to the bridge): delete ours,
   * up to `tries` times, each failure told to `onError`. `deleted`: this call deleted it; `released`:
   * none of ours is left (else polling would meet 409).
   */
  async handOver(
    tries: number,
    signal: AbortSignal,
    onError: (error: unknown) => void,
  ): Promise<{deleted: boolean; released: boolean}> {
    let deleted = false
    for (let attempt = 0; attempt < tries && this.#url !== undefined && !signal.aborted; attempt++) {
      try {
        if (await this.deleteOurs({timeoutMs: 5000})) deleted = true
      } catch (error) {
        onError(error)
      }
    }
    return {deleted, released: this.#url === undefined}
  }

  /** A webhook we did not set replaced ours during the session: it is not ours to delete. */
  letGo(foreignUrl: string): void {
    this.#foreign = foreignUrl
    this.#url = undefined
    this.#options.saveState({webhook: undefined})
  }

  /** On exit: restore the replaced webhook, else delete ours. */
  async clean(timeoutMs: number): Promise<CleanResult> {
    if (this.#foreign) return 'left-foreign'
    if (this.replaced) {
      if (this.#restored) return 'nothing'
      await restore(this.#options.api, this.replaced, this.#options.restoreSecret, {timeoutMs})
      this.#url = undefined
      this.#restored = true
      return 'restored'
    }
    if (this.#url === undefined) return 'nothing'
    await deleteKeepingPending(this.#options.api, {timeoutMs})
    this.#url = undefined
    return 'deleted'
  }

  /**
   * A second signal: clean at once, each call bounded by `timeoutMs` (once: whoever asks again gets
   * the same outcome); a failure sets cleanFailed. Resolves with what was done, or the error; never rejects.
   */
  abandon(timeoutMs: number): Promise<CleanResult | {error: unknown}> {
    this.#abandoning ??= (async () => {
      if (!this.dirty) return 'nothing' as const
      try {
        return await this.clean(timeoutMs)
      } catch (error) {
        this.cleanFailed = true
        return {error}
      }
    })()
    return this.#abandoning
  }

  /** What a second signal's clean came to; settled at once when none was asked for. */
  get abandoned(): Promise<CleanResult | {error: unknown} | undefined> {
    return this.#abandoning ?? Promise.resolve(undefined)
  }

  /**
   * A dead session left its webhook set: put back the one it had replaced (with `secret` when
   * known), else delete it (pending kept). A failure sets cleanFailed (the record is kept for the
   * next try) and rejects.
   */
  async repair(replaced: ReplacedWebhook | undefined, secret: string | undefined): Promise<void> {
    try {
      if (replaced) await restore(this.#options.api, replaced, secret)
      else await deleteKeepingPending(this.#options.api)
    } catch (error) {
      this.cleanFailed = true
      throw error
    }
  }
}

/** deleteWebhook keeping pending updates. */
function deleteKeepingPending(api: BotApi, options: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<unknown> {
  return api.deleteWebhook({drop_pending_updates: false}, {timeoutMs: options.timeoutMs, signal: options.signal})
}

/**
 * Put back the webhook we replaced (url, max_connections, allowed_updates, and the secret when known).
 * The ip_address getWebhookInfo shows is the resolved one, not necessarily one that was set, so it is not pinned.
 */
function restore(
  api: BotApi,
  replaced: ReplacedWebhook,
  secret: string | undefined,
  options: {timeoutMs?: number} = {},
): Promise<unknown> {
  return api.setWebhook(
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
