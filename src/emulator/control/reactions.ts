/**
 * The control API's reaction route (docs/emulator.md, "Reactions"):
 *
 *   POST /_emulator/bots/{token}/chats/{chat_id}/messages/{message_id}/reactions   {user_id?, reaction: [...]}
 *
 * `reaction` is a list of ReactionType (`{"type":"emoji","emoji":"👍"}`) or emoji strings; `[]` takes the user's
 * reactions back. The answer is the update (`{update_id, message_reaction}` or `{update_id, message_reaction_count}`),
 * or `{update_id: 0, reason}` when Telegram would send none.
 */
import {type Ctx, type Route, bad, int, only, pathInt, str} from './route.js'

function postReaction(ctx: Ctx): unknown {
  const {emu, bot, body} = ctx
  only(body, ['user_id', 'reaction', 'first_name', 'username'])
  if (!Array.isArray(body.reaction))
    throw bad('reaction is required: a list of ReactionType ({"type":"emoji","emoji":"👍"}) or emoji, [] to remove')
  return emu.react(bot.token, {
    chatId: pathInt(ctx, 'chat_id', {nonZero: true}),
    messageId: pathInt(ctx, 'message_id', {min: 1}),
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    username: str(body, 'username'),
    reaction: body.reaction as never,
  })
}

export const REACTION_ROUTES: Record<string, Route> = {
  'chats/:chat_id/messages/:message_id/reactions': {method: 'POST', handler: postReaction},
}
