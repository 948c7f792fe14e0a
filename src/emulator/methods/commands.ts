/**
 * setMyCommands, getMyCommands, deleteMyCommands (Client.cpp process_set_my_commands_query, get_bot_command_scope): one
 * list per (scope, language_code). The scope and the commands are read as BA reads them (get_bot_command_scope,
 * get_bot_commands) and checked with td's rules and texts; getMyCommands answers the list of exactly that scope and
 * language, as the server stores it (what a user sees is CommandLists.visible: emu.commandsFor and the control API's
 * GET …/commands).
 */
import type {BotState} from '../state/bot.js'
import type {BotCommand, ScopeKey} from '../state/commands.js'
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import type {Params} from '../http/params.js'
import {languageOf} from './profile.js'
import {integerField, integerFieldText} from '../json.js'
import {jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/** get_bot_command_scope, then check_bot_command_scope's chat checks and td's scope rules. */
function scopeOf(bot: BotState, params: Params): ScopeKey {
  const raw = params.get('scope') ?? ''
  if (raw === '') return 'default'
  const value = jsonArg(raw, "can't parse BotCommandScope JSON object")
  const fail = (why: string) => badRequest(`can't parse BotCommandScope: ${why}`)
  if (!isObject(value)) throw fail('BotCommandScope must be an Object')
  const o = value
  if (!('type' in o)) throw fail('Can\'t find field "type"')
  if (typeof o.type !== 'string') throw fail('Field "type" must be of type String')
  const type = o.type
  if (['default', 'all_private_chats', 'all_group_chats', 'all_chat_administrators'].includes(type)) return type
  if (type !== 'chat' && type !== 'chat_administrators' && type !== 'chat_member')
    throw fail('Unsupported type specified')
  if (!('chat_id' in o)) throw fail('Can\'t find field "chat_id"')
  if (typeof o.chat_id !== 'string' && typeof o.chat_id !== 'number')
    throw fail('Field "chat_id" must be of type String')
  // a number is taken as written (td JsonObject::get_required_string_field gives a number's literal)
  const chatId = integerFieldText(o, 'chat_id') ?? String(o.chat_id)
  if (chatId === '') throw fail('Empty chat_id specified')
  let userId = 0
  if (type === 'chat_member') {
    if (!('user_id' in o)) throw fail('Can\'t find field "user_id"')
    const read = integerField(o, 'user_id', 64)
    if (read === undefined) throw fail('Field "user_id" must be a valid Number')
    userId = read
    if (userId <= 0) throw fail('Invalid user_id specified')
  }
  const chat = bot.findChat(chatId.trim())
  if (!chat) throw badRequest('chat not found')
  if (chat.type === 'channel') throw badRequest("can't change commands in channel chats")
  if (chat.type === 'private' && type !== 'chat') throw badRequest("can't use specified scope in private chats")
  return type === 'chat_member' ? `chat_member:${chat.id}:${userId}` : `${type}:${chat.id}`
}

/** get_bot_commands (BA), then td's checks of each command (TD BotCommand.cpp) and the server's. */
function commandsOf(params: Params): BotCommand[] {
  const raw = params.get('commands') ?? ''
  if (raw === '') return []
  const value = jsonArg(raw, "can't parse commands JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of BotCommand')
  const read = value.map((item) => {
    const fail = (why: string) => badRequest(`can't parse BotCommand: ${why}`)
    if (!isObject(item)) throw fail('expected an Object')
    const field = (name: string): string => {
      if (!(name in item)) throw fail(`Can't find field "${name}"`)
      const v = item[name]
      if (typeof v !== 'string') throw fail(`Field "${name}" must be of type String`)
      return v
    }
    return {command: field('command'), description: field('description')}
  })
  return read.map(({command, description}) => {
    let name = command.trim()
    if (name.startsWith('/')) name = name.slice(1)
    if (name === '') throw badRequest('command must be non-empty')
    if ([...name].length > 32) throw badRequest('command length must not exceed 32')
    const text = description.trim()
    if (text === '') throw badRequest('command description must be non-empty')
    if ([...text].length > 256) throw badRequest('command description length must not exceed 256')
    if (!/^[a-z0-9_]+$/.test(name)) throw badRequest('BOT_COMMAND_INVALID')
    return {command: name, description: text}
  })
}

const setMyCommands: Handler = (bot, params) => {
  const commands = commandsOf(params)
  const scope = scopeOf(bot, params)
  const language = languageOf(params)
  if (commands.length > 100) throw badRequest('BOT_COMMANDS_TOO_MUCH')
  bot.commandLists.set(scope, language, commands)
  return {result: true}
}

const getMyCommands: Handler = (bot, params) => {
  const scope = scopeOf(bot, params)
  return {result: bot.commandLists.get(scope, languageOf(params)) ?? []}
}

const deleteMyCommands: Handler = (bot, params) => {
  const scope = scopeOf(bot, params)
  bot.commandLists.set(scope, languageOf(params), [])
  return {result: true}
}

export const COMMAND_METHODS: Record<string, Handler> = {
  setmycommands: setMyCommands,
  getmycommands: getMyCommands,
  deletemycommands: deleteMyCommands,
}
