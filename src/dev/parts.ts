/**
 * A `bot dev` session as a list of parts, started in this order and stopped in reverse. What varies
 * with the options is chosen here, once: webhook mode runs the relay, starts the bot, then the
 * delivery (through a tunnel the bot's process starts once the webhook URL is known, so it has
 * WEBHOOK_URL; the relay holds updates until it listens), the webhook part just before it, so
 * the webhook is cleaned after the delivery stops and before the bot does; polling mode deletes the webhook first (else the bot's getUpdates gets 409), then
 * starts the bot, and restores a replaced webhook only after the bot stopped polling. With
 * --forward-to there is no bot process: the relay forwards to the user's own server. The web-app part comes after
 * the delivery (--web-app: the menu button set once the public URL is known, put back first on exit; without it,
 * only a dead session's button whose repair failed is put back).
 */
import type {DevSessionOptions} from './options.js'
import type {SessionPart} from './part.js'
import {apiProxyPart} from './parts/api-proxy.js'
import {botPart} from './parts/bot.js'
import {claimPart} from './parts/claim.js'
import {controlPortPart} from './parts/control-port.js'
import {deliveryPart} from './parts/delivery.js'
import {forwardPart} from './parts/forward.js'
import {inspectorPart} from './parts/inspector.js'
import {pollerCheckPart} from './parts/poller-check.js'
import {recordingPart} from './parts/recording.js'
import {relayPart} from './parts/relay.js'
import {tokenPart} from './parts/token.js'
import {watcherPart} from './parts/watcher.js'
import {webhookPart} from './parts/webhook.js'
import {webAppPart} from './parts/web-app.js'
import {webhookCheckPart} from './parts/webhook-check.js'

export function setupSessionParts(o: DevSessionOptions): SessionPart[] {
  const webhook = o.mode === 'webhook'
  // --forward-to: no bot process; the relay forwards to the user's own server.
  const bot = o.forwardTo ? forwardPart() : botPart()
  const getsUpdates = webhook
    ? [relayPart(), bot, webhookPart(), deliveryPart(o.bridge ? 'bridge' : 'tunnel')]
    : [webhookPart(), deliveryPart('polling'), bot]
  return [
    tokenPart(),
    claimPart(),
    webhookCheckPart(),
    recordingPart(),
    ...(o.apiProxy !== false ? [apiProxyPart()] : []),
    ...(o.inspect !== false ? [inspectorPart()] : []),
    controlPortPart(),
    ...(webhook && o.checkPollers ? [pollerCheckPart()] : []),
    ...getsUpdates,
    // After the delivery (the public URL): the menu button is put back first on exit.
    webAppPart(),
    ...(o.watch && !o.forwardTo ? [watcherPart()] : []),
  ]
}
