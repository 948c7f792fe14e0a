/**
 * webhook: the session's hold on the bot's webhook (webhook/session-webhook.ts: the only caller of
 * setWebhook and deleteWebhook for the session) from the moment updates may be taken until the end.
 * It sits just before the delivery, so the reverse teardown cleans the webhook after the delivery
 * stopped taking updates and before the bot stops: our webhook is deleted (pending updates kept),
 * or the production webhook --force took over is restored (polling mode: after the bot stopped
 * polling). A failure keeps the state file for a repair (the claim part reads cleanFailed). A
 * second signal cleans at once, quickly.
 */
import type {SessionContext, SessionPart} from '../part.js'
import {maskUrl} from '../../lib/mask-url.js'
import {abandonWindow} from '../options.js'
import {errorMessage} from '../render.js'
import type {CleanResult, SessionWebhook} from '../webhook/session-webhook.js'

/** How long deleting or restoring may take at exit (a second signal: the runner's abandon window less a moment to say so). */
const CLEAN_MS = 3000

export function webhookPart(): SessionPart {
  let ctx: SessionContext | undefined
  return {
    name: 'webhook',
    // The clean's own deadline, and a margin: its failure is told, not cut short.
    stopMinMs: CLEAN_MS + 1000,
    async start(c) {
      ctx = c
    },
    async stop() {
      if (ctx) await clean(ctx)
    },
    async abandon() {
      if (!ctx) return
      const {webhook, emit} = ctx
      const result = await webhook.abandon(Math.max(1, abandonWindow(ctx.options) - 500))
      if (result === 'nothing') return
      if (typeof result === 'object')
        emit({
          type: 'warn',
          text: `Could not delete the webhook: ${errorMessage(result.error)}`,
          fix: repairFix(webhook),
        })
      else
        emit({
          type: 'teardown',
          step: 'webhook',
          ok: true,
          text: result === 'restored' ? '✓ Restored the previous webhook' : '✓ Webhook deleted (pending updates kept)',
        })
    },
  }
}

/** Restore the replaced webhook, else delete ours, and say so; a failure keeps the state file for a repair. */
async function clean(ctx: SessionContext): Promise<void> {
  const {webhook, emit} = ctx
  try {
    const text = cleanedText(await webhook.clean(CLEAN_MS), webhook)
    if (text) emit({type: 'teardown', step: 'webhook', ok: true, text})
  } catch (error) {
    webhook.cleanFailed = true
    emit({
      type: 'teardown',
      step: 'webhook',
      ok: false,
      text: `✗ Could not ${webhook.replaced ? 'restore' : 'delete'} the webhook: ${errorMessage(error)}`,
    })
    emit({
      type: 'warn',
      text: 'The webhook still points at this (now closed) session, so the bot gets no updates.',
      fix: repairFix(webhook),
    })
  }
}

/** The teardown line for what cleaning the webhook did. */
function cleanedText(result: CleanResult, webhook: SessionWebhook): string | undefined {
  if (result === 'restored')
    return `✓ Restored the previous webhook ${maskUrl(webhook.replaced!.url)}${webhook.restoreSecret ? ' with its secret' : ''}`
  if (result === 'deleted') return '✓ Webhook deleted (pending updates kept): the bot is back on long polling'
  if (result === 'left-foreign')
    return `The webhook ${maskUrl(webhook.foreign ?? '')} set by someone else during this session is left as it is.`
  return undefined
}

/** What to run later when the webhook could not be cleaned at exit. */
function repairFix(webhook: SessionWebhook): string {
  const replaced = webhook.replaced
  if (replaced)
    return `Later, run \`bot dev\` again (it repairs this and restores ${maskUrl(replaced.url)}), or \`bot webhook set <its URL>${webhook.restoreSecret ? ' --secret-token <production secret>' : ''}\`.`
  return 'Later, run `bot webhook delete` (pending updates kept), or `bot dev` again, which repairs it.'
}
