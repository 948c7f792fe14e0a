/**
 * claim: the bot's session state file (session-store/state.ts) becomes this session's, or the
 * session stops when another live `bot dev` holds it; a dead one's record is kept for the repair
 * (webhook-check). On exit the file goes, unless the webhook could not be cleaned (then the next
 * run, or `bot doctor`, repairs it). On a second Ctrl-C it goes once the webhook part's quick clean
 * is over, unless that failed.
 */
import {removeRestoreSecret, removeState, type SessionState} from '../../session-store/state.js'
import type {User} from '../../telegram/index.js'
import type {SessionContext} from '../part.js'
import type {DevSessionOptions} from '../options.js'
import type {SessionPart} from '../part.js'
import {claimSession} from '../repair.js'

/** The session state this run claims for the bot (no token in it). */
export function freshState(me: User, o: Pick<DevSessionOptions, 'cwd' | 'mode' | 'apiRoot'>): SessionState {
  return {
    version: 1,
    botId: me.id,
    ...(me.username ? {botUsername: me.username} : {}),
    pid: process.pid,
    startedAt: new Date().toISOString(),
    cwd: o.cwd,
    mode: o.mode,
    apiRoot: o.apiRoot,
  }
}

export function claimPart(): SessionPart {
  let ctx: SessionContext | undefined
  let me: User | undefined
  const release = () => {
    if (!ctx || !me) return
    removeState(me.id, ctx.stateDir)
    removeRestoreSecret(me.id, ctx.stateDir)
  }
  return {
    name: 'claim',
    async start(c) {
      const bot = c.me!
      const previous = await c.step(
        'session',
        'Checking for another `bot dev` on this bot…',
        async () => {
          const {state, previous} = claimSession(bot, freshState(bot, c.options), c.stateDir)
          c.claimed(state)
          ctx = c
          me = bot
          return previous
        },
        (p) => (p ? `Previous session (pid ${p.pid}) ended without cleaning up` : 'No other session'),
      )
      c.previous = previous
    },
    async stop() {
      // A webhook left set: keep the record so the next run (or bot doctor) can repair it.
      if (!ctx?.webhook.cleanFailed && !ctx?.menuButton.cleanFailed) release()
    },
    async abandon() {
      // The webhook part, later in the list, is let go of first: the record stays when its quick clean failed.
      const [outcome, menu] = await Promise.all([ctx?.webhook.abandoned, ctx?.menuButton.abandoned])
      if (typeof outcome !== 'object' && typeof menu !== 'object') release()
    },
  }
}
