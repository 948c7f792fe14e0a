/**
 * CloudStorage of Mini Apps (core.telegram.org/bots/webapps, "CloudStorage"): per bot and user, up to 1024 keys of
 * 1-128 characters (A-Z, a-z, 0-9, _ and -), each value up to 4096 characters. Kept in memory with the bot.
 */

export const CLOUD_STORAGE_MAX_KEYS = 1024
export const CLOUD_STORAGE_MAX_VALUE = 4096
const KEY = /^[A-Za-z0-9_-]{1,128}$/

export function cloudStorageKeyValid(key: unknown): key is string {
  return typeof key === 'string' && KEY.test(key)
}

export class CloudStorage {
  private readonly byUser = new Map<number, Map<string, string>>()

  keys(userId: number): string[] {
    return [...(this.byUser.get(userId)?.keys() ?? [])]
  }

  get(userId: number, key: string): string | undefined {
    return this.byUser.get(userId)?.get(key)
  }

  /** false when the user already has the most keys and this one is new. */
  set(userId: number, key: string, value: string): boolean {
    let values = this.byUser.get(userId)
    if (!values) this.byUser.set(userId, (values = new Map()))
    if (!values.has(key) && values.size >= CLOUD_STORAGE_MAX_KEYS) return false
    values.set(key, value)
    return true
  }

  delete(userId: number, key: string): void {
    this.byUser.get(userId)?.delete(key)
  }

  clear(): void {
    this.byUser.clear()
  }
}
