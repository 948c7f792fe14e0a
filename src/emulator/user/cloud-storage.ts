/**
 * A Mini App uses CloudStorage (core.telegram.org/bots/webapps, "CloudStorage"): the client runs the app's
 * `web_app_invoke_custom_method` calls `saveStorageValue` {key, value}, `getStorageValues` {keys},
 * `deleteStorageValues` {keys} and `getStorageKeys` {} against storage kept per bot and user (../state/cloud-storage.ts),
 * answering what telegram-web-app.js reads: true, an object of the values ("" for a key never stored), true, the keys.
 */
import type {BotState} from '../state/bot.js'
import {CLOUD_STORAGE_MAX_KEYS, CLOUD_STORAGE_MAX_VALUE, cloudStorageKeyValid} from '../state/cloud-storage.js'

export const CLOUD_STORAGE_METHODS = [
  'saveStorageValue',
  'getStorageValues',
  'deleteStorageValues',
  'getStorageKeys',
] as const
export type CloudStorageMethod = (typeof CLOUD_STORAGE_METHODS)[number]

export interface CloudStorageCall {
  userId?: number
  method: CloudStorageMethod
  params?: Record<string, unknown>
}

/** The method's result; an Error in the words the app's callback gets when the call is refused. */
export function cloudStorageCall(bot: BotState, call: CloudStorageCall): unknown {
  const userId = call.userId ?? 1111
  const params = call.params ?? {}
  const store = bot.cloudStorage
  switch (call.method) {
    case 'saveStorageValue': {
      const key = checkedKey(params.key)
      const value = params.value
      if (typeof value !== 'string' || value.length > CLOUD_STORAGE_MAX_VALUE)
        throw new Error(`value must be a string of up to ${CLOUD_STORAGE_MAX_VALUE} characters`)
      if (!store.set(userId, key, value))
        throw new Error(`the user has ${CLOUD_STORAGE_MAX_KEYS} keys already: delete some first`)
      return true
    }
    case 'getStorageValues': {
      const keys = checkedKeys(params.keys)
      return Object.fromEntries(keys.map((key) => [key, store.get(userId, key) ?? '']))
    }
    case 'deleteStorageValues': {
      for (const key of checkedKeys(params.keys)) store.delete(userId, key)
      return true
    }
    case 'getStorageKeys':
      return store.keys(userId)
  }
}

function checkedKey(key: unknown): string {
  if (!cloudStorageKeyValid(key))
    throw new Error('key must be 1-128 characters of A-Z, a-z, 0-9, _ and - (CloudStorage keys)')
  return key
}

function checkedKeys(keys: unknown): string[] {
  if (!Array.isArray(keys)) throw new Error('keys must be an array of keys')
  return keys.map(checkedKey)
}
