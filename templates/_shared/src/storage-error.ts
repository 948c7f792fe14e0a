/**
 * The session storage failed (Redis unreachable, a timeout). That is not the handler's fault and a
 * retry may succeed, so such an update is not acknowledged: the webhook answers 500 and Telegram
 * delivers the update again later. On long polling, grammY and Telegraf stop with the error
 * instead of confirming an update they could not handle (a supervisor restarts the bot, and the
 * update comes again); GramIO confirms updates as it fetches them, so there it is logged and lost.
 */
export class StorageError extends Error {
  constructor(cause: unknown) {
    super(`session storage failed: ${cause instanceof Error ? cause.message : String(cause)}`, {cause})
    this.name = 'StorageError'
  }
}

/** The same storage, with every failure of its methods turned into a StorageError. */
export function guardStorage<S extends object>(storage: S): S {
  return new Proxy(storage, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => unknown).apply(target, args)
        } catch (err) {
          throw err instanceof StorageError ? err : new StorageError(err)
        }
      }
    },
  })
}
