/**
 * relay (webhook mode): the loopback server between the delivery and the bot (secret check, update
 * log, hold while the bot restarts), its update lines wired to the session's events and its
 * traffic to the recording. The bot's port is chosen once the relay holds its own, outside the
 * ephemeral range (see lib/free-port.ts): a port probed there may be handed to the relay or to a
 * connection of ours before the bot listens, and the bot would die with EADDRINUSE.
 */
import {freePort} from '../../lib/free-port.js'
import {maskPathAndQuery} from '../../lib/mask-url.js'
import type {SessionPart} from '../part.js'
import {Relay} from '../relay/relay.js'
import {rejectedText, updateText} from '../render.js'

const FORWARD_401 =
  ' — your server refused the secret: its WEBHOOK_SECRET differs from the one bot dev sends (see the variables printed at start)'

export function relayPart(): SessionPart {
  let relay: Relay | undefined
  return {
    name: 'relay',
    async start(ctx) {
      const o = ctx.options
      const started = await ctx.step(
        'relay',
        'Starting the relay…',
        async () => {
          const r = new Relay({
            secret: ctx.webhookSecret,
            path: ctx.webhookPath,
            holdTimeoutMs: o.holdTimeoutMs,
            port: o.relayPort,
            secrets: [o.token, ctx.webhookSecret],
            // --web-app: `/app/` is the web app's dev server (relay/app.ts); without it, the bot's own server
            // (its own `/app/` routes, as behind its production URL); --forward-to: none (no bot of ours there).
            ...(o.webApp ? {app: {url: o.webApp.url}} : o.forwardTo ? {} : {app: {bot: true as const}}),
            onUpdate: (e) => {
              // Switching to polling: what the relay gives back unanswered is polled by the bot and shown then.
              if (ctx.botPolls && (e.status < 200 || e.status >= 300)) return
              // --forward-to: a 401 from the user's server is its secret check refusing ours.
              const text = updateText(e) + (o.forwardTo && e.status === 401 ? FORWARD_401 : '')
              ctx.emit({type: 'update', ...e, text})
              // A failing or long-held delivery: a good moment to look at the webhook.
              if (e.status >= 500 || e.heldMs > 5000) ctx.events.emit('stall')
            },
            // The path asked for may be the secret webhook path (a wrong secret at the right path):
            // masked like every webhook URL we show (lib/mask-url.ts), in the text and in --json.
            onRejected: (e) => {
              const masked = {...e, path: maskPathAndQuery(e.path)}
              ctx.emit({type: 'rejected', ...masked, text: rejectedText(masked)})
            },
            // Refusals beyond the first few are summarised by the relay: one line per window.
            onRefusedSummary: (e) => ctx.emit({type: 'info', text: e.text}),
          })
          await r.listen()
          relay = r
          return {relay: r, botPort: o.port ?? (await freePort())}
        },
        (r) =>
          `Relay on http://127.0.0.1:${r.relay.port} → ${o.forwardTo ? `your server at ${o.forwardTo.url}` : `bot on port ${r.botPort}`}${o.webApp ? `, /app/ → ${o.webApp.url}` : ''}`,
      )
      ctx.relay = started.relay
      ctx.botPort = started.botPort
      ctx.recording?.attachRelay(started.relay)
    },
    async stop() {
      await relay?.close()
    },
    abandon() {
      void relay?.close()
    },
  }
}
