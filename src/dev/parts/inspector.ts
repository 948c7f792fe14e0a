/**
 * inspector: the loopback page and JSON API over the session's history (random key, loopback Host
 * only). Its replay is the session's (control/actions.ts), which applies the control port's Update
 * check. Once the session ends, it takes no new connection and closes its idle ones, so the
 * teardown's own requests (deleteWebhook) find file descriptors whatever was open.
 */
import {randomBytes} from 'node:crypto'

import {inspectorText} from '../../inspector/render.js'
import {startInspectorServer, type InspectorServer} from '../../inspector/web/server.js'
import type {SessionPart} from '../part.js'

export function inspectorPart(): SessionPart {
  let server: InspectorServer | undefined
  return {
    name: 'inspector',
    async start(ctx) {
      const recording = ctx.recording!
      const key = randomBytes(16).toString('hex')
      const chat = ctx.options.chatPage ? await ctx.options.chatPage(key) : undefined
      server = await startInspectorServer({
        ...(chat ? {chat} : {}),
        history: recording.history!,
        actions: {replay: (id, edited) => recording.triggers.replay(id, edited)},
        key,
        port: ctx.options.inspectPort,
        secrets: recording.secrets,
        openCodeTtlMs: ctx.options.openCodeTtlMs,
        projectDir: ctx.options.cwd,
        ...(ctx.options.scriptCommand ? {scriptCommand: ctx.options.scriptCommand} : {}),
      })
      const started = server
      ctx.signal.addEventListener('abort', () => started.quiesce(), {once: true})
      ctx.inspectorUrl = server.url
      ctx.inspectorOpenUrl = () => started.openUrl()
      if (server.chatUrl) {
        ctx.chatUrl = server.chatUrl
        ctx.chatOpenUrl = () => started.openUrl('/chat')
      }
      ctx.emit({type: 'step', step: 'inspector', status: 'ok', text: inspectorText(server.url)})
    },
    async stop() {
      await server?.close()
    },
  }
}
