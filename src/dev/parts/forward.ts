/**
 * forward (`--forward-to URL`): no bot process. The user runs their own server (in a debugger, a
 * container, another language's dev server); the relay forwards each update to that URL with the
 * secret header, holding updates while it is down, as it does for a restarting bot. The part prints
 * what the server needs: BOT_API_ROOT (the recording api proxy) and the secret's variable name,
 * never the secret itself (where bot dev made one, where to read it from).
 */
import {existsSync} from 'node:fs'

import {secretPath} from '../../session-store/state.js'
import type {SessionContext, SessionPart} from '../part.js'

export function forwardPart(): SessionPart {
  return {
    name: 'forward',
    async start(ctx) {
      const forward = ctx.options.forwardTo!
      const url = new URL(forward.url)
      const port = Number(url.port || 80)
      // The relay needs a host to connect to: [::1] is written with brackets in a URL, not on the wire.
      const host = url.hostname.replace(/^\[|\]$/g, '')
      ctx.relay?.setTarget({host, port, path: `${url.pathname}${url.search}`})
      ctx.forwardTo = forward.url
      ctx.emit({type: 'info', text: forwardText(ctx)})
      ctx.events.emit('bot-up')
    },
  }
}

/** The file of the secret the session uses (in keepDir when it could be kept there). */
function keptSecretPath(ctx: SessionContext): string {
  const keep = ctx.options.keepDir
  const id = ctx.me!.id
  return keep && existsSync(secretPath(id, keep)) ? secretPath(id, keep) : secretPath(id, ctx.stateDir)
}

/** What the user's server needs, one variable a line (no secret in it). */
export function forwardText(ctx: SessionContext): string {
  const o = ctx.options
  const forward = o.forwardTo!
  const lines = [`→ Forwarding each update to ${forward.url}; no bot is started: run your server with`]
  const api = ctx.botApiRoot ?? (o.passApiRoot === false ? undefined : o.apiRoot)
  if (api) lines.push(`    BOT_API_ROOT=${api}${ctx.botApiRoot ? '   (the api proxy: its calls are recorded)' : ''}`)
  // Offline the emulator's bot has the server's own token (from the same .env), so it can stay as it is.
  if (o.offline)
    lines.push(
      forward.token
        ? `    BOT_TOKEN        as in your ${forward.token === '.env' ? '.env' : 'environment'} (the emulator's bot has it too)`
        : '    BOT_TOKEN        not set in the environment or .env (or not shaped like a token): put one there (any well-formed token works offline) and run again, so that your server and the emulator share it',
    )
  const header = 'checked against the X-Telegram-Bot-Api-Secret-Token header'
  if (forward.secret)
    lines.push(`    WEBHOOK_SECRET   as in your ${forward.secret.from === '.env' ? '.env' : 'environment'}, ${header}`)
  else
    lines.push(
      `    WEBHOOK_SECRET   ${header}: not set in the environment or .env, so bot dev uses the one it keeps for this bot.`,
      `                     Give it to your server without printing it: WEBHOOK_SECRET="$(cat ${keptSecretPath(ctx)})" <your command>,`,
      '                     or put WEBHOOK_SECRET=<that value> in .env (bot dev then uses it too).',
    )
  return lines.join('\n')
}
