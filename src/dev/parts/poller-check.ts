/**
 * poller-check (webhook mode): before the session takes the updates, is another program
 * long-polling this bot? The check runs while the relay, the bot and the tunnel start; the delivery
 * reads its answer once it is about to take the updates, which closes its window (at least 0.5 s,
 * at most 5 s): a poller that comes back slowly after its 409 (a loaded machine) is heard in the
 * time the start takes anyway.
 */
import type {SessionPart} from '../part.js'
import {findRunningPoller} from '../poller-check.js'

const WINDOW_MIN_S = 0.5
/** Below the probe's 10 s request timeout: each poll's long-poll timeout is what is left of the window. */
const WINDOW_MAX_S = 5

export function pollerCheckPart(): SessionPart {
  return {
    name: 'poller-check',
    async start(ctx) {
      const wanted = new AbortController()
      const found = findRunningPoller(ctx.api, ctx.options.token, {
        signal: ctx.signal,
        seconds: WINDOW_MAX_S,
        until: {signal: wanted.signal, minSeconds: WINDOW_MIN_S},
        excludeMarker: ctx.marker,
      }).catch(() => undefined)
      ctx.pollers = {
        answer: () => {
          wanted.abort()
          return found
        },
      }
    },
  }
}
