/**
 * local-pollers: other local processes holding the token (an old instance of the bot, a forgotten
 * terminal), each said for what it is. Only one connected to the Bot API gets a `kill` line: this
 * CLI (`bot emulator`, `bot dev`), a shell or an editor that merely carries BOT_TOKEN, or a process
 * with no connection do not; one that cannot be told is said to be so.
 */
import {findTokenHolders, type TokenHolder, type Unreadable} from '../processes.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'

export function describeHolder(h: TokenHolder): string {
  const since = h.startedAt ? `, started ${h.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}` : ''
  return `pid ${h.pid}${since}: ${h.command} (token in ${h.where.join(', ')}): ${h.what}`
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

/** "2 processes could not be read (reason): pid 1 (cmd), pid 2 (cmd)", one line per reason. */
export function unreadableLines(list: readonly Unreadable[]): string[] {
  const byReason = new Map<string, Unreadable[]>()
  for (const u of list) byReason.set(u.reason, [...(byReason.get(u.reason) ?? []), u])
  return [...byReason].map(([reason, us]) => {
    const shown = us.slice(0, 5).map((u) => `pid ${u.pid} (${u.command})`)
    return `${us.length} ${plural(us.length, 'process', 'processes')} could not be read (${reason}): ${shown.join(', ')}${us.length > 5 ? ', …' : ''}`
  })
}

/** Holders that may be polling: connected to the Bot API, or that cannot be told. */
export function mayPoll(h: TokenHolder): boolean {
  return h.kind === 'api-client' || h.kind === 'unknown' || h.kind === 'dev-bot'
}

export const localPollersCheck: Check = {
  id: 'local-pollers',
  title: 'Other local processes with this token',
  async run(ctx: DoctorContext): Promise<CheckResult> {
    if (!ctx.token) return {status: 'skipped', detail: 'No token to look for (see Configuration).'}
    const scan = await findTokenHolders(ctx.token, {apiRoot: ctx.apiRoot, env: ctx.env})
    if (!scan.supported)
      return {status: 'skipped', detail: `Listing other processes is not supported on ${process.platform}.`}
    const whose = process.getuid?.() === 0 ? 'on this machine' : 'of yours'
    const unread = unreadableLines(scan.unreadable)
    const n = scan.holders.length
    if (n === 0)
      return {
        status: 'ok',
        detail: ctx.redact([`No other process ${whose} holds this token.`, ...unread].join('\n')),
        data: scan.holders,
      }

    const users = scan.holders.filter((h) => h.kind === 'api-client')
    const unknown = scan.holders.filter((h) => h.kind === 'unknown')
    const head =
      users.length > 0
        ? `${n} other ${plural(n, 'process', 'processes')} ${whose} ${plural(n, 'holds', 'hold')} this token; ${users.length} ${plural(users.length, 'is', 'are')} connected to the Bot API:`
        : `${n} other ${plural(n, 'process', 'processes')} ${whose} ${plural(n, 'holds', 'hold')} this token; none is connected to the Bot API:`
    const fixes: string[] = []
    if (users.length > 0)
      fixes.push(
        `If one is an old copy of your bot (a second poller means 409 Conflict for one of them), stop it: kill ${users.map((h) => h.pid).join(' ')}`,
      )
    if (unknown.length > 0)
      fixes.push(
        `Whether ${unknown.map((h) => `pid ${h.pid}`).join(', ')} ${plural(unknown.length, 'polls', 'poll')} with this token cannot be told from here: if one is an old copy of your bot, stop it.`,
      )
    return {
      status: fixes.length > 0 ? 'warn' : 'ok',
      detail: ctx.redact([head, ...scan.holders.map((h) => `  ${describeHolder(h)}`), ...unread].join('\n')),
      fix: fixes.length > 0 ? ctx.redact(fixes.join('\n')) : undefined,
      data: scan.holders,
    }
  },
}
