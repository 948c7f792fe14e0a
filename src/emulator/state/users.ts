/**
 * The people who talk to a bot: one profile per user id (name, username, language), so the same user is the same
 * person in every update (a message, a button press, an inline query, a vote); and one `chat_instance` per chat,
 * as Telegram keeps it for callback queries.
 */
import {randomInt} from 'node:crypto'
import type {User} from '../telegram.js'

/** What a caller may say about a user; fields left out keep their current value. */
export interface UserFields {
  firstName?: string
  lastName?: string
  username?: string
  languageCode?: string
  isPremium?: boolean
}

/** Kept per bot; beyond it the least recently seen profiles are forgotten. */
const MAX_USERS = 100_000

export class UserDirectory {
  private readonly users = new Map<number, User>()
  private readonly instances = new Map<number, string>()

  /** The user's profile as Telegram sends it in `from`, creating it (first name "Test", username "tester") if new. */
  profile(id: number): User {
    return this.users.get(id) ?? this.update(id, {})
  }

  /** The profile if this user was seen or set. */
  known(id: number): User | undefined {
    return this.users.get(id)
  }

  /** Record what is known about a user (a new user gets the defaults for what is not given); returns the profile. */
  update(id: number, fields: UserFields): User {
    const current = this.users.get(id)
    const firstName = fields.firstName ?? current?.first_name ?? 'Test'
    const lastName = fields.lastName ?? current?.last_name
    const username = fields.username ?? (current ? current.username : 'tester')
    const language = fields.languageCode ?? current?.language_code
    const premium = fields.isPremium ?? current?.is_premium
    // the server's order: id, is_bot, first_name, last_name, username, language_code, is_premium
    const profile: User = {
      id,
      is_bot: false,
      first_name: firstName,
      ...(lastName ? {last_name: lastName} : {}),
      ...(username ? {username} : {}),
      ...(language ? {language_code: language} : {}),
      ...(premium ? {is_premium: true} : {}),
    }
    this.users.delete(id)
    this.users.set(id, profile)
    if (this.users.size > MAX_USERS) this.users.delete(this.users.keys().next().value!)
    return profile
  }

  /** The chat's `chat_instance`: made once per chat, then the same for every button press there. */
  chatInstance(chatId: number): string {
    let instance = this.instances.get(chatId)
    if (instance === undefined) {
      instance = String(-randomInt(1, 2 ** 47) * 10 - randomInt(0, 10))
      this.instances.set(chatId, instance)
      if (this.instances.size > MAX_USERS) this.instances.delete(this.instances.keys().next().value!)
    }
    return instance
  }

  clear(): void {
    this.users.clear()
    this.instances.clear()
  }
}
