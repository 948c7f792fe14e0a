/**
 * The control API's routes for boosts and Mini Apps (docs/emulator.md, "Boosts and Mini Apps"):
 *
 *   POST /_emulator/bots/{token}/chats/{chat_id}/boosts                      {user_id?, expiration_date?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/boosts/{boost_id}/remove
 *   POST /_emulator/bots/{token}/web_app_data                               {user_id?, data, button_text}
 *   POST /_emulator/bots/{token}/web_app_queries                            {user_id?, chat_id?}
 *   POST /_emulator/bots/{token}/guest_messages                             {chat_id, text, user_id?} (Bot API 10.0)
 */
import {type Ctx, type Route, int, only, pathInt, str} from './route.js'

function postBoost(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, ['user_id', 'first_name', 'username', 'expiration_date'])
  const updates = emu.boostChat(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    expirationDate: int(body, 'expiration_date', {min: 1}),
  })
  return {updates}
}

function postRemoveBoost(ctx: Ctx): unknown {
  only(ctx.body, [])
  return ctx.emu.removeChatBoost(ctx.bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    boostId: ctx.path.boost_id,
  })
}

function postWebAppData({emu, bot, body}: Ctx): unknown {
  only(body, ['user_id', 'data', 'button_text'])
  return emu.sendWebAppData(bot.token, {
    userId: int(body, 'user_id', {min: 1}),
    data: str(body, 'data', true)!,
    buttonText: str(body, 'button_text', true)!,
  })
}

function postWebAppQuery({emu, bot, body}: Ctx): unknown {
  only(body, ['user_id', 'chat_id'])
  return {
    query_id: emu.openWebApp(bot.token, {
      userId: int(body, 'user_id', {min: 1}),
      chatId: int(body, 'chat_id', {nonZero: true}),
    }),
  }
}

function postGuestMessage({emu, bot, body}: Ctx): unknown {
  only(body, ['chat_id', 'text', 'user_id', 'first_name', 'username', 'title'])
  return emu.summonGuest(bot.token, {
    chatId: int(body, 'chat_id', {required: true, nonZero: true})!,
    text: str(body, 'text', true)!,
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    title: str(body, 'title'),
  })
}

export const BOOST_ROUTES: Record<string, Route> = {
  'chats/:chat_id/boosts': {method: 'POST', handler: postBoost},
  'chats/:chat_id/boosts/:boost_id/remove': {method: 'POST', handler: postRemoveBoost},
  web_app_data: {method: 'POST', handler: postWebAppData},
  web_app_queries: {method: 'POST', handler: postWebAppQuery},
  guest_messages: {method: 'POST', handler: postGuestMessage},
}
