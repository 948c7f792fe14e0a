/**
 * inspector: the loopback page and JSON API over the session's history (random key, loopback Host
 * only). Its replay is the session's (control/actions.ts), which applies the control port's Update
 * check. Once the session ends, it takes no new connection and closes its idle ones, so the
 * teardown's own requests (deleteWebhook) find file descriptors whatever was open.
 */
import {randomBytes} from 'node:crypto'

import {inspectorText} from '../../inspector/render.js'
import {startInspectorServer, type InspectorServer} from '../../inspector/web/server.js'
import {createSessionChatPage} from '../../chat/online.js'
import type {SessionContext, SessionPart} from '../part.js'

export function inspectorPart(): SessionPart {
  let server: InspectorServer | undefined
  return {
    name: 'inspector',
    async start(ctx) {
      const recording = ctx.recording!
      const key = randomBytes(16).toString('hex')
      // Offline the session is given its chat page (the emulator's); online the page draws what the session records.
      const chat = ctx.options.chatPage
        ? await ctx.options.chatPage(key)
        : ctx.options.offline
          ? undefined
          : await onlineChatPage(ctx, key)
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

/** How long the page waits for a file from Telegram (getFile, then its bytes). */
const FILE_TIMEOUT_MS = 15_000
/** The largest file the page fetches (a bot can download up to 20 MB). */
const FILE_MAX_BYTES = 20 * 1024 * 1024

/**
 * Online: the chat page over what the session records (src/chat/online.ts). Its input goes through the session's
 * trigger engine (bot trigger's path); the files it shows are fetched from Telegram by the session, never by the page
 * (their URL holds the token).
 */
function onlineChatPage(ctx: SessionContext, key: string) {
  const recording = ctx.recording!
  const o = ctx.options
  return createSessionChatPage({
    key,
    base: '/chat/',
    bot: () => ctx.me,
    history: recording.history!,
    onCall: (listener) =>
      recording.onRawCall((call, raw) => {
        if (call.ok) listener(call.method, raw.params, raw.result)
      }),
    trigger: (request) => recording.triggers.trigger(request),
    cannotTrigger: () =>
      o.mode === 'polling' || ctx.delivery?.name === 'polling' || ctx.botPolls
        ? 'This session runs the bot on long polling against Telegram: bot dev cannot hand it an update (run it in webhook mode, the default).'
        : undefined,
    file: async (fileId) => {
      const root = o.apiRoot.replace(/\/+$/, '')
      const signal = AbortSignal.timeout(FILE_TIMEOUT_MS)
      const info = (await (
        await fetch(`${root}/bot${o.token}/getFile?file_id=${encodeURIComponent(fileId)}`, {signal})
      ).json()) as {ok?: boolean; result?: {file_path?: unknown; file_size?: unknown}}
      const path = info.result?.file_path
      if (!info.ok || typeof path !== 'string' || Number(info.result?.file_size ?? 0) > FILE_MAX_BYTES) return undefined
      const res = await fetch(`${root}/file/bot${o.token}/${path.split('/').map(encodeURIComponent).join('/')}`, {
        signal,
      })
      if (!res.ok) return undefined
      const data = Buffer.from(await res.arrayBuffer())
      return data.length > FILE_MAX_BYTES ? undefined : {data, name: path.split('/').pop()}
    },
    secrets: recording.secrets,
  })
}
