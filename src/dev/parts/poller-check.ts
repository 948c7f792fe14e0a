/**
 * poller-check (webhook mode): before the session takes the updates, is another program
 * long-polling this bot? The check (~1 s) runs while the relay, the bot and the tunnel start; the
 * delivery reads its answer once it is about to take the updates.
 */
import type {SessionPart} from '../part.js'
import {findRunningPoller} from '../poller-check.js'

export function pollerCheckPart(): SessionPart {
  return {
    name: 'poller-check',
    async start(ctx) {
      ctx.pollers = findRunningPoller(ctx.api, ctx.options.token, {
        signal: ctx.signal,
        seconds: 0.5,
        excludeMarker: ctx.marker,
      }).catch(() => undefined)
    },
  }
}
