/**
 * webhook-check: repair what a dead session left (its bot, its tunnel program, its webhook), then
 * read the webhook that is set now: none, or a foreign (production) one, refused unless --force
 * (then restored on exit). In webhook mode the session's secret and random webhook path are made
 * here, before anything that could show them starts.
 */
import {loadOrCreateSecret} from '../../session-store/state.js'
import type {SessionPart} from '../part.js'
import {checkWebhook} from '../repair.js'
import {randomWebhookPath} from '../webhook/operations.js'
import {repairMenuButton} from './web-app.js'

/** The per-bot secret, kept in `keepDir` (offline: per project); where that cannot be written, in the state folder. */
function keptSecret(botId: number, keepDir: string | undefined, stateDir: string): string {
  if (keepDir)
    try {
      return loadOrCreateSecret(botId, keepDir)
    } catch {
      // (an unwritable folder costs only the secret's stability across runs)
    }
  return loadOrCreateSecret(botId, stateDir)
}

export function webhookCheckPart(): SessionPart {
  return {
    name: 'webhook-check',
    async start(ctx) {
      const o = ctx.options
      const me = ctx.me!
      await ctx.step(
        'webhook-check',
        'Reading the current webhook…',
        () =>
          checkWebhook(
            {
              api: o.api,
              me,
              stateDir: ctx.stateDir,
              mode: o.mode === 'webhook' && !o.bridge ? 'webhook' : 'polling',
              force: o.force,
              restoreSecret: o.restoreSecret,
              stopGraceMs: o.stopGraceMs ?? 3000,
              webhook: ctx.webhook,
              signal: ctx.signal,
              emit: ctx.emit,
              saveState: (p) => ctx.saveState(p),
            },
            ctx.previous,
          ),
        (text) => text,
      )
      ctx.check()
      await repairMenuButton(ctx)
      ctx.check()
      // (--forward-to: the secret the user's server already checks, when it has one.)
      if (o.mode === 'webhook')
        [ctx.webhookSecret, ctx.webhookPath] = [
          o.forwardTo?.secret?.value ?? keptSecret(me.id, o.keepDir, ctx.stateDir),
          randomWebhookPath(),
        ]
    },
  }
}
