/** setMyCommands, getMyCommands, deleteMyCommands. */
import type {Handler} from './core.js'
import {badRequest} from '../errors.js'
import {parseJson} from './message-params.js'

export const setMyCommands: Handler = (bot, params) => {
  const commands = parseJson(params.get('commands'), 'commands')
  if (!Array.isArray(commands)) throw badRequest('parameter "commands" is required')
  for (const c of commands as Array<{command?: unknown; description?: unknown}>) {
    if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw badRequest('BOT_COMMAND_INVALID')
    if (typeof c.description !== 'string' || c.description.trim() === '')
      throw badRequest('command description is empty')
  }
  bot.commands = commands
  return {result: true}
}

export const getMyCommands: Handler = (bot) => ({result: bot.commands})
export const deleteMyCommands: Handler = (bot) => {
  bot.commands = []
  return {result: true}
}

export const COMMAND_METHODS: Record<string, Handler> = {
  setmycommands: setMyCommands,
  getmycommands: getMyCommands,
  deletemycommands: deleteMyCommands,
}
