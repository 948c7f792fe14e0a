/**
 * Start the session's relay on loopback with its update lines wired to the session's events, and
 * pick the bot's port (unless one was given) once the relay holds its own.
 */
import {freePort} from '../../lib/free-port.js'
import type {DevEventSink} from '../events.js'
import {Relay} from './relay.js'
import {rejectedText, updateText} from '../render.js'

export interface StartRelayOptions {
  secret: string
  path: string
  /** Redacted from update previews even where only part of it shows. */
  token?: string
  holdTimeoutMs?: number
  port?: number
  /** The port the bot listens on (--port); without it a free one is picked. */
  botPort?: number
  emit: DevEventSink
  /** An update failed (5xx) or was held for long: the delivery may want to look at the webhook. */
  onStall?: () => void
}

export async function startRelay(o: StartRelayOptions): Promise<{relay: Relay; botPort: number}> {
  const relay = new Relay({
    secret: o.secret,
    path: o.path,
    holdTimeoutMs: o.holdTimeoutMs,
    port: o.port,
    secrets: [o.token, o.secret],
    onUpdate: (e) => {
      o.emit({type: 'update', ...e, text: updateText(e)})
      if (e.status >= 500 || e.heldMs > 5000) o.onStall?.()
    },
    onRejected: (e) => o.emit({type: 'rejected', ...e, text: rejectedText(e)}),
    // Refusals beyond the first few are summarised by the relay: one line per window.
    onRefusedSummary: (e) => o.emit({type: 'info', text: e.text}),
  })
  await relay.listen()
  // The bot's port is chosen once the relay holds its own, and outside the ephemeral range (see
  // freePort): a probed port there may be handed to the relay or to a connection of ours before the
  // bot listens, and the bot would die with EADDRINUSE.
  try {
    return {relay, botPort: o.botPort ?? (await freePort())}
  } catch (error) {
    await relay.close()
    throw error
  }
}
