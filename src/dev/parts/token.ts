/** token: getMe, so a wrong token stops the session before anything else happens. */
import type {SessionPart} from '../part.js'

export function tokenPart(): SessionPart {
  return {
    name: 'token',
    async start(ctx) {
      ctx.me = await ctx.step(
        'token',
        'Checking the token…',
        () => ctx.api.getMe({signal: ctx.signal}),
        (u) => `Bot @${u.username ?? u.id} (id ${u.id})`,
      )
    },
  }
}
