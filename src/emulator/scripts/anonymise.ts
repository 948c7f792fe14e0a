/**
 * A real conversation made anonymous before it becomes a chat script: every person's names become Ada, Bob, Cleo…
 * (a last name Lovelace, Babbage…), their usernames ada, bob…, user and chat ids fixed fakes (100001…, groups
 * -100000001…), phone numbers +1 555 0100…, locations one fixed place, e-mail addresses user1@example.com…, in the
 * updates and in the bot's calls alike, and in any text that repeats them (the bot's "Hi Alexander!" becomes "Hi
 * Ada!", so the expectation still matches the anonymous user). Pure: what was replaced is returned as a summary (for
 * the file's header: no real value in it) and as pairs (for the page that asked).
 *
 * The bot itself (a User with is_bot) keeps its name: it is the bot under test, not a person.
 */
import {isObject} from '../telegram.js'
import type {RecordedTurn} from './write.js'

export interface Replacement {
  what: 'name' | 'username' | 'user id' | 'chat id' | 'phone number' | 'location' | 'e-mail' | 'title'
  from: string
  to: string
}

export interface Anonymised {
  turns: RecordedTurn[]
  /** Each value replaced, once (real → fake): for the one who asked, never for the file. */
  replaced: Replacement[]
  /** What was replaced, without a real value: "names → Ada, Bob; 2 user ids → fixed fakes; 1 phone number". */
  summary: string[]
}

const FIRST = ['Ada', 'Bob', 'Cleo', 'Dan', 'Eve', 'Finn', 'Gus', 'Hana', 'Ivo', 'Juno', 'Kai', 'Lea', 'Milo', 'Nia']
const LAST = ['Lovelace', 'Babbage', 'Curie', 'Dijkstra', 'Euler', 'Fermat', 'Gauss', 'Hopper', 'Ito', 'Jacobi']
/** The one place every location becomes (Greenwich). */
const PLACE = {latitude: 51.4779, longitude: -0.0015}
const FIRST_USER_ID = 100001
const FIRST_GROUP_ID = -100000001
const FIRST_SUPERGROUP_ID = -1001000000001

type Obj = Record<string, unknown>

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const digitsOf = (s: string) => s.replace(/\D/g, '')

/** A phone number as people write it: an optional +, then 7 to 15 digits with spaces, dots, dashes or brackets. */
const PHONE = /(?<![\w+])\+?\d[\d ().-]{5,18}\d(?!\w)/g
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g

class Anonymiser {
  readonly replaced: Replacement[] = []
  readonly #ids = new Map<number, number>()
  readonly #userIds = new Set<number>()
  readonly #chatIds = new Set<number>()
  /** Whole words and phrases → their fakes, longest first when applied. */
  readonly #words = new Map<string, string>()
  readonly #usernames = new Map<string, string>()
  readonly #phones = new Map<string, string>()
  readonly #emails = new Map<string, string>()
  readonly #coordinates = new Map<string, string>()
  #people = 0
  #groups = 0
  #supergroups = 0
  #places = 0
  #pattern: RegExp | undefined

  /** Learn the people, chats, phones and places of the conversation. */
  learn(value: unknown, depth = 0): void {
    if (depth > 64) return
    if (Array.isArray(value)) {
      for (const v of value) this.learn(v, depth + 1)
      return
    }
    if (!isObject(value)) return
    if (typeof value.id === 'number' && typeof value.first_name === 'string' && value.is_bot !== true)
      this.#person(value, value.id)
    if (typeof value.phone_number === 'string') this.#phone(value.phone_number)
    if (typeof value.latitude === 'number' && typeof value.longitude === 'number') this.#place(value)
    for (const [key, v] of Object.entries(value)) {
      if (key === 'chat' && isObject(v) && typeof v.id === 'number') this.#chat(v, v.id)
      this.learn(v, depth + 1)
    }
  }

  #note(what: Replacement['what'], from: string, to: string): void {
    if (!this.replaced.some((r) => r.what === what && r.from === from)) this.replaced.push({what, from, to})
  }

  /** A person (a User not the bot) whose `id` is a number. */
  #person(user: Obj, id: number): void {
    if (this.#userIds.has(id)) return
    this.#userIds.add(id)
    const n = this.#people++
    const fakeId = FIRST_USER_ID + n
    this.#ids.set(id, fakeId)
    this.#note('user id', String(id), String(fakeId))
    const first = FIRST[n % FIRST.length] + (n >= FIRST.length ? String(Math.floor(n / FIRST.length) + 1) : '')
    const last = LAST[n % LAST.length]
    this.#name(String(user.first_name), first)
    if (typeof user.last_name === 'string') this.#name(user.last_name, last)
    if (typeof user.username === 'string') {
      const fake = first.toLowerCase()
      this.#usernames.set(user.username.toLowerCase(), fake)
      this.#note('username', user.username, fake)
    }
  }

  #name(real: string, fake: string): void {
    const name = real.trim()
    if (name === '' || this.#words.has(name)) return
    this.#words.set(name, fake)
    this.#note('name', name, fake)
    // Each word of a name of several ("Anna Maria") on its own too, when it is a word worth replacing.
    const parts = name.split(/\s+/)
    if (parts.length > 1)
      for (const part of parts) if (part.length >= 3 && !this.#words.has(part)) this.#words.set(part, fake)
  }

  /** A chat whose `id` is a number. */
  #chat(chat: Obj, id: number): void {
    if (this.#chatIds.has(id)) return
    this.#chatIds.add(id)
    if (chat.type === 'private' || id > 0) return // a private chat's id is its user's
    const fake =
      chat.type === 'supergroup' || chat.type === 'channel' || id < -1_000_000_000_000
        ? FIRST_SUPERGROUP_ID - this.#supergroups++
        : FIRST_GROUP_ID - this.#groups++
    this.#ids.set(id, fake)
    this.#note('chat id', String(id), String(fake))
    if (typeof chat.title === 'string' && chat.title.trim() !== '' && !this.#words.has(chat.title.trim())) {
      const title = chat.type === 'channel' ? 'Test Channel' : 'Test Group'
      const numbered = this.#groups + this.#supergroups > 1 ? `${title} ${this.#groups + this.#supergroups}` : title
      this.#words.set(chat.title.trim(), numbered)
      this.#note('title', chat.title.trim(), numbered)
    }
    if (typeof chat.username === 'string') {
      const fake = `test_chat_${this.#groups + this.#supergroups}`
      this.#usernames.set(chat.username.toLowerCase(), fake)
      this.#note('username', chat.username, fake)
    }
  }

  #phone(real: string): string {
    const digits = digitsOf(real)
    if (digits.length < 7) return real
    let fake = this.#phones.get(digits)
    if (!fake) {
      fake = `+1555010${this.#phones.size % 10}`
      this.#phones.set(digits, fake)
      this.#note('phone number', real, fake)
    }
    return fake
  }

  #place(place: Obj): void {
    for (const key of ['latitude', 'longitude'] as const) {
      const real = String(place[key])
      if (this.#coordinates.has(real)) continue
      const fake = String(PLACE[key])
      this.#coordinates.set(real, fake)
    }
    const label = `${String(place.latitude)}, ${String(place.longitude)}`
    if (!this.replaced.some((r) => r.what === 'location' && r.from === label)) {
      this.#places++
      this.#note('location', label, `${PLACE.latitude}, ${PLACE.longitude}`)
    }
  }

  #email(real: string): string {
    const key = real.toLowerCase()
    let fake = this.#emails.get(key)
    if (!fake) {
      fake = `user${this.#emails.size + 1}@example.com`
      this.#emails.set(key, fake)
      this.#note('e-mail', real, fake)
    }
    return fake
  }

  /** One expression for every name, username, id and coordinate learned (longest first). */
  #textPattern(): RegExp | undefined {
    if (this.#pattern) return this.#pattern
    const words = [...this.#words.keys()].map((w) => `(?<![\\p{L}\\p{N}_])${escapeRe(w)}(?![\\p{L}\\p{N}_])`)
    const users = [...this.#usernames.keys()].map((u) => `(?<![\\w@])@?${escapeRe(u)}(?!\\w)`)
    const ids = [...this.#ids.keys()].map((id) => `(?<![\\d-])${escapeRe(String(id))}(?!\\d)`)
    const coords = [...this.#coordinates.keys()].map((c) => `(?<![\\d.])${escapeRe(c)}(?![\\d])`)
    const all = [...words, ...users, ...ids, ...coords].sort((a, b) => b.length - a.length)
    if (all.length === 0) return undefined
    this.#pattern = new RegExp(all.join('|'), 'giu')
    return this.#pattern
  }

  text(s: string): string {
    let out = s.replace(EMAIL, (m) => this.#email(m))
    out = out.replace(PHONE, (m) => {
      const digits = digitsOf(m)
      // Only what is a phone number for sure: one learned, or one written with its country code (+…).
      if (this.#phones.has(digits) || (m.startsWith('+') && digits.length >= 8 && digits.length <= 15))
        return this.#phone(m)
      return m
    })
    const pattern = this.#textPattern()
    if (!pattern) return out
    return out.replace(pattern, (m) => {
      const word = this.#words.get(m) ?? [...this.#words].find(([k]) => k.toLowerCase() === m.toLowerCase())?.[1]
      if (word !== undefined) return word
      const bare = m.startsWith('@') ? m.slice(1) : m
      const user = this.#usernames.get(bare.toLowerCase())
      if (user !== undefined) return m.startsWith('@') ? `@${user}` : user
      const id = /^-?\d+$/.test(m) ? this.#ids.get(Number(m)) : undefined
      if (id !== undefined) return String(id)
      return this.#coordinates.get(m) ?? m
    })
  }

  /** A copy of value with everything learned replaced. */
  apply(value: unknown, key = '', depth = 0): unknown {
    if (depth > 64) return value
    if (typeof value === 'string') {
      if ((key === 'chat_id' || key === 'user_id') && /^-?\d+$/.test(value))
        return String(this.#ids.get(Number(value)) ?? value)
      if (key === 'phone_number') return this.#phone(value)
      return this.text(value)
    }
    if (typeof value === 'number') {
      if (key === 'latitude' || key === 'longitude') return this.#coordinates.has(String(value)) ? PLACE[key] : value
      return this.#ids.get(value) ?? value
    }
    if (Array.isArray(value)) return value.map((v) => this.apply(v, key, depth + 1))
    return isObject(value) ? this.applyFields(value, depth) : value
  }

  /** An object with each of its fields anonymised (an update, a call's parameters). */
  applyFields(value: Obj, depth = 0): Obj {
    const out: Obj = {}
    for (const [k, v] of Object.entries(value)) out[k] = this.apply(v, k, depth + 1)
    return out
  }

  summary(): string[] {
    const count = (what: Replacement['what']) => this.replaced.filter((r) => r.what === what).length
    const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
    const lines: string[] = []
    const people = this.#people
    if (people > 0) {
      const fakes = FIRST.slice(0, Math.min(people, FIRST.length)).join(', ') + (people > FIRST.length ? ', …' : '')
      lines.push(`names of ${plural(people, 'person', 'people')} → ${fakes} (last names too)`)
      lines.push(`${plural(people, 'user id')} → fixed fakes from ${FIRST_USER_ID}`)
    }
    const chats = count('chat id')
    if (chats > 0) lines.push(`${plural(chats, 'group or channel id')} → fixed fakes, titles → Test Group`)
    const usernames = count('username')
    if (usernames > 0) lines.push(`${plural(usernames, 'username')} → ada, bob…`)
    const phones = count('phone number')
    if (phones > 0) lines.push(`${plural(phones, 'phone number')} → +1555010N`)
    if (this.#places > 0) lines.push(`${plural(this.#places, 'location')} → one fixed place (Greenwich)`)
    const emails = count('e-mail')
    if (emails > 0) lines.push(`${plural(emails, 'e-mail address', 'e-mail addresses')} → userN@example.com`)
    return lines
  }
}

/** The turns with every person, chat, phone number, place and e-mail address replaced (see the module comment). */
export function anonymise(turns: RecordedTurn[]): Anonymised {
  const a = new Anonymiser()
  for (const turn of turns) {
    a.learn(turn.update)
    for (const call of turn.calls) {
      a.learn(call.params)
      a.learn(call.result)
    }
  }
  // Phone numbers and e-mail addresses found only in texts are learned as they are replaced.
  const out = turns.map((turn) => ({
    update: a.applyFields(turn.update),
    calls: turn.calls.map((call) => ({
      ...call,
      params: a.applyFields(call.params),
      ...(call.result !== undefined ? {result: a.apply(call.result)} : {}),
    })),
  }))
  return {turns: out, replaced: a.replaced, summary: a.summary()}
}
