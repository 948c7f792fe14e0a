/**
 * The control API's membership routes (docs/emulator.md, "Joining and membership"). What users and the bot do
 * (a member's status, a join request, the bot's own status) are actions of the table (../actions/members.ts,
 * served by actions.ts):
 *
 *   POST /_emulator/bots/{token}/chats/{chat_id}/members/{user_id}   {status, by_user_id?, invite_link?, rights?,
 *                                                                    until_date?, custom_title?, chat_type?, title?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/join_requests      {user_id?, invite_link?, bio?, with_query?}
 *   POST /_emulator/bots/{token}/chats/{chat_id}/bot                {status, by_user_id?, rights?, chat_type?, title?}
 *
 * and here what the emulator knows of a chat's members:
 *
 *   GET  /_emulator/bots/{token}/chats/{chat_id}/members            the members, invite links and join requests
 */
import {type Ctx, type Route, pathInt} from './route.js'

function getMembers(ctx: Ctx): unknown {
  const {members, inviteLinks, joinRequests} = ctx.emu.chatMembers(
    ctx.bot.token,
    pathInt(ctx, 'chat_id', {nonZero: true}),
  )
  return {members, invite_links: inviteLinks, join_requests: joinRequests}
}

export const MEMBER_ROUTES: Record<string, Route> = {
  'chats/:chat_id/members': {method: 'GET', handler: getMembers},
}
