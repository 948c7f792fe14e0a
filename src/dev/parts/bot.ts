/**
 * bot: the user's bot as a child process with the env contract (bot/runner.ts), restarted on file
 * changes; it tells the runner when it is up and when it exits unasked. With a public URL (the tunnel) its
 * environment gets WEB_APP_URL (the public URL + `/app/`: --web-app's dev server, else the bot's own `/app/`, both
 * through the relay) once the tunnel's URL is known, a new one when the tunnel reopens elsewhere.
 */
import {BotRunner} from '../bot/runner.js'
import {sessionImports} from '../imports/imports.js'
import type {SessionPart} from '../part.js'

export function botPart(): SessionPart {
  let runner: BotRunner | undefined
  return {
    name: 'bot',
    stopMinMs: 1000,
    async start(ctx) {
      const o = ctx.options
      if (!o.command) throw new Error('no bot command')
      // Read at each (re)start: WEB_APP_URL is added once the public URL is known, and follows it.
      const imports = o.watch && !o.forwardTo ? sessionImports(ctx, o.cwd, ctx.signal) : undefined
      const env: Record<string, string> = {
        ...(imports ? {...o.env, ...imports.env({...process.env, ...o.env})} : o.env),
      }
      const webAppUrl = (url: string | undefined) => {
        if (url) env.WEB_APP_URL = url
      }
      ctx.events.on('webhook-url', (url) => webAppUrl(ctx.webAppUrl(url)))
      runner = new BotRunner({
        command: o.command,
        cwd: o.cwd,
        token: o.token,
        apiRoot: ctx.botApiRoot ?? (o.passApiRoot === false ? undefined : o.apiRoot),
        // Watching: the bot reports the project files it loads (imports/imports.ts), the watcher restarts for those.
        env,
        mode: o.mode,
        port: ctx.botPort,
        // The preload says when the bot's server listens (imports/listens.ts): the wait for PORT ends then.
        listenSignals: imports?.listens,
        // More files of a save the new bot has not loaded yet need no second restart.
        loads: imports,
        restartOrder: o.restartOrder,
        portFixed: o.port !== undefined,
        overlapTimeoutMs: o.overlapTimeoutMs,
        path: ctx.webhookPath,
        secret: ctx.webhookSecret,
        marker: ctx.marker,
        relay: ctx.relay,
        stopGraceMs: o.stopGraceMs ?? 3000,
        slowStartMs: o.slowStartMs,
        signal: ctx.signal,
        emit: ctx.emit,
        saveState: (p) => ctx.saveState(p),
        webhookUrl: () => ctx.webhook.url,
        onUp: () => ctx.events.emit('bot-up'),
        onExit: () => ctx.events.emit('bot-exit'),
      })
      ctx.runner = runner
      const r = runner
      // The session is ending: no more restarts.
      ctx.signal.addEventListener('abort', () => r.close(), {once: true})
      ctx.events.on('files-changed', (files, more) => void r.restart(files, undefined, more))
      ctx.events.on('restart-requested', (why) => void r.restart([], why))
      // Tunnel mode: the first start waits until the session's webhook URL is known (the tunnel is
      // open, its webhook being set), so WEBHOOK_URL is there from the first start; the relay holds
      // updates meanwhile. A restart asked for before then starts it at once.
      if (o.mode === 'webhook' && !o.bridge)
        void ctx.webhookUrlKnown.then(() => {
          webAppUrl(ctx.webAppUrl())
          if (!ctx.signal.aborted && !r.bot) r.launch()
        })
      else r.launch()
    },
    async stop() {
      await runner?.stop()
    },
    abandon() {
      runner?.kill()
    },
  }
}
