/**
 * Joining and membership with real grammY and Telegraf bots in both modes: the bot added to a supergroup
 * (my_chat_member), a join-request invite link, a user asking to join (chat_join_request) and the bot approving
 * (a chat_member update with via_join_request, only when asked for, and the new_chat_members service message),
 * leaving, banning; what a bot that is no administrator gets; Bot API 10.1's join request queries with their
 * 10-second window; the methods' errors.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const GROUP = -1001234567890
const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'

/** A gatekeeper bot in grammY: approves join requests, greets in private, logs what it saw. */
function grammyGatekeeper(token: string, apiRoot: string) {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  const seen: string[] = []
  bot.on('my_chat_member', (ctx) => {
    seen.push(`me: ${ctx.myChatMember.old_chat_member.status} -> ${ctx.myChatMember.new_chat_member.status}`)
  })
  bot.on('chat_join_request', async (ctx) => {
    seen.push(
      `request from ${ctx.chatJoinRequest.from.first_name} via ${ctx.chatJoinRequest.invite_link ? 'link' : 'no link'}`,
    )
    await ctx.approveChatJoinRequest(ctx.chatJoinRequest.from.id)
    await ctx.api.sendMessage(ctx.chatJoinRequest.user_chat_id, 'Welcome aboard!')
  })
  bot.on('chat_member', (ctx) => {
    const u = ctx.chatMember
    seen.push(
      `member ${u.new_chat_member.user.first_name}: ${u.old_chat_member.status} -> ${u.new_chat_member.status}${(u as {via_join_request?: boolean}).via_join_request ? ' (request)' : ''}`,
    )
  })
  bot.on('message:new_chat_members', (ctx) =>
    ctx.reply(`Hello ${ctx.message.new_chat_members.map((m) => m.first_name).join(', ')}!`),
  )
  bot.on('message:left_chat_member', (ctx) => ctx.reply(`Bye ${ctx.message.left_chat_member.first_name}.`))
  return {bot, seen}
}

async function gatekeeping(emu: BotApiEmulator, token: string, seen: string[], withChatMember: boolean) {
  // the bot is added to a supergroup as an administrator that may invite users
  const added = emu.setBotStatus(token, {
    chatId: GROUP,
    status: 'administrator',
    rights: ['can_invite_users', 'can_restrict_members'],
    title: 'Club',
  })
  expect(added.map((u) => Object.keys(u)[1])).toEqual(['my_chat_member', 'message'])
  await waitFor(() => seen.includes('me: left -> administrator'), {what: 'my_chat_member'})
  const link = await fetch(`${emu.apiRoot}/bot${token}/createChatInviteLink`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({chat_id: GROUP, creates_join_request: true, name: 'club'}),
  }).then((r) => r.json() as Promise<{result: {invite_link: string; creates_join_request: boolean}}>)
  expect(link.result).toMatchObject({creates_join_request: true, is_primary: false, is_revoked: false, name: 'club'})
  const ada = emu.user(token, {firstName: 'Ada', chatId: GROUP})
  const welcomed = await ada.requestJoin({inviteLink: link.result.invite_link, bio: 'I like clubs'})
  expect(welcomed.map((m) => m.text)).toEqual(['Welcome aboard!'])
  await waitFor(() => ada.chat.some((m) => m.text === 'Hello Ada!'), {what: 'the greeting in the group'})
  expect(seen).toContain('request from Ada via link')
  const approve = emu.calls(token).find((c) => c.method === 'approveChatJoinRequest')!
  expect(approve).toMatchObject({params: {user_id: String(ada.id)}, result: true})
  expect(seen.includes('member Ada: left -> member (request)')).toBe(withChatMember)
  // approving again: she is in
  const again = await fetch(`${emu.apiRoot}/bot${token}/approveChatJoinRequest`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({chat_id: GROUP, user_id: ada.id}),
  }).then((r) => r.json())
  expect(again).toEqual({ok: false, error_code: 400, description: 'Bad Request: USER_ALREADY_PARTICIPANT'})
  // she leaves: a left_chat_member message (and chat_member)
  expect((await ada.leave()).map((m) => m.text)).toEqual(['Bye Ada.'])
  await waitFor(() => !withChatMember || seen.includes('member Ada: member -> left'), {
    what: 'the chat_member of leaving',
  })
  return ada
}

describe('join requests, approved', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: default allowed_updates (no chat_member)`, async () => {
      const {emu, token} = await setup()
      const {bot, seen} = grammyGatekeeper(token, emu.apiRoot)
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        await gatekeeping(emu, token, seen, false)
        expect(seen.some((s) => s.startsWith('member '))).toBe(false)
      } finally {
        await stop()
      }
    })

    it(`grammY, ${mode}: chat_member asked for`, async () => {
      const {emu, token} = await setup()
      const {bot, seen} = grammyGatekeeper(token, emu.apiRoot)
      const all = ['message', 'my_chat_member', 'chat_member', 'chat_join_request']
      const stop = await runGrammy(emu, token, bot, mode, all)
      try {
        const ada = await gatekeeping(emu, token, seen, true)
        // the bot bans her: chat_member (kicked); she cannot come back on her own
        await bot.api.banChatMember(GROUP, ada.id)
        await waitFor(() => seen.includes('member Ada: left -> kicked'), {what: 'the ban'})
        expect(() => emu.joinChat(token, {chatId: GROUP, userId: ada.id})).toThrow('is banned from chat')
        expect((await bot.api.getChatMember(GROUP, ada.id)).status).toBe('kicked')
        const {json} = await control(emu, token, `/chats/${GROUP}/members`)
        expect(json.members.map((m: {status: string}) => m.status).sort()).toEqual(['administrator', 'kicked'])
      } finally {
        await stop()
      }
    })

    it(`Telegraf, ${mode}: approve and greet`, async () => {
      const {emu, token} = await setup()
      const bot = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
      const seen: string[] = []
      bot.on('my_chat_member', (ctx) => {
        seen.push(`me: ${ctx.myChatMember.old_chat_member.status} -> ${ctx.myChatMember.new_chat_member.status}`)
      })
      bot.on('chat_join_request', async (ctx) => {
        seen.push(
          `request from ${ctx.chatJoinRequest.from.first_name} via ${ctx.chatJoinRequest.invite_link ? 'link' : 'no link'}`,
        )
        await ctx.approveChatJoinRequest(ctx.chatJoinRequest.from.id)
        await ctx.telegram.sendMessage(ctx.chatJoinRequest.user_chat_id, 'Welcome aboard!')
      })
      bot.on('chat_member', (ctx) => {
        const u = ctx.chatMember
        seen.push(
          `member ${u.new_chat_member.user.first_name}: ${u.old_chat_member.status} -> ${u.new_chat_member.status}${(u as {via_join_request?: boolean}).via_join_request ? ' (request)' : ''}`,
        )
      })
      bot.on('new_chat_members', (ctx) =>
        ctx.reply(`Hello ${ctx.message.new_chat_members.map((m) => m.first_name).join(', ')}!`),
      )
      bot.on('left_chat_member', (ctx) => ctx.reply(`Bye ${ctx.message.left_chat_member.first_name}.`))
      const stop = await runTelegraf(emu, token, bot, mode, [
        'message',
        'my_chat_member',
        'chat_member',
        'chat_join_request',
      ])
      try {
        await gatekeeping(emu, token, seen, true)
      } finally {
        await stop()
      }
    })
  }
})

describe('what a bot that is no administrator gets', () => {
  it('no chat_member, no join requests; its own removal is my_chat_member (no service message)', async () => {
    const {emu, token, api} = await setup()
    await api('getUpdates', {
      allowed_updates: ['message', 'my_chat_member', 'chat_member', 'chat_join_request'],
      offset: -1,
    })
    const added = emu.setBotStatus(token, {chatId: -700, status: 'member', byUserId: 5})
    expect(added.map((u) => Object.keys(u)[1])).toEqual(['my_chat_member', 'message'])
    expect((added[1].message as {new_chat_members: unknown[]}).new_chat_members).toEqual([
      expect.objectContaining({id: Number(token.split(':')[0]), is_bot: true}),
    ])
    const joined = emu.joinChat(token, {chatId: -700, userId: 42})
    expect(joined.map((u) => Object.keys(u)[1])).toEqual(['message'])
    const request = await control(emu, token, '/chats/-700/join_requests', {user_id: 43})
    expect(request.json).toEqual({update_id: 0, reason: expect.stringContaining('can_invite_users')})
    const removed = await control(emu, token, '/chats/-700/bot', {status: 'kicked', by_user_id: 5})
    expect(removed.json.updates).toEqual([
      {
        update_id: expect.any(Number),
        my_chat_member: {
          chat: {id: -700, title: 'Test Group', type: 'group'},
          from: expect.objectContaining({id: 5}),
          date: expect.any(Number),
          old_chat_member: expect.objectContaining({status: 'member'}),
          new_chat_member: expect.objectContaining({status: 'kicked', until_date: 0}),
        },
      },
    ])
  })

  it('an administrator gets chat_member, with the ChatMember fields of the chat type', async () => {
    const {emu, token, api} = await setup()
    await api('getUpdates', {allowed_updates: ['chat_member'], offset: -1})
    const promoted = await control(emu, token, `/chats/${GROUP}/members/77`, {
      status: 'administrator',
      rights: ['can_delete_messages', 'can_pin_messages'],
      custom_title: 'Chief',
      by_user_id: 1,
    })
    const update = promoted.json.updates[0].chat_member
    expect(update.from.id).toBe(1)
    expect(update.old_chat_member).toEqual({user: expect.objectContaining({id: 77}), status: 'left'})
    expect(update.new_chat_member).toMatchObject({
      status: 'administrator',
      can_be_edited: false,
      can_manage_chat: false,
      can_delete_messages: true,
      can_pin_messages: true,
      can_manage_topics: false,
      is_anonymous: false,
      can_manage_voice_chats: false,
      custom_title: 'Chief',
    })
    expect(update.new_chat_member).not.toHaveProperty('can_post_messages') // channels only
    const bad = await control(emu, token, `/chats/${GROUP}/members/77`, {status: 'boss'})
    expect(bad).toEqual({status: 400, json: {error: expect.stringContaining('status "boss" must be one of creator')}})
  })
})

describe('join request queries (Bot API 10.1): answered within 10 seconds (times timeScale)', () => {
  it('approve through answerChatJoinRequestQuery; queue leaves it to the admins; late answers are refused', async () => {
    // A window of 10 s (timeScale 1) that no loaded machine overruns for the answers in time; the late answer is
    // tried on a second emulator whose window is 10 ms.
    const {emu, token, api} = await setup({timeScale: 1})
    await api('getUpdates', {allowed_updates: ['chat_join_request', 'chat_member'], offset: -1})
    const first = emu.requestJoin(token, {chatId: GROUP, userId: 50, withQuery: true})
    const queryId = (first.chat_join_request as {query_id: string}).query_id
    expect(queryId).toMatch(/^\d+$/)
    expect(
      (
        await api('sendChatJoinRequestWebApp', {
          chat_join_request_query_id: queryId,
          web_app_url: 'https://example.com/app',
        })
      ).json,
    ).toEqual({ok: true, result: true})
    expect(
      (await api('answerChatJoinRequestQuery', {chat_join_request_query_id: queryId, result: 'approve'})).json,
    ).toEqual({ok: true, result: true})
    expect(emu.pendingUpdates(token).at(-1)?.chat_member).toMatchObject({
      via_join_request: true,
      new_chat_member: {status: 'member'},
    })
    expect(
      (await api('answerChatJoinRequestQuery', {chat_join_request_query_id: queryId, result: 'approve'})).json
        .description,
    ).toBe(QUERY_INVALID)
    // queue: the request stays for approveChatJoinRequest
    const second = emu.requestJoin(token, {chatId: GROUP, userId: 51, withQuery: true})
    const queued = (second.chat_join_request as {query_id: string}).query_id
    expect(
      (await api('answerChatJoinRequestQuery', {chat_join_request_query_id: queued, result: 'maybe'})).json.description,
    ).toBe('Bad Request: result must be one of "approve", "decline" and "queue"')
    expect(
      (await api('answerChatJoinRequestQuery', {chat_join_request_query_id: queued, result: 'queue'})).json.result,
    ).toBe(true)
    expect((await api('declineChatJoinRequest', {chat_id: GROUP, user_id: 51})).json.result).toBe(true)
    expect((await api('declineChatJoinRequest', {chat_id: GROUP, user_id: 51})).json.description).toBe(
      'Bad Request: HIDE_REQUESTER_MISSING',
    )
    // too late: the window (10 ms here) has passed
    const fast = await setup({timeScale: 0.001})
    await fast.api('getUpdates', {allowed_updates: ['chat_join_request', 'chat_member'], offset: -1})
    const third = fast.emu.requestJoin(fast.token, {chatId: GROUP, userId: 52, withQuery: true})
    const late = (third.chat_join_request as {query_id: string}).query_id
    const closed = Date.now() + 50
    await waitFor(() => Date.now() > closed, {what: 'the window to close'})
    expect(
      (await fast.api('answerChatJoinRequestQuery', {chat_join_request_query_id: late, result: 'approve'})).json
        .description,
    ).toBe(QUERY_INVALID)
    expect((await fast.api('approveChatJoinRequest', {chat_id: GROUP, user_id: 52})).json.result).toBe(true)
  })
})

describe('membership methods: their errors', () => {
  it('links, restrictions, promotions, private chats', async () => {
    const {emu, token, api} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 9})
    emu.sendUserMessage(token, {text: 'hi all', userId: 9, chatId: -800})
    emu.setBotStatus(token, {chatId: GROUP, status: 'administrator', rights: ['can_invite_users']})
    const call = (method: string, params: Record<string, unknown>) => api(method, params).then((r) => r.json)
    const err = (description: string) => ({ok: false, error_code: 400, description: `Bad Request: ${description}`})
    expect(await call('createChatInviteLink', {chat_id: GROUP, creates_join_request: true, member_limit: 5})).toEqual(
      err("member limit can't be specified for links requiring administrator approval"),
    )
    const link = (await call('createChatInviteLink', {chat_id: GROUP, member_limit: 1})).result
    expect(link).toMatchObject({
      invite_link: expect.stringMatching(/^https:\/\/t\.me\/\+/),
      member_limit: 1,
      creates_join_request: false,
    })
    emu.joinChat(token, {chatId: GROUP, userId: 60, inviteLink: link.invite_link})
    expect(() => emu.joinChat(token, {chatId: GROUP, userId: 61, inviteLink: link.invite_link})).toThrow(
      'reached its member_limit (1)',
    )
    expect(
      (await call('revokeChatInviteLink', {chat_id: GROUP, invite_link: link.invite_link})).result.is_revoked,
    ).toBe(true)
    expect(await call('revokeChatInviteLink', {chat_id: GROUP, invite_link: 'https://t.me/+nope'})).toEqual(
      err('INVITE_HASH_EXPIRED'),
    )
    expect(
      await call('restrictChatMember', {chat_id: -800, user_id: 9, permissions: {can_send_messages: false}}),
    ).toEqual(err('method is available only for supergroups'))
    // setChatPermissions and restrictChatMember read the permissions alike, with Telegram's texts
    for (const method of ['restrictChatMember', 'setChatPermissions']) {
      const target = {chat_id: GROUP, user_id: 60}
      expect(await call(method, {...target, permissions: '{'})).toEqual(err("can't parse permissions JSON object"))
      expect(await call(method, {...target, permissions: '[]'})).toEqual(err('object expected as permissions'))
      expect(await call(method, {...target, permissions: 'null'})).toEqual(err('object expected as permissions'))
      expect(await call(method, {...target, permissions: {can_send_polls: 'true'}})).toEqual(
        err(`can't parse chat permissions: Field "can_send_polls" must be of type Boolean`),
      )
    }
    // the bot may invite but not restrict or promote here
    expect(await call('banChatMember', {chat_id: GROUP, user_id: 60})).toEqual(
      err('not enough rights to restrict/ban chat member'),
    )
    expect(await call('promoteChatMember', {chat_id: GROUP, user_id: 60, can_pin_messages: true})).toEqual(
      err('not enough rights'),
    )
    expect(await call('promoteChatMember', {chat_id: -800, user_id: 9})).toEqual(
      err('method is available for supergroup and channel chats only'),
    )
    expect(await call('unbanChatMember', {chat_id: -800, user_id: 9})).toEqual(
      err('method is available for supergroup and channel chats only'),
    )
    // td DialogParticipantManager.cpp ban_dialog_participant
    expect(await call('banChatMember', {chat_id: 9, user_id: 9})).toEqual(err("can't ban members in private chats"))
    expect(await call('leaveChat', {chat_id: 9})).toEqual(err("chat member status can't be changed in private chats"))
    expect(await call('getChatAdministrators', {chat_id: 9})).toEqual(
      err('there are no administrators in the private chat'),
    )
    expect(await call('approveChatJoinRequest', {chat_id: GROUP, user_id: 0})).toEqual(err('invalid user_id specified'))
    expect(await call('approveChatJoinRequest', {chat_id: GROUP, user_id: 99})).toEqual(err('HIDE_REQUESTER_MISSING'))
    // what the bot reads: the group where user 9 wrote has the bot and user 9
    expect((await call('getChatMemberCount', {chat_id: -800})).result).toBe(2)
    expect((await call('getChatMember', {chat_id: -800, user_id: 9})).result.status).toBe('member')
    expect(
      (await call('getChatAdministrators', {chat_id: GROUP})).result.map(
        (m: {user: {is_bot: boolean}}) => m.user.is_bot,
      ),
    ).toEqual([true])
    // the bot leaves: my_chat_member
    await api('getUpdates', {allowed_updates: ['my_chat_member'], offset: -1})
    expect((await call('leaveChat', {chat_id: -800})).result).toBe(true)
    expect(emu.pendingUpdates(token).at(-1)?.my_chat_member).toMatchObject({new_chat_member: {status: 'left'}})
  })
})
