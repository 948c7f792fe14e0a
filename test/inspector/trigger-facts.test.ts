/**
 * What a session remembers for `bot trigger` (session-facts.ts), who a trigger speaks as (fill.ts),
 * and the fixtures (fixtures.ts): the last real chat and user, the bot's messages
 * and their buttons with edits and deletions applied, and every shipped fixture filled
 * into an Update with --set overrides.
 */
import {describe, expect, it} from 'vitest'

import {fillContext, missingPlaceholder, NO_CHAT_YET, resolveParties} from '../../src/control/fill.js'
import {
  applySets,
  FIXTURE_TYPES,
  fillTemplate,
  fixtureText,
  fullPath,
  loadFixture,
  parseSetArgument,
  setValue,
  templateFromFile,
} from '../../src/control/fixtures.js'
import {copyJson, factsFromCalls, SessionFacts} from '../../src/control/session-facts.js'
import {checkUpdateObject} from '../../src/control/synthetic.js'
import {imageInfo, DEFAULT_PHOTO} from '../../src/control/image.js'

const ada = {id: 4242, is_bot: false, first_name: 'Ada', username: 'ada'}
const adaChat = {id: 4242, first_name: 'Ada', username: 'ada', type: 'private'}
const message = (id: number, text: string, over: Record<string, unknown> = {}) => ({
  update_id: 100 + id,
  message: {message_id: id, from: ada, chat: adaChat, date: 1_800_000_000, text, ...over},
})
const keyboard = (...data: string[]) => ({inline_keyboard: [data.map((d) => ({text: d, callback_data: d}))]})

describe('the last real chat and user', () => {
  it('comes from real updates only; triggers and replays do not change it', () => {
    const facts = new SessionFacts()
    expect(facts.lastParty()).toBeUndefined()
    facts.noteUpdate(message(1, 'hi'), false)
    expect(facts.lastParty()).toBeUndefined()
    facts.noteUpdate(message(2, 'hello'), true)
    expect(facts.lastParty()).toEqual({user: ada, chat: adaChat})
    const group = {id: -100777, title: 'G', type: 'supergroup'}
    facts.noteUpdate(
      {
        update_id: 9,
        callback_query: {id: '1', from: {...ada, id: 7}, message: {message_id: 3, chat: group}, data: 'x'},
      },
      true,
    )
    expect(facts.lastParty()).toEqual({user: {...ada, id: 7}, chat: group})
  })

  it('resolveParties: none given and none seen is refused; given ids win; known ones keep their names', () => {
    expect(() => resolveParties({}, undefined)).toThrow(NO_CHAT_YET)
    const seen = {user: ada, chat: adaChat}
    expect(resolveParties({}, seen)).toMatchObject({userId: 4242, chatId: 4242, user: ada, chat: adaChat})
    expect(resolveParties({userId: 5}, seen)).toMatchObject({userId: 5, chatId: 5, chat: {id: 5, type: 'private'}})
    expect(resolveParties({chatId: -42}, seen)).toMatchObject({userId: 4242, chatId: -42, user: ada})
    expect(resolveParties({chatId: -42}, undefined)).toMatchObject({userId: 1111, chatId: -42})
    expect(resolveParties({chatId: 4242}, undefined).user).toMatchObject({id: 4242, first_name: 'Test'})
  })
})

describe("the bot's messages", () => {
  it('the newest message with a button, edits and deletions applied; invoices and polls', () => {
    const facts = new SessionFacts()
    const sent = (id: number, markup?: unknown, more: Record<string, unknown> = {}) => ({
      message_id: id,
      chat: adaChat,
      date: 1,
      text: `m${id}`,
      ...(markup ? {reply_markup: markup} : {}),
      ...more,
    })
    facts.noteCall('sendMessage', {chat_id: 4242}, sent(10, keyboard('like:yes', 'like:no')), true)
    facts.noteCall('sendMessage', {chat_id: 4242}, sent(11, keyboard('like:yes')), true)
    facts.noteCall('sendMessage', {chat_id: 4242}, sent(12), true)
    expect(facts.button(4242, 'like:yes')?.messageId).toBe(11)
    expect(facts.button(4242, 'like:no')?.messageId).toBe(10)
    // editMessageText without reply_markup takes the keyboard away (as on Telegram).
    facts.noteCall('editMessageText', {chat_id: 4242, message_id: 11}, sent(11), true)
    expect(facts.button(4242, 'like:yes')?.messageId).toBe(10)
    facts.noteCall('deleteMessage', {chat_id: '4242', message_id: '10'}, true, true)
    expect(facts.button(4242, 'like:yes')).toBeUndefined()
    // A failed call changes nothing.
    facts.noteCall('sendMessage', {chat_id: 4242}, sent(13, keyboard('z')), false)
    expect(facts.button(4242, 'z')).toBeUndefined()
    expect(facts.botMessages(4242)[0].messageId).toBe(12)
    expect(facts.nextMessageId(4242)).toBe(13)
    facts.noteCall(
      'sendInvoice',
      {chat_id: 4242, payload: 'premium'},
      sent(14, undefined, {invoice: {title: 'P', description: 'D', currency: 'XTR', total_amount: 5}}),
      true,
    )
    expect(facts.invoice(4242)?.invoice).toMatchObject({payload: 'premium', currency: 'XTR', total_amount: 5})
    facts.noteCall('sendPoll', {chat_id: 4242}, sent(15, undefined, {poll: {id: '99', options: [{}, {}]}}), true)
    expect(facts.poll(4242)?.poll).toEqual({id: '99', options: 2})
  })

  it('factsFromCalls reads an emulator record (scalars as text)', () => {
    const facts = factsFromCalls([
      {
        method: 'sendMessage',
        params: {chat_id: '1111'},
        result: {message_id: 3, chat: {id: 1111}, reply_markup: keyboard('a')},
      },
      {method: 'sendMessage', params: {chat_id: '1111'}, error: {code: 400}},
    ])
    expect(facts.button(1111, 'a')?.messageId).toBe(3)
  })

  it('stays bounded: 100 messages per chat', () => {
    const facts = new SessionFacts()
    for (let i = 1; i <= 250; i++)
      facts.noteCall('sendMessage', {}, {message_id: i, chat: {id: 1}, reply_markup: keyboard(`b${i}`)}, true)
    expect(facts.botMessages(1)).toHaveLength(100)
    expect(facts.button(1, 'b1')).toBeUndefined()
    expect(facts.button(1, 'b250')?.messageId).toBe(250)
  })
})

describe('fixtures', () => {
  const facts = new SessionFacts()
  facts.noteUpdate(message(20, 'my last words'), true)
  facts.noteUpdate({update_id: 1, business_connection: {id: 'bc1', user: ada, is_enabled: true}}, true)
  facts.noteCall('sendMessage', {}, {message_id: 21, chat: adaChat, date: 2, text: 'yo'}, true)
  facts.noteCall(
    'sendInvoice',
    {payload: 'premium'},
    {message_id: 22, chat: adaChat, invoice: {currency: 'XTR', total_amount: 5}},
    true,
  )
  facts.noteCall('sendPoll', {}, {message_id: 23, chat: adaChat, poll: {id: 'p1', options: [{}, {}]}}, true)
  const group = {id: -1001234567890, title: 'G', type: 'supergroup'}
  const context = (chat = adaChat) =>
    fillContext({
      parties: {userId: 4242, chatId: chat.id as number, user: ada, chat},
      bot: {id: 99, first_name: 'Bot', username: 'the_bot'},
      botSide: facts,
      userSide: facts,
      photo: [{file_id: 'f', file_unique_id: 'u', file_size: 1, width: 2, height: 2}],
      fallbackMessageId: 5,
      now: 1_800_000_000_000,
    })

  it.each(FIXTURE_TYPES)('%s: loads, shows as path = value lines, and fills into one valid Update', (type) => {
    const fixture = loadFixture(type)
    expect(fixture.summary).toMatch(/\.$/)
    expect(
      fixtureText(type)
        .split('\n')
        .every((l) => / = /.test(l)),
    ).toBe(true)
    const chat = type === 'join-request' || type === 'member-joined' || type === 'member-left' ? group : adaChat
    const filled = fillTemplate(fixture.update, context(chat as typeof adaChat), fixture.defaults, (name) => ({
      error: `missing ${name}`,
      fix: '',
    }))
    expect(filled).not.toHaveProperty('error')
    expect(checkUpdateObject(filled)).toBeUndefined()
    expect(JSON.stringify(filled)).not.toContain('{{')
  })

  it('fills from what the session saw', () => {
    const fill = (type: (typeof FIXTURE_TYPES)[number]) =>
      fillTemplate(loadFixture(type).update, context(), loadFixture(type).defaults, () => ({
        error: 'x',
        fix: '',
      })) as any
    expect(fill('edited-message').edited_message).toMatchObject({
      message_id: 20,
      text: 'my last words (edited)',
      date: 1_800_000_000,
      edit_date: 1_800_000_000,
    })
    expect(fill('reaction').message_reaction).toMatchObject({message_id: 23, user: ada, chat: adaChat})
    expect(fill('payment').pre_checkout_query).toMatchObject({
      from: ada,
      currency: 'XTR',
      total_amount: 5,
      invoice_payload: 'premium',
    })
    expect(fill('poll-answer').poll_answer.poll_id).toBe('p1')
    expect(fill('business-message').business_message.business_connection_id).toBe('bc1')
    expect(fill('member-blocked').my_chat_member.new_chat_member).toEqual({
      user: {id: 99, is_bot: true, first_name: 'Bot', username: 'the_bot'},
      status: 'kicked',
      until_date: 0,
    })
    expect(fill('photo').message.message_id).toBe(24)
  })

  it('a placeholder the session cannot fill is refused, naming the --set that gives it', () => {
    const parties = {userId: 4242, chatId: 4242, user: ada, chat: adaChat}
    const empty = fillContext({
      parties,
      bot: undefined,
      botSide: new SessionFacts(),
      userSide: new SessionFacts(),
      fallbackMessageId: 1,
    })
    const refusal = fillTemplate(loadFixture('reaction').update, empty, undefined, (n) =>
      missingPlaceholder('reaction', n, parties),
    ) as any
    expect(refusal.error).toBe(
      "The reaction fixture needs the bot's newest message in chat 4242, and the session has seen none (its calls go through the api proxy).",
    )
    expect(refusal.fix).toContain('--set message_reaction.message_id=')
    const group = fillTemplate(loadFixture('join-request').update, empty, undefined, (n) =>
      missingPlaceholder('join-request', n, parties),
    ) as any
    expect(group.error).toBe('The join-request fixture needs a group or channel, and chat 4242 is a private chat.')
  })

  it('--set: path=value, read as the type the fixture has there, written before filling', () => {
    expect(parseSetArgument('message.caption=a=b')).toEqual({path: ['message', 'caption'], raw: 'a=b'})
    expect(parseSetArgument('nothing')).toHaveProperty('error')
    expect(parseSetArgument('a..b=1')).toHaveProperty('error')
    const update = loadFixture('payment').update
    const path = fullPath(update, ['total_amount'])
    expect(path).toEqual(['pre_checkout_query', 'total_amount'])
    expect(setValue(update, path, '50')).toEqual({value: 50})
    expect(setValue(update, ['pre_checkout_query', 'invoice_payload'], '42')).toEqual({value: '42'})
    expect(setValue(update, ['pre_checkout_query', 'total_amount'], 'lots')).toHaveProperty('error')
    expect(setValue(update, ['pre_checkout_query', 'from'], '{"id": 5}')).toEqual({value: {id: 5}})
    expect(setValue(update, ['pre_checkout_query', 'from'], '5')).toHaveProperty('error')
    const edited = loadFixture('edited-message').update
    expect(setValue(edited, ['edited_message', 'text'], '42')).toEqual({value: '42'})
    const poll = loadFixture('poll-answer').update
    expect(setValue(poll, ['poll_answer', 'option_ids', '0'], 'two')).toHaveProperty('error')
    expect(setValue(poll, ['poll_answer', 'option_ids'], '[1,2]')).toEqual({value: [1, 2]})
    const written = applySets(update, [
      {path, value: 50},
      {path: ['pre_checkout_query', 'order_info', 'name'], value: 'Ada'},
    ]) as any
    expect(written.pre_checkout_query).toMatchObject({total_amount: 50, order_info: {name: 'Ada'}})
    expect(applySets(update, [{path: ['pre_checkout_query', 'id', 'x'], value: 1}])).toHaveProperty('error')
    expect(applySets(poll, [{path: ['poll_answer', 'option_ids', '5'], value: 1}])).toHaveProperty('error')
  })

  it('--file: a fixture or a bare update', () => {
    expect(templateFromFile({update: {message: {}}, defaults: {a: 1}}, 'f')).toEqual({
      update: {message: {}},
      defaults: {a: 1},
    })
    expect(templateFromFile({update_id: 3, message: {text: 'x'}}, 'f')).toEqual({update: {message: {text: 'x'}}})
    expect(templateFromFile([1], 'f')).toHaveProperty('error')
  })

  it('reads an image header', () => {
    expect(imageInfo(DEFAULT_PHOTO)).toEqual({mime: 'image/png', extension: 'png', width: 2, height: 2})
    expect(imageInfo(Buffer.from('not an image'))).toBeUndefined()
    const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffc0001108007b00c803012200021101031101', 'hex')
    expect(imageInfo(jpeg)).toMatchObject({mime: 'image/jpeg', width: 200, height: 123})
  })
})

describe('copyJson (what the facts hand out is a copy of what an update showed)', () => {
  it('copies JSON data as structuredClone does, sharing nothing with the original', () => {
    const parsed = JSON.parse(
      '{"id":1,"a":[1,"x",null,true,{"b":[[]]}],"__proto__":{"polluted":1},"n":-0,"s":"é\\u2028","o":{}}',
    )
    const copy = copyJson(parsed)
    expect(copy).toStrictEqual(structuredClone(parsed))
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.is(copy.n, -0)).toBe(true)
    expect(copy.a).not.toBe(parsed.a)
    expect(copy.a[4]).not.toBe(parsed.a[4])
    parsed.a[4].b.push(1)
    expect(copy.a[4].b).toEqual([[]])
  })

  it('a party and a user message are handed out as copies: changing them changes nothing kept', () => {
    const facts = new SessionFacts()
    const update = JSON.parse(JSON.stringify(message(7, 'hi')))
    facts.noteUpdate(update, true)
    const party = facts.lastParty()!
    party.chat.first_name = 'changed'
    party.user.first_name = 'changed'
    const mine = facts.userMessage(adaChat.id, ada.id)!
    ;(mine.chat as Record<string, unknown>).first_name = 'changed'
    ;(mine.from as Record<string, unknown>).first_name = 'changed'
    mine.text = 'changed'
    expect(facts.lastParty()).toEqual({chat: adaChat, user: ada})
    expect(facts.userMessage(adaChat.id, ada.id)).toMatchObject({chat: adaChat, from: ada, text: 'hi'})
    // Of anyone in the chat (no user named): a copy as well.
    expect(facts.userMessage(adaChat.id)).toMatchObject({chat: adaChat, from: ada, text: 'hi'})
    expect(facts.userMessage(adaChat.id)).not.toBe(facts.userMessage(adaChat.id))
  })
})
