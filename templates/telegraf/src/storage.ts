/**
 * Shared session storage: Redis through node-redis and Telegraf's own Redis store
 * (@telegraf/session/redis). Every instance of the bot reads and writes the same sessions, so any
 * instance can serve any update.
 */
import {Redis} from '@telegraf/session/redis'
import {createClient} from 'redis'
import type {SessionStore as TelegrafStore} from 'telegraf'

import {redisHost} from './config.js'

export interface SessionStore<T> {
  store: TelegrafStore<T>
  /** undefined when Redis answers PING, else what is wrong. */
  check(): Promise<string | undefined>
  close(): Promise<void>
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer))
}

export async function connectRedis<T>(
  url: string,
  onError: (err: unknown) => void,
  timeoutMs = 5000,
): Promise<SessionStore<T>> {
  // disableOfflineQueue: while Redis is away a command fails at once (the update is then not
  // acknowledged and comes again later) instead of waiting in a queue until Redis is back.
  const client = createClient({url, socket: {connectTimeout: timeoutMs}, disableOfflineQueue: true})
  // node-redis reconnects on its own; say so once per outage instead of once per attempt.
  let down = false
  client.on('error', (err: Error) => {
    if (!down) onError(`Redis at ${redisHost(url)}: ${err.message} (reconnecting)`)
    down = true
  })
  client.on('ready', () => (down = false))
  // The store connects the client itself.
  const ready = new Promise<void>((resolve) => client.once('ready', resolve))
  const store = Redis<T>({client})
  try {
    await withDeadline(ready, timeoutMs, 'connect')
    await withDeadline(client.ping(), timeoutMs, 'PING')
  } catch (err) {
    await client.disconnect().catch(() => {})
    throw err
  }
  return {
    store,
    async check() {
      if (!client.isReady) return `Redis at ${redisHost(url)} is unreachable`
      try {
        const pong = await withDeadline(client.ping(), 1000, 'PING')
        return pong === 'PONG' ? undefined : `Redis answered ${pong}`
      } catch (err) {
        return `Redis at ${redisHost(url)} is unreachable: ${err instanceof Error ? err.message : String(err)}`
      }
    },
    async close() {
      // QUIT lets the commands sent so far finish; when Redis is gone there is nothing to wait for.
      if (client.isReady) await client.quit().catch(() => client.disconnect())
      else await client.disconnect().catch(() => {})
    },
  }
}
