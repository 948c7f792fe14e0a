/** local-pollers: other processes of this user holding the token (an old instance of the bot, a forgotten terminal). */
import {findTokenHolders, type TokenHolder} from '../processes.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'

export function describeHolder(h: TokenHolder): string {
  const since = h.startedAt ? `, started ${h.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}` : ''
  return `pid ${h.pid}${since}: ${h.command} (token in ${h.where.join(', ')})`
}

export const localPollersCheck: Check = {
  id: 'local-pollers',
  title: 'Other local processes with this token',
  async run(ctx: DoctorContext): Promise<CheckResult> {
    if (!ctx.token) return {status: 'skipped', detail: 'No token to look for (see Configuration).'}
    const scan = await findTokenHolders(ctx.token)
    if (!scan.supported) return {status: 'skipped', detail: `Listing other processes is not supported on ${process.platform}.`}
    const unreadable = scan.unreadable > 0 ? ` (${scan.unreadable} of your processes could not be read)` : ''
    if (scan.holders.length === 0)
      return {status: 'ok', detail: `No other process of yours holds this token${unreadable}.`, data: scan.holders}
    const n = scan.holders.length
    return {
      status: 'warn',
      detail: ctx.redact(
        [`${n} other process${n === 1 ? '' : 'es'} of yours hold${n === 1 ? 's' : ''} this token${unreadable}:`, ...scan.holders.map((h) => `  ${describeHolder(h)}`)].join('\n'),
      ),
      fix: `If one is an old copy of your bot (a second poller means 409 Conflict for one of them), stop it: kill ${scan.holders.map((h) => h.pid).join(' ')}`,
      data: scan.holders,
    }
  },
}
