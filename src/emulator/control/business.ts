/**
 * The control API's business routes (docs/emulator.md, "Business connections"):
 *
 *   POST /_emulator/bots/{token}/business_connections                       {user_id?, rights?, is_enabled?}
 *   POST /_emulator/bots/{token}/business_connections/{id}                  {rights?, is_enabled?}
 *   POST /_emulator/bots/{token}/business_connections/{id}/messages         {text, user_id?, from_owner?}
 *   POST /_emulator/bots/{token}/business_connections/{id}/messages/{message_id}/edit   {text, chat_id?}
 *   POST /_emulator/bots/{token}/business_connections/{id}/messages/delete  {chat_id?, message_ids}
 */
import {type Ctx, type Route, bad, bool, int, only, pathInt, str} from './route.js'

function rights(body: Record<string, unknown>): string[] | undefined {
  const value = body.rights
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) throw bad('rights must be a list of BusinessBotRights names, e.g. ["can_reply"]')
  return value as string[]
}

function postConnection({emu, bot, body}: Ctx): unknown {
  only(body, ['user_id', 'first_name', 'username', 'rights', 'is_enabled'])
  const made = emu.connectBusiness(bot.token, {
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    rights: rights(body),
    isEnabled: bool(body, 'is_enabled'),
  })
  return {business_connection: made.connection, update_id: made.update.update_id}
}

function postEditConnection({emu, bot, body, path}: Ctx): unknown {
  only(body, ['rights', 'is_enabled'])
  const made = emu.editBusinessConnection(bot.token, path.id, {
    rights: rights(body),
    isEnabled: bool(body, 'is_enabled'),
  })
  return {business_connection: made.connection, update_id: made.update.update_id}
}

function postMessage({emu, bot, body, path}: Ctx): unknown {
  only(body, ['text', 'user_id', 'first_name', 'username', 'from_owner'])
  return emu.sendBusinessMessage(bot.token, {
    connectionId: path.id,
    text: str(body, 'text', true)!,
    customerId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    fromOwner: bool(body, 'from_owner'),
  })
}

function postEdit(ctx: Ctx): unknown {
  const {emu, bot, body, path} = ctx
  only(body, ['text', 'chat_id'])
  return emu.editBusinessMessage(bot.token, {
    connectionId: path.id,
    chatId: int(body, 'chat_id', {min: 1}) ?? 3333,
    messageId: pathInt(ctx, 'message_id', {min: 1}),
    text: str(body, 'text', true)!,
  })
}

function postDelete({emu, bot, body, path}: Ctx): unknown {
  only(body, ['chat_id', 'message_ids'])
  const ids = body.message_ids
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || (id as number) < 1))
    throw bad('message_ids must be a non-empty list of message ids')
  return emu.deleteBusinessMessages(bot.token, {
    connectionId: path.id,
    chatId: int(body, 'chat_id', {min: 1}) ?? 3333,
    messageIds: ids as number[],
  })
}

export const BUSINESS_ROUTES: Record<string, Route> = {
  business_connections: {method: 'POST', handler: postConnection},
  'business_connections/:id': {method: 'POST', handler: postEditConnection},
  'business_connections/:id/messages': {method: 'POST', handler: postMessage},
  'business_connections/:id/messages/delete': {method: 'POST', handler: postDelete},
  'business_connections/:id/messages/:message_id/edit': {method: 'POST', handler: postEdit},
}
