/**
 * The bot's own setWebhook and deleteWebhook in a webhook session (Telegraf's
 * `launch({webhook})`, grammY's `setWebhook` at start): the session owns the webhook, so the api
 * proxy answers them here as Telegram does (`true`, "Webhook was set" / "Webhook was deleted") and
 * never sends them on, where they would clobber the session's webhook (and the session would then
 * let go of it as a foreign one). A `secret_token` the bot asks for is what the relay sends it from
 * then on, since the bot checks for that one. Polling sessions, and a webhook session switched to
 * polling, forward them as they are.
 */
import type {LocalReply} from '../../inspector/proxy/local-answers.js'

/**
 * The characters and length Telegram allows in secret_token (core.telegram.org/bots/api#setwebhook:
 * 1-256 characters, A-Z, a-z, 0-9, _ and -).
 */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/

export interface BotWebhookCallsOptions {
  /** Whether the session owns the webhook now (webhook mode, not switched to polling). */
  owned: () => boolean
  /** The secret the relay sends the bot from now on. */
  setBotSecret: (secret: string) => void
  /** Once per method per session: the line saying the call was answered here. */
  onFirst: (method: 'setWebhook' | 'deleteWebhook') => void
}

export class BotWebhookCalls {
  readonly #o: BotWebhookCallsOptions
  readonly #told = new Set<string>()

  constructor(o: BotWebhookCallsOptions) {
    this.#o = o
  }

  /** The local answer to the bot's setWebhook or deleteWebhook, or undefined to forward the call. */
  answer(method: string, params: Record<string, unknown>): LocalReply | undefined {
    const m = method.toLowerCase()
    if ((m !== 'setwebhook' && m !== 'deletewebhook') || !this.#o.owned()) return undefined
    if (m === 'setwebhook') {
      const secret = params.secret_token
      if (secret !== undefined && secret !== '') {
        if (typeof secret !== 'string' || !SECRET_TOKEN.test(secret))
          return {
            status: 400,
            envelope: {
              ok: false,
              error_code: 400,
              description: 'Bad Request: secret token contains unallowed characters',
            },
          }
        this.#o.setBotSecret(secret)
      }
    }
    const name = m === 'setwebhook' ? 'setWebhook' : 'deleteWebhook'
    if (!this.#told.has(name)) {
      this.#told.add(name)
      this.#o.onFirst(name)
    }
    return {
      status: 200,
      envelope: {ok: true, result: true, description: m === 'setwebhook' ? 'Webhook was set' : 'Webhook was deleted'},
    }
  }
}
