/**
 * Flood control as Telegram documents it (core.telegram.org/bots/faq, "My bot is hitting limits, how do I avoid
 * this?"): in a single chat, avoid more than one message per second ("we may allow short bursts that go over this
 * limit"); in a group, no more than 20 messages per minute; in all, about 30 messages per second. A message over a
 * limit is refused with `429 Too Many Requests: retry after N` (whole seconds, at least 1), and does not count.
 *
 * The numbers the FAQ leaves open are the emulator's own: a chat's burst is 3 messages (then one per second refills
 * it); the windows are sliding. Time is the emulator's clock (`timeScale`: at 0.01 an emulated second lasts 10 ms);
 * the answer's N is in emulated seconds, as a client reads it. Per bot; the memory a bot keeps is bounded.
 */

/** A chat's burst, refilled at one message per second. */
export const CHAT_BURST = 3
/** Messages in a group per 60 s. */
export const GROUP_PER_MINUTE = 20
/** Messages per second from one bot, in all chats. */
export const OVERALL_PER_SECOND = 30
/** Chats remembered per bot; beyond it the ones idle longest are forgotten (a forgotten chat starts full). */
const MAX_CHATS = 10_000

interface ChatFlood {
  /** Messages the chat's bucket holds at `at` (fractional). */
  tokens: number
  at: number
  /** Times (emulated ms) of a group's messages within the last minute. */
  recent?: number[]
}

export class FloodControl {
  readonly #chats = new Map<number, ChatFlood>()
  /** Times (emulated ms) of the messages within the last second, in all chats. */
  readonly #overall: number[] = []

  /**
   * Whether one more message to `chatId` may go at emulated time `now` (ms): undefined when it may, else the whole
   * seconds to wait. Nothing is counted: `count` does, once the message went.
   */
  wait(chatId: number, group: boolean, now: number): number | undefined {
    prune(this.#overall, now - 1000)
    let waitMs = 0
    if (this.#overall.length >= OVERALL_PER_SECOND) waitMs = this.#overall[0] + 1000 - now
    const chat = this.#chats.get(chatId)
    if (chat) {
      const tokens = Math.min(CHAT_BURST, chat.tokens + (now - chat.at) / 1000)
      if (tokens < 1) waitMs = Math.max(waitMs, (1 - tokens) * 1000)
      if (group && chat.recent) {
        prune(chat.recent, now - 60_000)
        if (chat.recent.length >= GROUP_PER_MINUTE) waitMs = Math.max(waitMs, chat.recent[0] + 60_000 - now)
      }
    }
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : undefined
  }

  /** A message to `chatId` went at emulated time `now`. */
  count(chatId: number, group: boolean, now: number): void {
    const chat = this.#chats.get(chatId) ?? {tokens: CHAT_BURST, at: now}
    chat.tokens = Math.min(CHAT_BURST, chat.tokens + (now - chat.at) / 1000) - 1
    chat.at = now
    if (group) (chat.recent ??= []).push(now)
    this.#overall.push(now)
    this.#chats.delete(chatId) // re-inserted: the map's order is the order of last use
    this.#chats.set(chatId, chat)
    if (this.#chats.size > MAX_CHATS) this.#chats.delete(this.#chats.keys().next().value!)
  }
}

function prune(times: number[], before: number): void {
  let n = 0
  while (n < times.length && times[n] <= before) n++
  if (n > 0) times.splice(0, n)
}

/**
 * The methods that send a message into a chat, which the limits count (each call once: a media group or a batch of
 * copies is one call). Chat actions, edits, deletions and answers to queries are not counted.
 */
export const FLOOD_COUNTED: ReadonlySet<string> = new Set([
  'sendmessage',
  'sendphoto',
  'sendaudio',
  'senddocument',
  'sendvideo',
  'sendanimation',
  'sendvoice',
  'sendvideonote',
  'sendpaidmedia',
  'sendmediagroup',
  'sendlocation',
  'sendvenue',
  'sendcontact',
  'sendpoll',
  'sendchecklist',
  'senddice',
  'sendsticker',
  'sendinvoice',
  'sendgame',
  'forwardmessage',
  'forwardmessages',
  'copymessage',
  'copymessages',
])
