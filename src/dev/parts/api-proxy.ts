/**
 * api-proxy: the bot's BOT_API_ROOT is a loopback proxy to the real api root (or the emulator)
 * that records each Bot API call, and the updates the bot's getUpdates returns. A getUpdates in a
 * webhook session means the bot polls by itself: the call is held until the session switched to
 * polling delivery (no 409 for the bot), at most HOLD_MAX_MS.
 */
import {waitAtMost} from '../../lib/deadline.js'
import {startApiProxy, type ApiProxy} from '../../inspector/proxy/api-proxy.js'
import type {SessionContext, SessionPart} from '../part.js'
import {BotWebhookCalls} from '../webhook/bot-webhook-calls.js'

/** The longest a bot's getUpdates waits for the switch to polling (then it goes through as it is). */
const HOLD_MAX_MS = 20_000

export function apiProxyPart(): SessionPart {
  let proxy: ApiProxy | undefined
  return {
    name: 'api-proxy',
    async start(ctx) {
      const o = ctx.options
      const recording = ctx.recording!
      // Webhook mode: the session owns the webhook; the bot's own setWebhook/deleteWebhook are answered here.
      const own =
        o.mode === 'webhook'
          ? new BotWebhookCalls({
              owned: () => !ctx.botPolls && ctx.delivery?.name !== 'polling',
              setBotSecret: (secret) => ctx.relay?.setBotSecret(secret),
              onFirst: (method) => ctx.emit({type: 'info', text: ownWebhookText(method, o.offline !== undefined)}),
            })
          : undefined
      const local = recording.local
      proxy = await startApiProxy({
        upstream: o.apiRoot,
        token: o.token,
        secrets: recording.secrets,
        onCall: (call, raw) => recording.onCall(call, raw),
        local: own
          ? {
              answer: (method, params) => own.answer(method, params) ?? local.answer(method, params),
              file: (p) => local.file(p),
            }
          : local,
        // Polling mode, or a webhook session switched to polling: the bot's own getUpdates.
        onUpdates: (updates) => recording.onPollingUpdates(updates),
        holdCall: (method) => (method.toLowerCase() === 'getupdates' ? untilPolling(ctx) : undefined),
      })
      ctx.botApiRoot = proxy.url
      ctx.emit({
        type: 'step',
        step: 'api-proxy',
        status: 'ok',
        text: `Bot API proxy on ${proxy.url} → ${o.apiRoot} (records the bot's calls)`,
      })
    },
    async stop() {
      await proxy?.close()
    },
  }
}

/** The one line saying the bot's own setWebhook/deleteWebhook was answered by the session. */
export function ownWebhookText(method: 'setWebhook' | 'deleteWebhook', offline: boolean): string {
  const server = offline ? 'the emulator' : 'Telegram'
  return `! The bot called ${method} itself: bot dev owns the webhook during the session, so it was answered here and not sent to ${server}${method === 'setWebhook' ? ' (updates reach the bot with the secret_token it asked for, if any)' : ''}`
}

/** Undefined when the session delivers by polling already; else until the runner switched it (or gave up). */
function untilPolling(ctx: SessionContext): Promise<void> | undefined {
  if (ctx.options.mode === 'polling' || ctx.delivery?.name === 'polling' || ctx.signal.aborted) return undefined
  const switched = new Promise<void>((letThrough) => ctx.events.emit('bot-polls', letThrough))
  return waitAtMost(switched, HOLD_MAX_MS).then(() => {})
}
