/** token: getMe works; 401 → wrong or revoked, 404 → malformed token or not a Bot API server. */
import {explainForDoctor} from '../api-error.js'
import {BotApiError, botIdOf, inspectToken} from '../../telegram/index.js'
import type {Check, CheckResult, DoctorContext} from '../types.js'

export const tokenCheck: Check = {
  id: 'token',
  title: 'Token accepted (getMe)',
  needs: ['reachability'],
  prefetch: (ctx) => {
    if (ctx.api) void ctx.me()
  },
  async run(ctx: DoctorContext): Promise<CheckResult> {
    if (!ctx.token) return {status: 'skipped', detail: 'No token to check (see Configuration).'}
    const shape = inspectToken(ctx.token)
    if (!shape.valid)
      return {
        status: 'fail',
        detail: `Not sent: the token is malformed (${shape.problem}), so the Bot API could only answer 404; nothing was sent with it.`,
        fix: 'Copy the token again from @BotFather (/mybots → your bot → API Token): it looks like 123456789:AA… with nothing around it.',
      }
    try {
      const me = await ctx.me()
      const name = me.username ? `@${me.username}` : `"${me.first_name}"`
      const idNote = botIdOf(ctx.token) === me.id ? '' : ` (but the token's id part is ${botIdOf(ctx.token)})`
      return {status: 'ok', detail: `${name} (id ${me.id}, "${me.first_name}")${idNote}`, data: me}
    } catch (error) {
      if (!(error instanceof BotApiError)) throw error
      const e = explainForDoctor(error, ctx.apiRoot)
      let fix = e.fix
      if (error.kind === 'api' && error.code === 401)
        fix =
          'The token is wrong or was revoked. Open @BotFather → /mybots → your bot → API Token, copy the current token, and put it in .env as BOT_TOKEN (then restart every copy of the bot).'
      return {status: 'fail', detail: ctx.redact(e.message), fix: fix && ctx.redact(fix)}
    }
  },
}
