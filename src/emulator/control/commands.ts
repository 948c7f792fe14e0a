/**
 * What a user sees in the bot's command menu: `GET /_emulator/bots/{token}/commands?chat_id=&user_id=&language_code=&is_administrator=`
 * answers `{commands}`, found the way the Bot API documents it (emu.commandsFor).
 */
import {ControlError, type Ctx, int, type Route} from './route.js'

function getCommands({bot, query}: Ctx): unknown {
  const read = (name: string): Record<string, unknown> => (query.has(name) ? {[name]: query.get(name)} : {})
  const chatId = int(read('chat_id'), 'chat_id', {required: true, nonZero: true})!
  const userId = int(read('user_id'), 'user_id', {min: 1}) ?? (chatId > 0 ? chatId : 1111)
  const language = query.get('language_code') ?? (bot.users.known(userId)?.language_code || '')
  if (language !== '' && !/^[a-z]{2}$/.test(language))
    throw new ControlError(400, `language_code "${language}" must be two lower-case letters, such as "en"`)
  const admin = ['1', 'true', 'yes'].includes((query.get('is_administrator') ?? '').toLowerCase())
  return {commands: bot.commandLists.visible(chatId, userId, language, admin)}
}

export const COMMAND_ROUTES: Record<string, Route> = {
  commands: {method: 'GET', handler: getCommands},
}
