/**
 * `bot trigger TYPE` in an `--offline` session: the filled fixture becomes what the emulator's user
 * does (its public API, docs/emulator.md), so that the emulator's state stays right: a reaction
 * through `react` (allowed_updates and the bot's rights apply), a join request through `requestJoin`
 * (approveChatJoinRequest then works), a member through `setMemberStatus` or `blockBot`, a business
 * message through a business connection, Mini App data through `sendWebAppData`. The update then
 * is the emulator's, made from the fixture's chat, user and values; an inline query through
 * `sendInlineQuery` (the bot's answerInlineQuery then finds it); the types the emulator has no
 * action for (photo, edited-message, poll-answer) go in as written (`injectUpdate`).
 * A payment is the emulator's whole flow (payment-trigger.ts).
 */
import type {BotApiEmulator, Update} from '../emulator/index.js'
import type {FixtureType} from './fixtures.js'
import {objectOf} from './requests.js'
import type {JsonObject as Json} from '../lib/json-object.js'

/** What an offline trigger may ask of the emulator. */
export type TriggerEmulator = Pick<
  BotApiEmulator,
  | 'sendUserMessage'
  | 'sendCallbackQuery'
  | 'injectUpdate'
  | 'sentMessages'
  | 'ephemeralMessages'
  | 'react'
  | 'requestJoin'
  | 'setMemberStatus'
  | 'blockBot'
  | 'unblockBot'
  | 'connectBusiness'
  | 'sendBusinessMessage'
  | 'sendWebAppData'
  | 'sendInlineQuery'
  | 'payInvoice'
  | 'runAction'
  | 'failNext'
  | 'runChatScript'
  | 'on'
  | 'off'
  | 'apiRoot'
>

/** Who offline triggers speak as, and where they go. */
export interface OfflineTarget {
  emulator: TriggerEmulator
  token: string
  user: {userId: number; chatId: number; firstName?: string; username?: string}
  /** A trigger or replay reached the bot (the offline summary counts them with the chat's lines). */
  onSent?: () => void
}

/** The business-message fixture's own connection id: offline, a connection is made for it. */
export const DEFAULT_BUSINESS_CONNECTION = 'bot-trigger-business-connection'

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined
}

function names(user: Json): {firstName?: string; username?: string} {
  return {
    ...(typeof user.first_name === 'string' ? {firstName: user.first_name} : {}),
    ...(typeof user.username === 'string' ? {username: user.username} : {}),
  }
}

/** What an emulator action gave: the updates queued (update_id 0: not sent, with the reason when known). */
export type Sent = Array<Update & {reason?: string}>

/**
 * The emulator's action for a filled fixture; it throws an Error the emulator's words when it
 * refuses (a chat it does not know, a disabled connection…). `connection` makes (once per session)
 * the business connection the business-message fixture needs.
 */
export function offlineAction(
  emulator: TriggerEmulator,
  token: string,
  type: FixtureType,
  update: Json,
  connection: () => {id: string; update?: Update},
): Sent {
  const key = Object.keys(update).find((k) => k !== 'update_id') ?? ''
  const body = objectOf(update[key])
  const chat = objectOf(body.chat)
  switch (type) {
    case 'reaction': {
      if (key !== 'message_reaction') break
      const user = objectOf(body.user)
      return [
        emulator.react(token, {
          chatId: num(chat.id) as number,
          messageId: num(body.message_id) as number,
          ...(num(user.id) !== undefined ? {userId: num(user.id)} : {}),
          ...names(user),
          reaction: Array.isArray(body.new_reaction) ? (body.new_reaction as Json[]) : [],
        }),
      ]
    }
    case 'join-request': {
      if (key !== 'chat_join_request') break
      const from = objectOf(body.from)
      return [
        emulator.requestJoin(token, {
          chatId: num(chat.id) as number,
          ...(num(from.id) !== undefined ? {userId: num(from.id)} : {}),
          ...(typeof body.bio === 'string' ? {bio: body.bio} : {}),
          ...(typeof objectOf(body.invite_link).invite_link === 'string'
            ? {inviteLink: objectOf(body.invite_link).invite_link as string}
            : {}),
        }),
      ]
    }
    case 'member-joined':
    case 'member-left': {
      if (key !== 'chat_member') break
      const member = objectOf(body.new_chat_member)
      const user = objectOf(member.user)
      const chatType =
        chat.type === 'channel' || chat.type === 'supergroup' || chat.type === 'group' ? chat.type : undefined
      return emulator.setMemberStatus(token, {
        chatId: num(chat.id) as number,
        ...(num(user.id) !== undefined ? {userId: num(user.id)} : {}),
        status: (member.status as 'member') ?? (type === 'member-joined' ? 'member' : 'left'),
        ...(chatType ? {chatType} : {}),
        ...(typeof chat.title === 'string' ? {title: chat.title} : {}),
        ...names(user),
      })
    }
    case 'member-blocked':
    case 'member-unblocked': {
      if (key !== 'my_chat_member') break
      const id = num(chat.id) as number
      return [type === 'member-blocked' ? emulator.blockBot(token, id) : emulator.unblockBot(token, id)]
    }
    case 'business-message': {
      if (key !== 'business_message') break
      const from = objectOf(body.from)
      let connectionId = String(body.business_connection_id ?? '')
      const sent: Sent = []
      if (connectionId === DEFAULT_BUSINESS_CONNECTION) {
        const made = connection()
        connectionId = made.id
        if (made.update) sent.push(made.update)
      }
      sent.push(
        emulator.sendBusinessMessage(token, {
          connectionId,
          text: typeof body.text === 'string' ? body.text : '',
          ...(num(from.id) !== undefined ? {customerId: num(from.id)} : {}),
          ...names(from),
        }),
      )
      return sent
    }
    case 'web-app-data': {
      const data = objectOf(body.web_app_data)
      if (key !== 'message' || typeof data.data !== 'string') break
      const from = objectOf(body.from)
      return [
        emulator.sendWebAppData(token, {
          ...(num(from.id) !== undefined ? {userId: num(from.id)} : {}),
          data: data.data,
          buttonText: typeof data.button_text === 'string' ? data.button_text : 'Open app',
        }),
      ]
    }
    case 'inline': {
      if (key !== 'inline_query') break
      const from = objectOf(body.from)
      return [
        emulator.sendInlineQuery(token, {
          query: typeof body.query === 'string' ? body.query : '',
          ...(num(from.id) !== undefined ? {userId: num(from.id)} : {}),
          ...(typeof body.offset === 'string' ? {offset: body.offset} : {}),
          ...(typeof body.chat_type === 'string' ? {chatType: body.chat_type} : {}),
          ...names(from),
        }),
      ]
    }
    default:
      break
  }
  // No action of the emulator for it (or a --file of another shape): in as written.
  return [emulator.injectUpdate(token, update)]
}
