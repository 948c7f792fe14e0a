/**
 * api-proxy: the bot's BOT_API_ROOT is a loopback proxy to the real api root (or the emulator)
 * that records each Bot API call, and in polling mode the updates getUpdates returns.
 */
import {startApiProxy, type ApiProxy} from '../../inspector/proxy/api-proxy.js'
import type {SessionPart} from '../part.js'

export function apiProxyPart(): SessionPart {
  let proxy: ApiProxy | undefined
  return {
    name: 'api-proxy',
    async start(ctx) {
      const o = ctx.options
      const recording = ctx.recording!
      proxy = await startApiProxy({
        upstream: o.apiRoot,
        secrets: recording.secrets,
        onCall: (call, raw) => recording.onCall(call, raw),
        local: recording.local,
        onUpdates: o.mode === 'polling' ? (updates) => recording.onPollingUpdates(updates) : undefined,
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
