/** token: getMe, so a wrong token stops the session before anything else happens. */
import type {User} from '../../telegram/index.js'
import type {SessionPart} from '../part.js'

export function tokenPart(): SessionPart {
  return {
    name: 'token',
    async start(ctx) {
      const early = ctx.options.me
      ctx.me = await ctx.step(
        'token',
        'Checking the token…',
        // A getMe the CLI started early still ends with the session (Ctrl-C while it waits).
        () => (early ? untilAborted(early, ctx.signal) : ctx.api.getMe({signal: ctx.signal})),
        (u) => `Bot @${u.username ?? u.id} (id ${u.id})`,
      )
    },
  }
}

function untilAborted(work: Promise<User>, signal: AbortSignal): Promise<User> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
