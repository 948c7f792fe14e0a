/**
 * Sessions for GramIO: one JSON object per chat, loaded before the handlers (`ctx.session`) and
 * saved after them, in memory or in Redis. Every instance of the bot reads and writes the same
 * Redis, so any instance can serve any update.
 *
 * GramIO's own plugins for this (@gramio/session with @gramio/storage-redis) do the same; they are
 * not on the npm registry this template was built and tested against, so this small plugin (the
 * same shape: a storage with get/set, a `session` derive) stands in for them. Swap it for them
 * when you can install them.
 */
import {Plugin} from 'gramio'
import type {Redis} from 'ioredis'

export interface SessionStorage<T> {
  get(key: string): Promise<T | undefined>
  set(key: string, value: T): Promise<void>
}

/** Sessions in this process's memory: one process only (development, tests). */
export function memoryStorage<T>(): SessionStorage<T> {
  const sessions = new Map<string, string>()
  return {
    async get(key) {
      const value = sessions.get(key)
      return value === undefined ? undefined : (JSON.parse(value) as T)
    },
    async set(key, value) {
      sessions.set(key, JSON.stringify(value))
    },
  }
}

/** Sessions in Redis (ioredis), kept `ttlSeconds` after the chat's last update. */
export function redisStorage<T>(
  client: Redis,
  {prefix = 'session:', ttlSeconds = 60 * 60 * 24 * 30} = {},
): SessionStorage<T> {
  return {
    async get(key) {
      const value = await client.get(prefix + key)
      return value === null ? undefined : (JSON.parse(value) as T)
    },
    async set(key, value) {
      await client.set(prefix + key, JSON.stringify(value), 'EX', ttlSeconds)
    },
  }
}

/** `ctx.session` for every update that has a chat (messages, button presses, …). */
export function session<T>(storage: SessionStorage<T>, initial: () => T) {
  return new Plugin('session')
    .derive(async (ctx) => {
      const chatId = (ctx as {chatId?: number}).chatId
      const key = chatId === undefined ? undefined : String(chatId)
      const session: T = (key === undefined ? undefined : await storage.get(key)) ?? initial()
      return {session, sessionKey: key}
    })
    .use(async (ctx, next) => {
      await next()
      if (ctx.sessionKey !== undefined) await storage.set(ctx.sessionKey, ctx.session)
    })
}
