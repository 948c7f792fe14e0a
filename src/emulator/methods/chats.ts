/**
 * Chats as the bot sees them: getChat (a ChatFullInfo with every always-present field, and what the chat's set…
 * methods changed), the chat's title, description, permissions and sticker set, getChatMember and its counts.
 */
import type {BotState} from '../state/bot.js'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {chatOf} from './message-params.js'
import {objectOf} from './catalog/results.js'
import type {Params} from '../http/params.js'
import {type Chat, mustBeChat} from '../telegram.js'
import {permissionsArg} from './args.js'
import {toInteger} from '../integer.js'

/** The chat `chat_id` names, checked as chatOf checks it. */
export const chatParam = (bot: BotState, params: Params): Chat => mustBeChat(chatOf(bot, params))

const getChat: Handler = (bot, params) => {
  const chat = chatParam(bot, params)
  const extra = bot.chatInfo.get(chat.id)
  return {
    result: {
      ...chat,
      ...extra,
      accent_color_id: 0,
      max_reaction_count: 11,
      accepted_gift_types: {
        unlimited_gifts: false,
        limited_gifts: false,
        unique_gifts: false,
        premium_subscription: false,
        gifts_from_channels: false,
      },
    },
  }
}

/**
 * A group, supergroup or channel of chat_id: the chat-settings methods do not apply to private chats, and td says so
 * in its own words (td DialogManager.cpp set_dialog_title / set_dialog_permissions / set_dialog_description: `Can't
 * change private chat title|permissions|description`; telegram-bot-api Client.cpp setChatStickerSet: `method is
 * available only for supergroups`).
 */
function groupOf(bot: BotState, params: Params, refusal: string): Chat {
  const chat = chatParam(bot, params)
  if (chat.type === 'private') throw badRequest(refusal)
  return chat
}

const setChatTitle: Handler = (bot, params) => {
  chatOf(bot, params)
  // td cleans the title and cuts it to 128 characters; an empty one is refused, before the chat's type is looked at
  const title = [...(params.get('title') ?? '').trim()].slice(0, 128).join('')
  if (title === '') throw badRequest('title must be non-empty')
  const chat = groupOf(bot, params, "can't change private chat title")
  bot.rememberChat({...chat, title})
  return {result: true}
}

const setChatDescription: Handler = (bot, params) => {
  const chat = groupOf(bot, params, "can't change private chat description")
  const description = params.get('description') ?? ''
  if ([...description].length > 255) throw badRequest('CHAT_ABOUT_TOO_LONG')
  bot.chatInfo.set(chat.id, 'description', description === '' ? undefined : description)
  return {result: true}
}

const setChatPermissions: Handler = (bot, params) => {
  chatOf(bot, params)
  const permissions = permissionsArg(params)
  const chat = groupOf(bot, params, "can't change private chat permissions")
  bot.chatInfo.set(chat.id, 'permissions', permissions)
  return {result: true}
}

const setChatStickerSet: Handler = (bot, params) => {
  const chat = groupOf(bot, params, 'method is available only for supergroups')
  const name = params.get('sticker_set_name') ?? ''
  if (name === '') throw badRequest('STICKERSET_INVALID')
  bot.chatInfo.set(chat.id, 'sticker_set_name', name)
  return {result: true}
}

const deleteChatStickerSet: Handler = (bot, params) => {
  const chat = groupOf(bot, params, 'method is available only for supergroups')
  bot.chatInfo.set(chat.id, 'sticker_set_name', undefined)
  return {result: true}
}

const getChatMember: Handler = (bot, params) => {
  const chat = chatOf(bot, params)
  const userId = toInteger(params.get('user_id') ?? '')
  if (!Number.isInteger(userId) || userId <= 0) throw badRequest('invalid user_id specified')
  if (userId === bot.id) {
    if (chat.type === 'private') return {result: {status: 'member', user: bot.from}}
    const rights = {can_manage_chat: true, can_delete_messages: true, can_invite_users: true, can_pin_messages: true}
    return {result: objectOf('ChatMember', {values: rights, objects: {User: bot.from}}, 0, 'administrator')}
  }
  const user = bot.users.known(userId) ?? bot.findChat(String(userId))
  if (!user) throw badRequest('user not found')
  return {result: {status: 'member', user: bot.users.known(userId) ?? bot.users.profile(userId)}}
}

export const CHAT_METHODS: Record<string, Handler> = {
  getchat: getChat,
  setchattitle: setChatTitle,
  setchatdescription: setChatDescription,
  setchatpermissions: setChatPermissions,
  setchatstickerset: setChatStickerSet,
  deletechatstickerset: deleteChatStickerSet,
  getchatmember: getChatMember,
  getchatmembercount: () => ({result: 2}),
  getchatadministrators: () => ({result: []}),
}
