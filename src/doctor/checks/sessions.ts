/**
 * sessions: a `bot dev` that died without cleaning up (SIGKILL, a crash, a closed laptop) leaves
 * its webhook set, pointing at a tunnel that no longer exists: Telegram queues the updates and
 * a long-polling bot gets 409. The session state file says what it set and under which pid. Its
 * tunnel program (cloudflared) may still run too: reported when the marker in its environment proves
 * it is that session's (a pid since reused by another program is not).
 */
import {maskUrl} from '../../lib/mask-url.js'
import {botIdOf} from '../../telegram/index.js'
import {isOrphan, isPidAlive} from '../../session-store/processes.js'
import {readState, stateDir, type SessionState} from '../../session-store/state.js'
import {TUNNEL_MARKER_ENV} from '../../tunnel/types.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'

function describe(state: SessionState): string {
  return `\`bot dev\` (pid ${state.pid}, started ${state.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}, in ${state.cwd}, ${state.mode} mode)`
}

export const sessionsCheck: Check = {
  id: 'sessions',
  title: 'Dev sessions',
  needs: ['token'],
  prefetch: (ctx) => {
    if (ctx.token) void ctx.webhookInfo()
  },
  async run(ctx: DoctorContext): Promise<CheckResult> {
    const botId = ctx.token ? botIdOf(ctx.token) : undefined
    if (botId === undefined) return {status: 'skipped', detail: 'No bot id in the token (see Configuration).'}
    const state = readState(botId)
    if (!state) return {status: 'ok', detail: `No \`bot dev\` session recorded for this bot (${stateDir()}).`}
    return withTunnelOrphan(await examine(ctx, state), state)
  },
}

/** A dead session's cloudflared still running (and provably its own): said, with how to stop it. */
function withTunnelOrphan(result: CheckResult, state: SessionState): CheckResult {
  if (isPidAlive(state.pid) || !isOrphan(state.tunnel, TUNNEL_MARKER_ENV)) return result
  const pid = state.tunnel!.pid
  return {
    ...result,
    status: result.status === 'fail' ? 'fail' : 'warn',
    detail: `${result.detail}\nThe tunnel program it started (cloudflared, pid ${pid}) is still running.`,
    fix: `${result.fix ? `${result.fix}\n` : ''}Run \`bot dev\` again in ${state.cwd} (it stops it), or stop it yourself: \`kill -TERM -${pid}\`.`,
  }
}

async function examine(ctx: DoctorContext, state: SessionState): Promise<CheckResult> {
  if (state.apiRoot.replace(/\/+$/, '') !== ctx.apiRoot)
    return {
      status: 'ok',
      detail: `${describe(state)} is recorded against another Bot API server (${state.apiRoot}); not checked here.`,
    }
  const alive = isPidAlive(state.pid)
  let currentUrl: string | undefined
  try {
    currentUrl = (await ctx.webhookInfo()).url
  } catch {
    currentUrl = undefined // the delivery check reports why
  }
  const ours = state.webhook?.url
  const stillSet = ours !== undefined && currentUrl === ours

  if (alive) {
    if (state.mode === 'webhook' && ours && currentUrl !== undefined && !stillSet)
      return {
        status: 'warn',
        detail: `${describe(state)} is running, but the webhook is no longer the one it set${currentUrl ? ` (now ${ctx.redact(maskUrl(currentUrl))})` : ' (none is set)'}: updates do not reach it.`,
        fix: 'Something else changed the webhook (another `bot webhook set`, or the bot itself calling setWebhook/deleteWebhook). Stop that, then restart `bot dev`.',
      }
    return {status: 'ok', detail: `${describe(state)} is running.`}
  }

  if (currentUrl === undefined && ours)
    return {
      status: 'warn',
      detail: `${describe(state)} is gone; whether its webhook (${ctx.redact(maskUrl(ours))}) is still set could not be read (see Delivery mode).`,
      fix: `Run \`bot dev\` again in ${state.cwd} (it repairs a webhook left behind), or \`bot webhook info\` to see the webhook.`,
    }
  if (stillSet) {
    const restore = state.replaced
      ? ` It also restores the webhook it replaced (${ctx.redact(maskUrl(state.replaced.url))}).`
      : ''
    return {
      status: 'fail',
      detail: `${describe(state)} is gone but its webhook is still set (${ctx.redact(maskUrl(ours!))}): updates queue up for a tunnel that no longer exists, and long polling gets 409.`,
      fix: `Run \`bot webhook delete\` (pending updates are kept), or run \`bot dev\` again in ${state.cwd}: it repairs this.${restore}`,
    }
  }
  return {
    status: 'ok',
    detail: `A state file remains from ${describe(state)}, which is gone, but its webhook is no longer set; the next \`bot dev\` removes the file.`,
  }
}
