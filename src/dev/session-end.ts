/**
 * How a `bot dev` session ends (session.ts decides when): the ordered teardown with a line for each
 * cleanup that failed (a webhook left behind gets a fix), the second-signal exit that kills the
 * bot and tries once, quickly, to delete or restore the webhook, and the summary it ends with.
 */
import type {User} from '../telegram/index.js'
import type {BotRunner} from './bot/runner.js'
import type {Delivery} from './delivery/index.js'
import type {DevEventSink} from './events.js'
import type {Relay} from './relay/relay.js'
import type {RelayStats} from './relay/types.js'
import {cleanedText, errorMessage, repairFix, type DevSummary} from './render.js'
import type {SessionInspector} from './session-inspector.js'
import {exitCodeFor, SIGNAL_EXIT, type DevSessionOptions, type StopReason} from './session-options.js'
import type {SessionWebhook} from './webhook/session-webhook.js'
import {removeState} from '../session-store/state.js'
import type {Teardown} from './teardown.js'

/** The teardown step 'webhook': restore the replaced webhook, else delete ours, and say so. */
export async function cleanWebhook(webhook: SessionWebhook, emit: DevEventSink): Promise<void> {
  const text = cleanedText(await webhook.clean(3000), webhook)
  if (text) emit({type: 'teardown', step: 'webhook', ok: true, text})
}

/** Run the registered cleanups (reverse order, bounded by timeoutMs), reporting each that failed. */
export function runTeardown(
  teardown: Teardown,
  timeoutMs: number,
  webhook: SessionWebhook,
  emit: DevEventSink,
): Promise<void> {
  return teardown.run(timeoutMs, (step, error) => {
    if (step !== 'webhook') {
      emit({type: 'teardown', step, ok: false, text: `! ${step} cleanup: ${errorMessage(error)}`})
      return
    }
    webhook.cleanFailed = true
    emit({
      type: 'teardown',
      step,
      ok: false,
      text: `✗ Could not ${webhook.replaced ? 'restore' : 'delete'} the webhook: ${errorMessage(error)}`,
    })
    emit({
      type: 'warn',
      text: 'The webhook still points at this (now closed) session, so the bot gets no updates.',
      fix: repairFix(webhook),
    })
  })
}

/** What the second-signal exit touches: whatever of the session exists by then (read when used). */
export interface EmergencyParts {
  emit: DevEventSink
  webhook: SessionWebhook
  inspector: SessionInspector
  stateDir: string
  me: () => User | undefined
  runner: () => BotRunner | undefined
  delivery: () => Delivery | undefined
  relay: () => Relay | undefined
}

/** Second Ctrl-C: kill the bot, try once (quickly) to delete/restore the webhook; resolves with the exit code. */
export async function emergencyExit(p: EmergencyParts, signal: NodeJS.Signals): Promise<number> {
  p.emit({type: 'warn', text: `${signal} again: exiting now.`})
  p.runner()?.kill()
  p.inspector.abandon()
  let code = SIGNAL_EXIT[signal] ?? 1
  void p
    .delivery()
    ?.stop()
    .catch(() => {})
  if (p.webhook.dirty) {
    try {
      await p.webhook.clean(1500)
      p.emit({
        type: 'teardown',
        step: 'webhook',
        ok: true,
        text: p.webhook.replaced ? '✓ Restored the previous webhook' : '✓ Webhook deleted (pending updates kept)',
      })
      removeState(p.me()!.id, p.stateDir)
    } catch (error) {
      p.webhook.cleanFailed = true
      p.emit({type: 'warn', text: `Could not delete the webhook: ${errorMessage(error)}`, fix: repairFix(p.webhook)})
      code = code || 1
    }
  } else {
    const me = p.me()
    if (me) removeState(me.id, p.stateDir)
  }
  void p.relay()?.close()
  void p
    .delivery()
    ?.close()
    .catch(() => {})
  return code
}

/** What the summary is made of. */
export interface SummaryParts {
  mode: DevSessionOptions['mode']
  apiProxy: boolean | undefined
  stopReason: StopReason | undefined
  runner: BotRunner | undefined
  /** The relay's counters (webhook mode). */
  stats: RelayStats | undefined
  cleanFailed: boolean
  /** Update lines emitted (polling mode: the updates the api proxy saw the bot fetch). */
  updates: number
  /** performance.now() when the session began. */
  started: number
}

/** The session's summary; its exit code is `forcedExitCode` (a second signal) or follows from how it ended. */
export function sessionSummary(p: SummaryParts, forcedExitCode?: number): DevSummary {
  const exitCode =
    forcedExitCode ?? exitCodeFor(p.stopReason, p.runner?.lastExit, p.runner?.crashed ?? false, p.cleanFailed)
  const stats = p.stats ?? {relayed: 0, failures: 0, rejected: 0, repeats: 0}
  // Polling has no relay: the updates the api proxy saw, when it ran (else nothing is known).
  const seen = p.mode === 'polling' && p.apiProxy !== false ? {seen: p.updates} : {}
  return {
    ...stats,
    ...seen,
    restarts: p.runner?.restarts ?? 0,
    durationMs: Math.round(performance.now() - p.started),
    exitCode,
    reason: p.stopReason ?? 'stop',
    mode: p.mode,
  }
}
