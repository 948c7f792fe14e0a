/**
 * Bot API 10.2-10.5 in the emulator (issue 30 §1), over HTTP: ephemeral messages and their edits (10.2), 10.3's
 * EphemeralMessageParameters and 10.4's replies with callback_query_id alone, the subscription and
 * stopped_message_generation updates, widgets (10.4: sendWidget's limits, shared widgets, widget queries answered
 * once), setMySettings and getMe's BotFullInfo with callback_query_mode (10.5), and the catalogue's new methods.
 */
import {describe, expect, it} from 'vitest'
import {BOT_API_VERSION, allMethods, methodSpec, typeSpec} from '../../src/emulator/methods/catalog/index.js'
import {setup} from './helpers.js'

const USER = 1111
const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'
type Q = Record<string, any>
const bad = (description: string) => ({ok: false, error_code: 400, description})

async function world(options: {timeScale?: number} = {}) {
  const ctx = await setup(options)
  ctx.emu.sendUserMessage(ctx.token, {text: 'hi', userId: USER, firstName: 'Ada'})
  return ctx
}

describe('the catalogue (Bot API 10.5)', () => {
  it('says 10.5 and has the methods and types 10.2 to 10.5 added or changed', () => {
    expect(BOT_API_VERSION).toBe('10.5')
    const names = allMethods().map((m) => m.name)
    for (const name of [
      'editEphemeralMessageText',
      'editEphemeralMessageCaption',
      'editEphemeralMessageMedia',
      'editEphemeralMessageReplyMarkup',
      'deleteEphemeralMessage',
      'sendWidget',
      'sendSharedWidget',
      'answerWidgetQuery',
      'editMessageWidgetData',
      'editSharedWidgetData',
      'setMySettings',
    ])
      expect(names).toContain(name)
    expect(methodSpec('getme')!.returns).toBe('BotFullInfo')
    expect(methodSpec('sendmessage')!.params.find((p) => p.name === 'chat_id')!.required).toBe(false)
    const fields = (type: string) => {
      const spec = typeSpec(type)
      return spec && 'fields' in spec ? spec.fields.map((f) => f.name) : []
    }
    expect(fields('User')).not.toContain('can_join_groups')
    expect(fields('BotFullInfo')).toEqual(expect.arrayContaining(['can_join_groups', 'has_topic_sidebar']))
    expect(fields('Update')).toEqual(
      expect.arrayContaining(['subscription', 'stopped_message_generation', 'widget_query', 'shared_widget_query']),
    )
    expect(fields('Message')).toEqual(expect.arrayContaining(['receiver_user', 'ephemeral_message_id', 'widget']))
    expect(fields('BotCommand')).toContain('is_ephemeral')
    expect(fields('ChatFullInfo')).toContain('community')
    expect(fields('WriteAccessAllowed')).toContain('inviter')
    expect(fields('InlineKeyboardMarkup')).toContain('force_reply')
    expect(fields('InlineKeyboardButton')).toContain('disabled')
    expect(typeSpec('StoryAreaPosition')).toBeUndefined()
    expect(fields('AreaPosition')).toContain('x_percentage')
  })
})

describe('ephemeral messages (Bot API 10.2-10.4)', () => {
  it('a send with ephemeral_message_parameters: message_id 0, receiver_user, ephemeral_message_id; edits and deletion', async () => {
    const {api, emu, token} = await world()
    const sent = await api('sendMessage', {
      chat_id: USER,
      text: 'only you',
      ephemeral_message_parameters: {receiver_user_id: USER},
    })
    expect(sent.json.result).toMatchObject({
      message_id: 0,
      chat: {id: USER},
      receiver_user: {id: USER, first_name: 'Ada'},
      ephemeral_message_id: 1,
      text: 'only you',
    })
    // not in the chat's history, and the chat's message ids go on as before
    const next = await api('sendMessage', {chat_id: USER, text: 'for all'})
    expect(next.json.result.message_id).toBe(2)
    expect(emu.ephemeralMessages(token).map((m) => m.text)).toEqual(['only you'])
    const target = {chat_id: USER, receiver_user_id: USER, ephemeral_message_id: 1}
    expect((await api('editEphemeralMessageText', {...target, text: 'changed'})).json).toEqual({ok: true, result: true})
    expect((await api('editEphemeralMessageText', {...target, text: 'changed'})).json.description).toMatch(
      /^Bad Request: message is not modified/,
    )
    expect((await api('editEphemeralMessageCaption', {...target, caption: 'c'})).json).toEqual(
      bad('Bad Request: there is no caption in the message to edit'),
    )
    const keyboard = {inline_keyboard: [[{text: 'ok', callback_data: 'ok'}]]}
    expect((await api('editEphemeralMessageReplyMarkup', {...target, reply_markup: keyboard})).json.result).toBe(true)
    expect(emu.ephemeralMessages(token)[0]).toMatchObject({text: 'changed', reply_markup: keyboard})
    expect((await api('deleteEphemeralMessage', target)).json).toEqual({ok: true, result: true})
    expect((await api('deleteEphemeralMessage', target)).json).toEqual(bad('Bad Request: message to delete not found'))
    expect((await api('editEphemeralMessageText', {...target, text: 'x'})).json).toEqual(
      bad('Bad Request: message to edit not found'),
    )
    expect(emu.ephemeralMessages(token)).toEqual([])
  })

  it('callback_query_id alone names the chat and the receiver (10.4); an unknown query is refused', async () => {
    const {api, emu, token} = await world()
    await api('sendMessage', {
      chat_id: USER,
      text: 'press',
      reply_markup: {inline_keyboard: [[{text: 'go', callback_data: 'go'}]]},
    })
    const query = emu.sendCallbackQuery(token, {data: 'go', userId: USER}).callback_query as Q
    const reply = await api('sendMessage', {
      text: 'just for you',
      ephemeral_message_parameters: {callback_query_id: query.id},
    })
    expect(reply.json.result).toMatchObject({message_id: 0, chat: {id: USER}, receiver_user: {id: USER}})
    expect(
      (await api('sendMessage', {text: 'x', ephemeral_message_parameters: {callback_query_id: '12345'}})).json,
    ).toEqual(bad(QUERY_INVALID))
    expect((await api('sendMessage', {chat_id: USER, text: 'x', ephemeral_message_parameters: {}})).json).toEqual(
      bad('Bad Request: receiver_user_id or callback_query_id must be specified'),
    )
    expect((await api('sendMessage', {text: 'x'})).json).toEqual(bad('Bad Request: chat_id is empty'))
  })
})

describe('presses on ephemeral messages (Bot API 10.2-10.5)', () => {
  const keyboard = {inline_keyboard: [[{text: 'ok', callback_data: 'ok'}]]}

  it('the receiver presses a button: a callback_query carrying the ephemeral message, answerable, in every callback_query_mode', async () => {
    const {api, emu, token} = await world({timeScale: 1}) // a callback query lives 150 s unscaled (1.5 s at 0.01, which a loaded machine can outlast)
    await api('sendMessage', {
      chat_id: USER,
      text: 'only you',
      reply_markup: keyboard,
      ephemeral_message_parameters: {receiver_user_id: USER},
    })
    // the control API's route of the table's press_button, as the chat page and chat scripts call it
    const res = await fetch(`${emu.apiRoot}/_emulator/bots/${token}/callback_queries`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({data: 'ok', ephemeral_message_id: 1, user_id: USER}),
    })
    expect(res.status).toBe(200)
    const query = ((await res.json()) as Q).callback_query as Q
    expect(Object.keys(query)).toEqual(['id', 'from', 'message', 'chat_instance', 'data'])
    expect(query).toMatchObject({
      from: {id: USER},
      message: {message_id: 0, chat: {id: USER}, receiver_user: {id: USER}, ephemeral_message_id: 1, text: 'only you'},
      data: 'ok',
    })
    expect(query.message.reply_markup).toEqual(keyboard)
    // the query names the chat and the receiver; it cannot replace an ephemeral message
    expect(
      (
        await api('sendMessage', {
          text: 'x',
          ephemeral_message_parameters: {callback_query_id: query.id, replace_callback_query_message: true},
        })
      ).json,
    ).toEqual(
      bad("Bad Request: replace_callback_query_message can't be used for a callback query from an ephemeral message"),
    )
    expect((await api('answerCallbackQuery', {callback_query_id: query.id, text: 'done'})).json).toEqual({
      ok: true,
      result: true,
    })
    // an edit shows in the next press; callback_query_mode inline still sends the message
    const target = {chat_id: USER, receiver_user_id: USER, ephemeral_message_id: 1}
    await api('editEphemeralMessageText', {...target, text: 'edited', reply_markup: keyboard})
    await api('setMySettings', {callback_query_mode: 'inline'})
    const again = emu.sendCallbackQuery(token, {data: 'ok', ephemeralMessageId: 1, userId: USER}).callback_query as Q
    expect(again.message).toMatchObject({message_id: 0, ephemeral_message_id: 1, text: 'edited'})
    expect(again.inline_message_id).toBeUndefined()
  })

  it('only the receiver can press it, and only while it is shown; exactly one of message_id and ephemeral_message_id', async () => {
    const {api, emu, token} = await world()
    await api('sendMessage', {
      chat_id: USER,
      text: 'only you',
      reply_markup: keyboard,
      ephemeral_message_parameters: {receiver_user_id: USER},
    })
    expect(() => emu.sendCallbackQuery(token, {data: 'ok', ephemeralMessageId: 1, userId: 2222, chatId: USER})).toThrow(
      /user 2222 has no ephemeral message 1 in chat 1111/,
    )
    const press = async (input: Q) => {
      const res = await fetch(`${emu.apiRoot}/_emulator/bots/${token}/callback_queries`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(input),
      })
      return {status: res.status, body: (await res.json()) as Q}
    }
    const both = await press({data: 'ok', ephemeral_message_id: 1, message_id: 1, user_id: USER})
    expect(both.status).toBe(400)
    expect(JSON.stringify(both.body)).toMatch(/exactly one of message_id .* and ephemeral_message_id/)
    const other = await press({data: 'ok', ephemeral_message_id: 1, user_id: 2222, chat_id: USER})
    expect(other.status).toBe(400)
    expect(JSON.stringify(other.body)).toMatch(/user 2222 has no ephemeral message 1 in chat 1111/)
    await api('deleteEphemeralMessage', {chat_id: USER, receiver_user_id: USER, ephemeral_message_id: 1})
    expect(() => emu.sendCallbackQuery(token, {data: 'ok', ephemeralMessageId: 1, userId: USER})).toThrow(
      /has no ephemeral message 1/,
    )
  })
})

describe('communities (Bot API 10.2, 10.3)', () => {
  it('a chat added to a community, joined from it, removed: the service messages and getChat.community', async () => {
    const {api, emu, token} = await world()
    const group = -1001234
    const post = async (path: string, body: Q) => {
      const res = await fetch(`${emu.apiRoot}/_emulator/bots/${token}/chats/${group}/${path}`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(body),
      })
      return {status: res.status, body: (await res.json()) as Q}
    }
    const added = await post('community', {community_id: 7, name: 'Makers', user_id: USER})
    expect(added.status).toBe(200)
    expect(added.body.message).toMatchObject({
      from: {id: USER},
      chat: {id: group, type: 'supergroup'},
      community_chat_added: {community: {id: 7, name: 'Makers'}},
    })
    expect((await api('getChat', {chat_id: group})).json.result.community).toEqual({id: 7, name: 'Makers'})
    expect((await post('community', {community_id: 7, name: 'Makers'})).status).toBe(400)
    const joined = await post('community/join', {user_id: 2222, first_name: 'Bo'})
    const messages = (joined.body.updates as Q[]).map((u) => u.message).filter(Boolean)
    expect(messages.at(-2)).toMatchObject({new_chat_members: [{id: 2222}]})
    expect(messages.at(-1)).toMatchObject({
      from: {id: 2222},
      community_chat_joined: {community: {id: 7, name: 'Makers'}},
    })
    const removed = await post('community/remove', {user_id: USER})
    expect(removed.body.message.community_chat_removed).toEqual({})
    expect((await api('getChat', {chat_id: group})).json.result.community).toBeUndefined()
    expect((await post('community/remove', {})).status).toBe(400)
    expect((await post('community/join', {user_id: 3333})).status).toBe(400)
    // a channel's service message is a channel_post signed by the channel
    emu.act(token, 'set_member_status', {chatId: -1009999, userId: USER, status: 'member', chatType: 'channel'})
    const post2 = emu.act(token, 'add_to_community', {chatId: -1009999, name: 'News'})
    expect(post2.channel_post).toMatchObject({
      sender_chat: {id: -1009999, type: 'channel'},
      chat: {id: -1009999, type: 'channel'},
      community_chat_added: {community: {id: 1, name: 'News'}},
    })
    expect((post2.channel_post as Q).from).toBeUndefined()
  })
})

describe('write_access_allowed with inviter (Bot API 10.5)', () => {
  // telegram-bot-api Client.cpp, JsonWriteAccessAllowed::store: exactly one field per td reason
  // (botWriteAccessAllowReasonLaunchedWebApp → web_app_name, …AcceptedRequest → from_request, …AddedToAttachmentMenu
  // → from_attachment_menu); 10.5 adds `inviter`, a User
  it('the allow_write_access action: one reason, the inviter as a User, in the private chat', async () => {
    const {api, emu, token} = await world()
    emu.setUser(token, 2222, {firstName: 'Bo', username: 'bo'})
    const res = await fetch(`${emu.apiRoot}/_emulator/bots/${token}/write_access`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({web_app_name: 'shop', inviter_user_id: 2222, user_id: USER}),
    })
    expect(res.status).toBe(200)
    const message = ((await res.json()) as Q).message as Q
    expect(message).toMatchObject({from: {id: USER}, chat: {id: USER, type: 'private'}})
    expect(message.write_access_allowed).toEqual({
      web_app_name: 'shop',
      inviter: {id: 2222, is_bot: false, first_name: 'Bo', username: 'bo'},
    })
    const update = emu.act(token, 'allow_write_access', {fromRequest: true, userId: USER})
    expect((update.message as Q).write_access_allowed).toEqual({from_request: true})
    const menu = await emu.runAction(token, 'allow_write_access', {from_attachment_menu: true})
    expect((menu as Q).message.write_access_allowed).toEqual({from_attachment_menu: true})
    await expect(emu.runAction(token, 'allow_write_access', {from_request: true, web_app_name: 'x'})).rejects.toThrow(
      /exactly one reason/,
    )
    const updates = (await api('getUpdates')).json.result as Q[]
    expect(updates.filter((u) => u.message?.write_access_allowed)).toHaveLength(3)
  })
})

describe('subscription and stopped_message_generation updates', () => {
  it('queue the documented objects', async () => {
    const {emu, token} = await world()
    const sub = emu.updateSubscription(token, {invoicePayload: 'plan-1', state: 'canceled', userId: USER})
    expect(sub.subscription).toEqual({
      user: expect.objectContaining({id: USER}),
      invoice_payload: 'plan-1',
      state: 'canceled',
    })
    expect(() => emu.updateSubscription(token, {invoicePayload: 'p', state: 'paused' as never})).toThrow(/state/)
    const stopped = emu.stopGeneration(token, {draftId: 7, chatId: USER})
    expect(stopped.stopped_message_generation).toEqual({chat: expect.objectContaining({id: USER}), draft_id: 7})
    expect(emu.pendingUpdates(token).map((u) => Object.keys(u)[1])).toEqual(
      expect.arrayContaining(['subscription', 'stopped_message_generation']),
    )
  })
})

describe('widgets (Bot API 10.4)', () => {
  it('sendWidget: limits, private chats only, protected content; widget queries answered once', async () => {
    const {api, emu, token} = await world({timeScale: 1}) // a widget query lives 15 s unscaled (150 ms at 0.01, which a loaded machine can outlast)
    const html = '<button id="b">Tap</button>'
    const sent = await api('sendWidget', {chat_id: USER, html, public_data: 'p', allow_queries: true})
    expect(sent.json.result).toMatchObject({widget: {html, public_data: 'p'}, has_protected_content: true})
    const big = 'x'.repeat(32_769)
    expect((await api('sendWidget', {chat_id: USER, html: big})).json).toEqual(
      bad('Bad Request: INPUT_MEDIA_WIDGET_TOO_LARGE'),
    )
    // 32 KB that does not compress below 4 KB
    const noisy = Array.from({length: 3000}, (_, i) => ((i * 2654435761) % 4294967296).toString(36)).join('')
    expect((await api('sendWidget', {chat_id: USER, html: noisy.slice(0, 32_000)})).json).toEqual(
      bad('Bad Request: INPUT_MEDIA_WIDGET_TOO_LARGE'),
    )
    emu.addChat(token, {id: -100123, title: 'G', type: 'supergroup'})
    expect((await api('sendWidget', {chat_id: -100123, html})).json).toEqual(
      bad('Bad Request: INPUT_MEDIA_WIDGET_NOT_ALLOWED'),
    )
    expect((await api('sendWidget', {chat_id: USER})).json).toEqual(bad('Bad Request: parameter "html" is required'))
    const query = emu.sendWidgetQuery(token, {data: 'tap', userId: USER}).widget_query as Q
    expect(query).toMatchObject({
      from: {id: USER},
      type: {type: 'data'},
      data: 'tap',
      chat: {id: USER},
      message_id: sent.json.result.message_id,
    })
    expect((await api('answerWidgetQuery', {widget_query_id: query.id, data: 'ok'})).json.result).toBe(true)
    expect(emu.widgetAnswer(token, query.id)).toBe('ok')
    expect((await api('answerWidgetQuery', {widget_query_id: query.id})).json).toEqual(bad(QUERY_INVALID))
    const target = {chat_id: USER, message_id: sent.json.result.message_id}
    expect((await api('editMessageWidgetData', {...target, chat_data: 'c', public_data: ''})).json.result).toBe(true)
    const stored = emu.user(token, {id: USER}).chat.find((m) => m.message_id === target.message_id)!
    expect(stored.widget).toEqual({html, chat_data: 'c'})
  })

  it('shared widgets: sent again by id, public data edited at most once a second, shared_widget_query', async () => {
    const {api, emu, token} = await world({timeScale: 1}) // the one-second window unscaled
    const first = await api('sendWidget', {chat_id: USER, html: '<b>poll</b>', is_shared: true, public_data: '0'})
    const id = first.json.result.widget.id as string
    expect(id).toMatch(/^\d+$/)
    const again = await api('sendSharedWidget', {chat_id: USER, widget_id: id, chat_data: 'x'})
    expect(again.json.result.widget).toEqual({html: '<b>poll</b>', id, public_data: '0', chat_data: 'x'})
    expect((await api('sendSharedWidget', {chat_id: USER, widget_id: '42'})).json).toEqual(
      bad('Bad Request: widget not found'),
    )
    expect((await api('editSharedWidgetData', {widget_id: id, public_data: '1'})).json.result).toBe(true)
    const tooSoon = await api('editSharedWidgetData', {widget_id: id, public_data: '2'})
    expect(tooSoon.json).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 1',
      parameters: {retry_after: 1},
    })
    const chat = emu.user(token, {id: USER}).chat
    expect(
      chat
        .filter((m) => (m.widget as {id?: string})?.id === id)
        .map((m) => (m.widget as {public_data?: string}).public_data),
    ).toEqual(['1', '1'])
    const shared = emu.sendSharedWidgetQuery(token, {widgetId: id, data: 'vote', userId: 5}).shared_widget_query as Q
    expect(shared).toMatchObject({from: {id: 5}, type: {type: 'data'}, data: 'vote', widget_id: id})
    expect((await api('answerWidgetQuery', {widget_query_id: shared.id})).json.result).toBe(true)
    expect(emu.widgetAnswer(token, shared.id)).toBe('')
  })
})

describe('setMySettings and getMe (Bot API 10.5)', () => {
  it('getMe answers a BotFullInfo; setMySettings changes it; callback_query_mode inline sends inline_message_id', async () => {
    const {api, emu, token} = await world()
    const me = (await api('getMe')).json.result
    expect(me).toMatchObject({
      is_bot: true,
      username: 'test_bot',
      active_usernames: ['test_bot'],
      can_join_groups: true,
      needs_inline_query_location: false,
      has_topic_sidebar: false,
    })
    const set = await api('setMySettings', {
      supports_inline_queries: true,
      inline_query_placeholder: 'Search…',
      has_topic_sidebar: true,
      callback_query_mode: 'inline',
    })
    expect(set.json).toEqual({ok: true, result: true})
    expect((await api('getMe')).json.result).toMatchObject({
      supports_inline_queries: true,
      inline_query_placeholder: 'Search…',
      has_topic_sidebar: false, // only with topics enabled
    })
    await api('setMySettings', {has_topics_enabled: true, has_topic_sidebar: true})
    expect((await api('getMe')).json.result).toMatchObject({has_topics_enabled: true, has_topic_sidebar: true})
    expect((await api('setMySettings', {callback_query_mode: 'sometimes'})).json).toEqual(
      bad('Bad Request: callback_query_mode must be one of "default", "auto" or "inline"'),
    )
    await api('sendMessage', {
      chat_id: USER,
      text: 'press',
      reply_markup: {inline_keyboard: [[{text: 'go', callback_data: 'go'}]]},
    })
    const query = emu.sendCallbackQuery(token, {data: 'go', userId: USER}).callback_query as Q
    expect(Object.keys(query)).toEqual(['id', 'from', 'inline_message_id', 'chat_instance', 'data'])
    // the inline message id names the message's content: edits through it work
    const edit = await api('editMessageText', {inline_message_id: query.inline_message_id, text: 'pressed'})
    expect(edit.json).toEqual({ok: true, result: true})
    await api('setMySettings', {callback_query_mode: 'default'})
    expect((emu.sendCallbackQuery(token, {data: 'go', userId: USER}).callback_query as Q).message).toBeDefined()
  })
})

describe('inline keyboards (Bot API 10.3)', () => {
  it('keep force_reply and disabled buttons (with or without an action)', async () => {
    const {api} = await world()
    const sent = await api('sendMessage', {
      chat_id: USER,
      text: 'keys',
      reply_markup: {
        inline_keyboard: [
          [
            {text: 'off', disabled: {}},
            {text: 'go', callback_data: 'go', disabled: {}},
          ],
        ],
        force_reply: true,
      },
    })
    expect(sent.json.result.reply_markup).toEqual({
      inline_keyboard: [
        [
          {text: 'off', disabled: {}},
          {text: 'go', callback_data: 'go', disabled: {}},
        ],
      ],
      force_reply: true,
    })
    expect(
      (
        await api('sendMessage', {
          chat_id: USER,
          text: 'x',
          reply_markup: {inline_keyboard: [[{text: 'a', disabled: 1}]]},
        })
      ).json,
    ).toEqual(bad('Bad Request: can\'t parse inline keyboard button: Field "disabled" must be of type Object'))
  })
})
