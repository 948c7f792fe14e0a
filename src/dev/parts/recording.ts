/**
 * recording: the session's update history (with the bot's answers and its Bot API calls) and the
 * actions behind `bot trigger` / `bot replay`; the api proxy, the relay, the page and the control
 * port feed it or read it. The webhook secret and path are redacted from all of it.
 */
import type {SessionPart} from '../part.js'
import {SessionRecording} from '../recording.js'

export function recordingPart(): SessionPart {
  let recording: SessionRecording | undefined
  return {
    name: 'recording',
    async start(ctx) {
      const o = ctx.options
      recording = new SessionRecording({
        token: o.token,
        mode: o.mode,
        apiProxy: o.apiProxy,
        offline: o.offline,
        keepDir: o.keepDir ?? ctx.stateDir,
        beforeInject: o.beforeInject,
        emit: ctx.emit,
        actionTimeoutMs: o.actionTimeoutMs,
        botDown: () => ctx.runner?.downReason(),
      })
      recording.addSecrets(ctx.webhookSecret, ctx.webhookPath)
      recording.open(ctx.me!)
      ctx.recording = recording
    },
    async stop() {
      recording?.history?.close()
    },
  }
}
