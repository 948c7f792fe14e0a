/**
 * The bot's BotFather settings over the control API, for tests that start `bot emulator` as a process:
 * `POST /_emulator/bots/{token}/settings` `{supports_inline_queries?}` (as /setinline) answers `{user}`: what getMe
 * says now.
 */
import {ControlError, type Ctx, only, type Route} from './route.js'

/** The getMe flags a test may switch, as BotFather would. */
const FLAGS = ['supports_inline_queries'] as const

function postSettings({bot, body}: Ctx): unknown {
  only(body, [...FLAGS])
  for (const flag of FLAGS) {
    const value = body[flag]
    if (value === undefined) continue
    if (typeof value !== 'boolean') throw new ControlError(400, `${flag} must be true or false`)
    bot.user[flag] = value
  }
  return {user: bot.user}
}

export const SETTINGS_ROUTES: Record<string, Route> = {
  settings: {method: 'POST', handler: postSettings},
}
