/**
 * Users over the control API: describe a user once, read their profile.
 *
 *   POST /_emulator/bots/{token}/users/{user_id}   {first_name?, last_name?, username?, language_code?, is_premium?}
 *   GET  /_emulator/bots/{token}/users/{user_id}
 *
 * Both answer `{user}`: the User every later update from them carries (messages, button presses, inline queries,
 * votes), unless a call names them otherwise.
 */
import {ControlError, type Ctx, only, type Route, str} from './route.js'

function userId(segment: string | undefined): number {
  const id = Number(segment)
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new ControlError(400, `user_id "${segment ?? ''}" in the path must be a positive integer`)
  return id
}

function setUser({bot, body, path}: Ctx): unknown {
  only(body, ['first_name', 'last_name', 'username', 'language_code', 'is_premium'])
  const premium = body.is_premium
  if (premium !== undefined && typeof premium !== 'boolean')
    throw new ControlError(400, 'is_premium must be true or false')
  const language = str(body, 'language_code')
  if (language !== undefined && !/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]+)*$/.test(language))
    throw new ControlError(400, `language_code "${language}" must be an IETF language tag such as "en" or "pt-br"`)
  const username = body.username
  if (username !== undefined && (typeof username !== 'string' || !/^([A-Za-z][A-Za-z0-9_]{3,31})?$/.test(username)))
    throw new ControlError(
      400,
      'username must be 4-32 letters, digits or underscores, starting with a letter ("" removes it)',
    )
  const user = bot.users.update(userId(path.id), {
    firstName: str(body, 'first_name'),
    lastName: body.last_name === '' ? '' : str(body, 'last_name'),
    username,
    languageCode: language,
    isPremium: premium,
  })
  return {user}
}

function getUser({bot, path}: Ctx): unknown {
  const id = userId(path.id)
  const user = bot.users.known(id)
  if (!user) throw new ControlError(404, `user ${id} has not talked to the bot and was not set: POST a profile first`)
  return {user}
}

export const USER_ROUTES: Record<string, Route> = {
  'POST users/:id': {method: 'POST', handler: setUser},
  'GET users/:id': {method: 'GET', handler: getUser},
}
