/**
 * Watches getWebhookInfo while the session's webhook is in use: a webhook deleted behind our back
 * is set again; one replaced by someone else is theirs (we let go of it and say how to get ours
 * back); a new last_error_message is shown once, with the explanation `bot webhook info` gives.
 */
import {maskUrl} from '../../../lib/mask-url.js'
import {explainDeliveryError} from '../../../webhook/explain-error.js'
import type {BotApi} from '../../../telegram/index.js'
import type {DevEventSink} from '../../events.js'
import {errorMessage} from '../../render.js'
import type {SessionWebhook} from '../../webhook/session-webhook.js'

export interface WebhookWatchOptions {
  api: BotApi
  webhook: SessionWebhook
  intervalMs: number
  signal: AbortSignal
  emit: DevEventSink
}

/**
 * The webhook is this session's: a 503 is bot dev's own relay saying the bot was not there (down,
 * crashed, restarting, not listening on PORT) for longer than it may hold an update. Not "a proxy or
 * load balancer", which is what it would mean in production.
 */
export function relayExplanation(lastError: string): {meaning: string; fix: string} | undefined {
  if (!/^Wrong response from the webhook: 503\b/i.test(lastError)) return undefined
  return {
    meaning:
      "bot dev's relay answered 503: your bot was down or restarting (not listening on PORT) for longer than the relay holds an update (--hold-timeout), so the update went back to Telegram, which sends it again.",
    fix: "Look at the bot's output above (did it exit, or not open PORT?); once it listens again, the retries reach it: nothing is lost.",
  }
}

export class WebhookWatch {
  readonly #options: WebhookWatchOptions
  #timer: NodeJS.Timeout | undefined
  #stopped = false
  #checking: Promise<void> | undefined
  /** Errors older than this (unix seconds) are not ours to report. */
  #since = Math.floor(Date.now() / 1000)
  #lastErrorDate = 0
  #lastCheck = 0

  constructor(options: WebhookWatchOptions) {
    this.#options = options
  }

  start(): void {
    this.#since = Math.floor(Date.now() / 1000)
    this.#schedule()
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
  }

  /** Check soon (e.g. after the delivery stalled); at most once every 2 s. */
  checkNow(): void {
    if (this.#stopped || this.#checking || Date.now() - this.#lastCheck < 2000) return
    if (this.#timer) clearTimeout(this.#timer)
    this.#tick()
  }

  #schedule(): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => this.#tick(), this.#options.intervalMs)
    this.#timer.unref()
  }

  #tick(): void {
    this.#lastCheck = Date.now()
    this.#checking = this.#check()
      .catch(() => {
        // an unreachable API is reported by the next step that needs it; keep watching
      })
      .finally(() => {
        this.#checking = undefined
        this.#schedule()
      })
  }

  async #check(): Promise<void> {
    const {api, webhook, emit, signal} = this.#options
    const ours = webhook.url
    if (this.#stopped || !ours || webhook.foreign) return
    const info = await api.getWebhookInfo({signal, timeoutMs: 5000})
    if (this.#stopped || webhook.url !== ours) return
    if (!info.url) {
      emit({
        type: 'warn',
        text: 'The webhook of this session was deleted by something else (e.g. `bot webhook delete`); setting it again.',
      })
      try {
        await webhook.set(ours, signal)
        emit({type: 'info', text: '✓ Webhook set again: updates reach the bot.'})
      } catch (error) {
        emit({type: 'warn', text: `Could not set the webhook again: ${errorMessage(error)}`, fix: 'Restart `bot dev`.'})
      }
      return
    }
    if (info.url !== ours) {
      webhook.letGo(info.url)
      this.stop()
      emit({
        type: 'warn',
        text: `The webhook was replaced by someone else with ${maskUrl(info.url)}: updates go there now, not to this session. It is theirs: \`bot dev\` leaves it as it is on exit.`,
        fix: 'To get updates here again, stop `bot dev` and run it again with --force (it takes that webhook over and restores it on exit).',
      })
      return
    }
    const date = info.last_error_date ?? 0
    if (info.last_error_message && date >= this.#since && date !== this.#lastErrorDate) {
      this.#lastErrorDate = date
      const why = relayExplanation(info.last_error_message) ?? explainDeliveryError(info.last_error_message)
      emit({
        type: 'warn',
        text: `Telegram could not deliver to the webhook: "${info.last_error_message}". ${why.meaning}`,
        fix: why.fix,
      })
    }
  }
}
