/**
 * Who is in a bot's groups and channels (core.telegram.org/bots/api#chatmember): each member's ChatMember (status,
 * rights, restrictions), the invite links the bot made, the join requests waiting for an answer, and the reactions on
 * messages. A member the emulator has no record of is seen as Telegram would show them to a bot that is an
 * administrator there: the bot itself an administrator (what getChatMember always answered), a user who wrote in the
 * chat a member.
 */
import type {TgObject} from '../types.js'
import type {Chat, ChatInviteLink, ChatMember, User} from '../telegram.js'

export type MemberStatus = 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked'
export const MEMBER_STATUSES: readonly MemberStatus[] = [
  'creator',
  'administrator',
  'member',
  'restricted',
  'left',
  'kicked',
]

/** Administrator rights in the server's order (BA `json_store_administrator_rights`), with the chat types each shows in. */
const ADMIN_RIGHTS: Array<[string, Array<'group' | 'supergroup' | 'channel'>?]> = [
  ['can_manage_chat'],
  ['can_change_info'],
  ['can_post_messages', ['channel']],
  ['can_edit_messages', ['channel']],
  ['can_delete_messages'],
  ['can_invite_users'],
  ['can_restrict_members'],
  ['can_pin_messages', ['group', 'supergroup']],
  ['can_manage_topics', ['supergroup']],
  ['can_promote_members'],
  ['can_manage_video_chats'],
  ['can_post_stories'],
  ['can_edit_stories'],
  ['can_delete_stories'],
  ['can_manage_direct_messages', ['channel']],
  ['can_manage_tags', ['group', 'supergroup']],
  ['can_send_welcome_messages'], // Bot API 10.3
  ['is_anonymous'],
]

/** Restricted members' permissions in the server's order (BA `json_store_permissions`). */
const PERMISSIONS = [
  'can_send_messages',
  'can_send_media_messages',
  'can_send_audios',
  'can_send_documents',
  'can_send_photos',
  'can_send_videos',
  'can_send_video_notes',
  'can_send_voice_notes',
  'can_send_polls',
  'can_send_other_messages',
  'can_add_web_page_previews',
  'can_react_to_messages',
  'can_edit_tag',
  'can_change_info',
  'can_invite_users',
  'can_pin_messages',
  'can_manage_topics',
]

/** The rights the bot has as the default administrator of a group: all but promoting and being anonymous. */
const BOT_DEFAULT_RIGHTS = new Set(
  ADMIN_RIGHTS.map(([r]) => r).filter((r) => r !== 'can_promote_members' && r !== 'is_anonymous'),
)

const chatKind = (chat: Chat): 'group' | 'supergroup' | 'channel' =>
  chat.type === 'channel' ? 'channel' : chat.type === 'supergroup' ? 'supergroup' : 'group'

/**
 * A ChatMember as the Bot API writes it (BA `JsonChatMember` 5135-5213) for `status`, from the `rights` (administrator
 * rights or restricted permissions set to true) and the extras (`until_date`, `custom_title`, `tag`, `is_member`).
 */
export function chatMember(
  chat: Chat,
  user: User,
  status: MemberStatus,
  extra: {rights?: Iterable<string>; untilDate?: number; customTitle?: string; tag?: string; isMember?: boolean} = {},
): ChatMember {
  const rights = new Set(extra.rights ?? [])
  const out: ChatMember = {user, status}
  switch (status) {
    case 'creator':
      if (extra.customTitle) out.custom_title = extra.customTitle
      out.is_anonymous = rights.has('is_anonymous')
      break
    case 'administrator': {
      out.can_be_edited = false
      const kind = chatKind(chat)
      for (const [right, only] of ADMIN_RIGHTS) if (!only || only.includes(kind)) out[right] = rights.has(right)
      out.can_manage_voice_chats = rights.has('can_manage_video_chats')
      if (extra.customTitle) out.custom_title = extra.customTitle
      break
    }
    case 'member':
      if (extra.tag) out.tag = extra.tag
      if (extra.untilDate) out.until_date = extra.untilDate
      break
    case 'restricted':
      if (extra.tag) out.tag = extra.tag
      if (chat.type === 'supergroup') {
        out.until_date = extra.untilDate ?? 0
        for (const permission of PERMISSIONS) out[permission] = rights.has(permission)
        out.is_member = extra.isMember ?? true
      }
      break
    case 'kicked':
      out.until_date = extra.untilDate ?? 0
      break
  }
  return out
}

/**
 * The rights get_chat_administrator_rights reads, in its order (telegram-bot-api Client.cpp): keyboards'
 * request_chat rights and promoteChatMember read these.
 */
export const ADMINISTRATOR_RIGHTS = [
  'can_manage_chat',
  'can_change_info',
  'can_post_messages',
  'can_edit_messages',
  'can_delete_messages',
  'can_invite_users',
  'can_restrict_members',
  'can_pin_messages',
  'can_manage_topics',
  'can_promote_members',
  'can_manage_video_chats',
  'can_post_stories',
  'can_edit_stories',
  'can_delete_stories',
  'can_manage_direct_messages',
  'can_manage_tags',
]

/** The names of the rights (or permissions) a ChatMember has set to true. */
export function rightsOf(member: ChatMember): string[] {
  return Object.entries(member)
    .filter(([k, v]) => k.startsWith('can_') && v === true)
    .map(([k]) => k)
}

export interface InviteLink {
  chatId: number
  /** The ChatInviteLink object (BA `JsonChatInviteLink` 1035). */
  link: ChatInviteLink
  /** How many joined through it (for member_limit). */
  joined: number
}

export interface JoinRequest {
  chatId: number
  user: User
  date: number
  bio?: string
  inviteLink?: string
  /** Bot API 10.1: the query a bot assigned to process join requests must answer within 10 seconds. */
  queryId?: string
  /** Epoch ms after which the query can no longer be answered (the request stays, for the administrators). */
  queryDeadline?: number
  /** The Mini App sendChatJoinRequestWebApp showed the user. */
  webAppUrl?: string
}

const MAX_CHATS = 10_000
const MAX_PER_CHAT = 10_000

/** Forget the oldest entries of a map beyond `max`. */
function trim<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as K)
}

export class Members {
  private readonly byChat = new Map<string, Map<number, ChatMember>>()
  readonly links = new Map<string, InviteLink>()
  /** Pending join requests by `chat:user`. */
  readonly requests = new Map<string, JoinRequest>()
  /** Join requests with an open 10.1 query, by query id. */
  readonly queries = new Map<string, JoinRequest>()
  /** Reactions on messages: `chat:message` → actor (user id) → the ReactionType list it set. */
  private readonly reactions = new Map<string, Map<number, TgObject[]>>()

  /** Keep the links, requests and queries bounded (called after each addition). */
  trim(): void {
    trim(this.links, MAX_CHATS * 10)
    trim(this.requests, MAX_CHATS * 10)
    trim(this.queries, MAX_CHATS * 10)
  }

  /** The recorded ChatMember of a user in a chat, if any. */
  get(chatId: number, userId: number): ChatMember | undefined {
    return this.byChat.get(String(chatId))?.get(userId)
  }

  set(chatId: number, member: ChatMember): void {
    const key = String(chatId)
    let chat = this.byChat.get(key)
    if (!chat) {
      chat = new Map()
      this.byChat.set(key, chat)
      if (this.byChat.size > MAX_CHATS) this.byChat.delete(this.byChat.keys().next().value!)
    }
    chat.set(member.user.id, member)
    if (chat.size > MAX_PER_CHAT) chat.delete(chat.keys().next().value!)
  }

  /** Every recorded member of a chat. */
  all(chatId: number): ChatMember[] {
    return [...(this.byChat.get(String(chatId))?.values() ?? [])]
  }

  /** The bot's own ChatMember in a chat: recorded, else an administrator of a group or channel, a member elsewhere. */
  bot(chat: Chat, botUser: User): ChatMember {
    const known = this.get(chat.id, botUser.id)
    if (known) return known
    if (chat.type === 'private') return chatMember(chat, botUser, 'member')
    return chatMember(chat, botUser, 'administrator', {rights: BOT_DEFAULT_RIGHTS})
  }

  /** Whether the bot is an administrator (or the creator) of the chat, as updates like chat_member require. */
  botIsAdmin(chat: Chat, botUser: User): boolean {
    const status = this.bot(chat, botUser).status
    return status === 'administrator' || status === 'creator'
  }

  /** The reactions an actor set on a message (old), replaced by `reaction` (new). */
  react(chatId: number, messageId: number, actorId: number, reaction: TgObject[]): TgObject[] {
    const key = `${chatId}:${messageId}`
    let onMessage = this.reactions.get(key)
    if (!onMessage) {
      onMessage = new Map()
      this.reactions.set(key, onMessage)
      if (this.reactions.size > MAX_CHATS * 10) this.reactions.delete(this.reactions.keys().next().value!)
    }
    const old = onMessage.get(actorId) ?? []
    if (reaction.length === 0) onMessage.delete(actorId)
    else onMessage.set(actorId, reaction)
    return old
  }

  /** The ReactionCount list of a message: each reaction type with how many set it, the most used first. */
  reactionCounts(chatId: number, messageId: number): TgObject[] {
    const counts = new Map<string, {type: TgObject; total_count: number}>()
    for (const list of this.reactions.get(`${chatId}:${messageId}`)?.values() ?? []) {
      for (const type of list) {
        const key = JSON.stringify(type)
        const entry = counts.get(key) ?? {type, total_count: 0}
        entry.total_count += 1
        counts.set(key, entry)
      }
    }
    return [...counts.values()].sort((a, b) => b.total_count - a.total_count)
  }

  /** Whether a reaction type is on the message already (a custom emoji may then be used by the bot). */
  hasReaction(chatId: number, messageId: number, type: TgObject): boolean {
    const key = JSON.stringify(type)
    for (const list of this.reactions.get(`${chatId}:${messageId}`)?.values() ?? [])
      if (list.some((t) => JSON.stringify(t) === key)) return true
    return false
  }

  /** The message ids of a chat an actor reacted to (deleteAllMessageReactions). */
  reactedBy(chatId: number, actorId: number): number[] {
    const prefix = `${chatId}:`
    const out: number[] = []
    for (const [key, actors] of this.reactions)
      if (key.startsWith(prefix) && actors.has(actorId)) out.push(Number(key.slice(prefix.length)))
    return out
  }

  clear(): void {
    this.byChat.clear()
    this.links.clear()
    this.requests.clear()
    this.queries.clear()
    this.reactions.clear()
  }
}
