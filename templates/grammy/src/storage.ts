/**
 * Shared session storage: Redis through ioredis and grammY's own adapter (@grammyjs/storage-redis).
 * Every instance of the bot reads and writes the same sessions, so any instance can serve any update.
 */
import {RedisAdapter} from '@grammyjs/storage-redis'
import type {StorageAdapter} from 'grammy'
import {Redis} from 'ioredis'

import {redisHost} from './config.js'

export interface SessionStore<T> {
  storage: StorageAdapter<T>
  /** undefined when Redis answers PING, else what is wrong. */
  check(): Promise<string | undefined>
  close(): Promise<void>
}

export async function connectRedis<T>(
  url: string,
  onError: (err: unknown) => void,
  timeoutMs = 5000,
): Promise<SessionStore<T>> {
  // enableOfflineQueue false: while Redis is away a command fails at once (the update is then not
  // acknowledged and comes again later) instead of waiting in a queue until Redis is back.
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  })
  // ioredis reconnects on its own; say so once per outage instead of once per attempt.
  let down = false
  client.on('error', (err: Error) => {
    if (!down) onError(`Redis at ${redisHost(url)}: ${err.message} (reconnecting)`)
    down = true
  })
  client.on('ready', () => (down = false))
  await client.connect()
  await client.ping()
  return {
    storage: new RedisAdapter<T>({instance: client, ttl: 60 * 60 * 24 * 30}),
    async check() {
      let timer: NodeJS.Timeout | undefined
      try {
        const pong = await Promise.race([
          client.ping(),
          new Promise<never>(
            (_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 1 s')), 1000)),
          ),
        ])
        return pong === 'PONG' ? undefined : `Redis answered ${pong}`
      } catch (err) {
        return `Redis at ${redisHost(url)} is unreachable: ${err instanceof Error ? err.message : String(err)}`
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      // QUIT lets the commands sent so far finish; when Redis is gone there is nothing to wait for.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect())
      else client.disconnect()
    },
  }
}
