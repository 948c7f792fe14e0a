/**
 * A member's status changes, and the updates Telegram sends for it (Client.cpp `add_update_chat_member`
 * 17268-17286): `my_chat_member` when the member is the bot itself, else `chat_member`, which only a bot that is an
 * administrator of the chat receives (and only when its allowed_updates ask for it: the queue's filter does that).
 * In groups and supergroups a join or a departure is also a service message (`new_chat_members`,
 * `left_chat_member`), which the bot receives as a message. Used by the user actions and by the bot's own methods
 * (ban, approve…), so both sides change membership the same way.
 */
import type {BotState} from './bot.js'
import {chatMember} from './members.js'
import type {TgObject} from '../types.js'
import type {Chat, ChatInviteLink, ChatMember, User} from '../telegram.js'

/** Whether a ChatMember is in the chat (creator, administrator, member, or restricted and still a member). */
export function isPresent(member: ChatMember | undefined): boolean {
  if (!member) return false
  const status = member.status
  if (status === 'restricted') return member.is_member !== false
  return status === 'creator' || status === 'administrator' || status === 'member'
}

/** The chat as the bot knows it, else a new group (a `-100…` id a supergroup) the bot now knows. */
export function groupChat(bot: BotState, chatId: number, type?: string, title?: string): Chat {
  const known = bot.findChat(String(chatId))
  if (known) return known
  if (chatId > 0) throw new Error(`chat ${chatId} is a private chat: members change in groups and channels`)
  const chat: Chat = {
    id: chatId,
    title: title ?? (type === 'channel' ? 'Test Channel' : 'Test Group'),
    type: type ?? (String(chatId).startsWith('-100') ? 'supergroup' : 'group'),
  }
  bot.rememberChat(chat)
  return chat
}

export interface ChangeExtra {
  inviteLink?: ChatInviteLink
  viaJoinRequest?: boolean
}

/**
 * Record `next` as the member's ChatMember and return the update bodies Telegram sends for the change, in order:
 * the ChatMemberUpdated (`my_chat_member` / `chat_member`), then the service message of a join or a departure.
 */
export function changeMember(
  bot: BotState,
  chat: Chat,
  next: ChatMember,
  actor: User,
  extra: ChangeExtra = {},
): TgObject[] {
  const user = next.user
  const isBot = user.id === bot.id
  const old = isBot
    ? bot.members.bot(chat, bot.from)
    : (bot.members.get(chat.id, user.id) ?? chatMember(chat, user, 'left'))
  bot.members.set(chat.id, next)
  const date = Math.floor(Date.now() / 1000)
  const updated: TgObject = {
    chat,
    from: actor,
    date,
    old_chat_member: old,
    new_chat_member: next,
    ...(extra.inviteLink ? {invite_link: extra.inviteLink} : {}),
    ...(extra.viaJoinRequest ? {via_join_request: true} : {}),
  }
  const updates: TgObject[] = []
  if (isBot) updates.push({my_chat_member: updated})
  else if (bot.members.botIsAdmin(chat, bot.from)) updates.push({chat_member: updated})
  const joined = !isPresent(old) && isPresent(next)
  const left = isPresent(old) && !isPresent(next)
  // service messages exist in groups; a bot that is no longer in the chat sees none
  if ((chat.type === 'group' || chat.type === 'supergroup') && (joined || left) && !(isBot && left)) {
    updates.push({
      message: {
        message_id: bot.nextMessageId(chat.id),
        from: actor,
        chat,
        date,
        ...(joined ? {new_chat_members: [user]} : {left_chat_member: user}),
      },
    })
  }
  return updates
}
