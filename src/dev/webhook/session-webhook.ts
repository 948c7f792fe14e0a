/**
 * The session's hold on the bot's webhook at Telegram: set ours (recorded in the state file before
 * the call, so a crash leaves a repairable record), delete ours (pending updates kept), restore the
 * production webhook we replaced with --force, or let go of a webhook someone else set meanwhile.
 * Emits nothing itself: callers say what happened.
 */
import type {BotApi} from '../../telegram/index.js'
import type {ReplacedWebhook, SessionState} from '../../session-store/state.js'
import {deleteDevWebhook, restoreWebhook, setDevWebhook} from './operations.js'

export interface SessionWebhookOptions {
  api: BotApi
  secret: () => string
  maxConnections?: number
  allowedUpdates?: string[]
  dropPendingUpdates?: boolean
  /** The secret_token to restore the replaced webhook with. */
  restoreSecret?: string
  saveState: (patch: Partial<SessionState>) => void
}

export type CleanResult = 'deleted' | 'restored' | 'left-foreign' | 'nothing'

export class SessionWebhook {
  readonly #o: SessionWebhookOptions
  /** The webhook we replaced (--force), restored on exit. */
  replaced: ReplacedWebhook | undefined
  /** Our URL, when ours is (or may be) set at Telegram. */
  #url: string | undefined
  #everSet = false
  #restored = false
  /** Someone else set a webhook during the session: it is theirs, we leave it alone on exit. */
  #foreign: string | undefined
  /** Deleting/restoring failed: the state file is kept so the next run repairs it. */
  cleanFailed = false

  constructor(options: SessionWebhookOptions) {
    this.#o = options
  }

  get url(): string | undefined {
    return this.#url
  }

  get foreign(): string | undefined {
    return this.#foreign
  }

  /** Anything left to undo at Telegram on exit. */
  get dirty(): boolean {
    return !this.#foreign && (this.#url !== undefined || (this.replaced !== undefined && !this.#restored))
  }

  async set(url: string, signal?: AbortSignal): Promise<void> {
    const o = this.#o
    const record = {
      url,
      ...(o.maxConnections !== undefined ? {maxConnections: o.maxConnections} : {}),
      ...(o.allowedUpdates ? {allowedUpdates: o.allowedUpdates} : {}),
    }
    this.#o.saveState({webhook: record, mode: 'webhook'})
    // From here on, exit deletes it (deleting an absent webhook is harmless).
    this.#url = url
    this.#foreign = undefined
    await setDevWebhook(o.api, {
      url,
      secret: o.secret(),
      maxConnections: o.maxConnections,
      allowedUpdates: o.allowedUpdates,
      dropPendingUpdates: o.dropPendingUpdates && !this.#everSet,
      signal: signal?.aborted ? undefined : signal,
    })
    this.#everSet = true
  }

  /** deleteWebhook (pending kept) when ours may be set. */
  async deleteOurs(options: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<boolean> {
    if (this.#url === undefined || this.#foreign) return false
    await deleteDevWebhook(this.#o.api, options)
    this.#url = undefined
    this.#o.saveState({webhook: undefined})
    return true
  }

  /** A webhook we did not set replaced ours during the session: it is not ours to delete. */
  letGo(foreignUrl: string): void {
    this.#foreign = foreignUrl
    this.#url = undefined
    this.#o.saveState({webhook: undefined})
  }

  /** On exit: restore the replaced webhook, else delete ours. */
  async clean(timeoutMs: number): Promise<CleanResult> {
    if (this.#foreign) return 'left-foreign'
    if (this.replaced) {
      if (this.#restored) return 'nothing'
      await restoreWebhook(this.#o.api, this.replaced, this.#o.restoreSecret, {timeoutMs})
      this.#url = undefined
      this.#restored = true
      return 'restored'
    }
    if (this.#url === undefined) return 'nothing'
    await deleteDevWebhook(this.#o.api, {timeoutMs})
    this.#url = undefined
    return 'deleted'
  }

  get restoreSecret(): string | undefined {
    return this.#o.restoreSecret
  }
}
