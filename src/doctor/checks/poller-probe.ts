/** poller-probe: another process long-polling this token, found through 409 (see ../probe.ts). */
import {explainForDoctor} from '../api-error.js'
import {isPidAlive} from '../../session-store/processes.js'
import {probePollers} from '../probe.js'
import type {TokenHolder} from '../processes.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'
import {describeHolder, mayPoll} from './local-pollers.js'

const INTERRUPTS =
  "Note: the probe interrupts the other poller's pending getUpdates with a 409; grammY and Telegraf stop polling on 409, so restart that copy if you meant to keep it."

const ELSEWHERE_FIX =
  'Find the other copy where this bot is deployed: a server (`ps aux | grep -i bot`, `pm2 list`, `systemctl list-units`), a container (`docker ps`), a hosting dashboard or a CI job, and stop it. If it cannot be found, revoke the token in @BotFather (/revoke): the other copy then gets 401 and stops; put the new token in .env.'

/** `kill` only for processes connected to the Bot API; the others are named with what they are. */
function stopFix(running: TokenHolder[]): string {
  const users = running.filter((h) => h.kind === 'api-client')
  const rest = running.filter((h) => h.kind !== 'api-client')
  const parts: string[] = []
  if (users.length > 0)
    parts.push(
      `Stop the extra copy (kill ${users.map((h) => h.pid).join(' ')}) so that only one process polls this token.`,
    )
  if (rest.length > 0)
    parts.push(
      `${users.length > 0 ? 'Otherwise check' : 'Check'} ${rest.map((h) => `pid ${h.pid}`).join(', ')} (see above): stop the one that is an old copy of your bot, so that only one process polls this token.`,
    )
  return parts.join('\n')
}

export const pollerProbeCheck: Check = {
  id: 'poller-probe',
  title: 'Concurrent pollers (409 probe)',
  needs: ['token'],
  prefetch: (ctx) => {
    if (ctx.token && ctx.probe) void ctx.webhookInfo()
  },
  timeoutMs: (ctx) => ctx.probeSeconds * 1000 + 20_000,
  async run(ctx: DoctorContext): Promise<CheckResult> {
    if (!ctx.probe) return {status: 'skipped', detail: 'Skipped (--no-probe).'}
    if (!ctx.api) return {status: 'skipped', detail: 'No token (see Configuration).'}
    let url: string
    try {
      url = (await ctx.webhookInfo()).url
    } catch {
      return {status: 'skipped', detail: 'Not run: the webhook state could not be read (see Delivery mode).'}
    }
    if (url)
      return {
        status: 'skipped',
        detail:
          'Not run: a webhook is set, so every getUpdates is refused with 409 "webhook is active" (a delivery finding, not a second poller: see Delivery mode).',
      }

    // List the local token holders BEFORE probing: a poller that stops on 409 may exit at our first poll.
    // Only those that may poll: this CLI, a shell or a process with no connection are not the other poller.
    const local = await ctx.outcome('local-pollers')
    // Not selected (--only/--skip): nothing is known about this machine's processes.
    const localChecked = local !== undefined
    const all = (local?.data as TokenHolder[] | undefined) ?? []
    const holders = all.filter(mayPoll)
    const outcome = await probePollers(ctx.api, {seconds: ctx.probeSeconds, signal: ctx.signal})
    const polls = `${outcome.polls} getUpdates with limit 1 and no offset: nothing confirmed, no update consumed`
    switch (outcome.kind) {
      case 'webhook':
        return {
          status: 'skipped',
          detail:
            'Stopped: a webhook was set while probing (getUpdates got 409 "webhook is active"); see Delivery mode.',
        }
      case 'error': {
        const e = explainForDoctor(outcome.error, ctx.apiRoot)
        return {
          status: 'warn',
          detail: ctx.redact(`The probe could not finish: ${e.message}`),
          fix: e.fix && ctx.redact(e.fix),
        }
      }
      case 'clear':
        if (outcome.updatesPending)
          return {
            status: 'warn',
            detail: `No other poller within ${ctx.probeSeconds} s, and updates are waiting that nobody takes (${polls}): no poller is running for this bot.\n${INTERRUPTS}`,
            fix: 'Start your bot (`bot dev`, or your own start command); if it runs, check that it polls this token and this api root.',
          }
        return {status: 'ok', detail: `No other poller within ${ctx.probeSeconds} s (${polls}).\n${INTERRUPTS}`}
      case 'conflict': {
        const evidence =
          outcome.evidence === 'direct'
            ? `Another process is long-polling this token: the probe's waiting getUpdates was answered 409 "Conflict: terminated by other getUpdates request" after ${(outcome.afterMs / 1000).toFixed(1)} s.`
            : `Another process was waiting in getUpdates with this token: the probe's first poll displaced it (the Bot API then held our next 409 back ${(outcome.heldMs! / 1000).toFixed(1)} s, which it does only right after sending a 409 to someone else).`
        const exited = holders.filter((h) => !isPidAlive(h.pid))
        const stopped =
          exited.length > 0
            ? `\n${exited.map((h) => `pid ${h.pid}`).join(', ')} exited during the probe: a poller that stops on 409.`
            : ''
        const where =
          holders.length > 0
            ? ['It is probably one of these local processes:', ...holders.map((h) => `  ${describeHolder(h)}`)].join(
                '\n',
              )
            : !localChecked
              ? "This machine's processes were not looked at (the local-pollers check did not run), so it may run here or elsewhere."
              : all.length > 0
                ? 'No other process on this machine that holds the token is connected to the Bot API, so it runs elsewhere: a server, a container, another machine (or a CI job).'
                : 'No other process on this machine holds the token, so it runs elsewhere: a server, a container, another machine (or a CI job).'
        return {
          status: 'fail',
          detail: ctx.redact(`${evidence}\n${where}${stopped}\n${INTERRUPTS}`),
          fix: !localChecked
            ? 'Run `bot doctor --only local-pollers,poller-probe` (or without --only) to look for it on this machine first.'
            : holders.length === 0
              ? ELSEWHERE_FIX
              : exited.length < holders.length
                ? stopFix(holders.filter((h) => !exited.includes(h)))
                : "The other copy stopped on the probe's 409; make sure it does not start again next to your bot (one poller per token), or move one of them to a webhook.",
        }
      }
    }
  },
}
