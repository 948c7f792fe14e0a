/**
 * The chats of an online session as the chat page draws them (src/chat/session-chats.ts), from recorded updates and
 * calls: a user's message and the bot's answer (Telegram's result), a synthetic message placed between the real ones
 * without taking a real one's id, edits, deletes, reactions, polls, the bot's card, and the bounds.
 */
import {describe, expect, it} from 'vitest'

import {SessionChats} from '../../src/chat/session-chats.js'
import type {EntrySource, UpdateEntry} from '../../src/inspector/types.js'

const BOT = {id: 42, is_bot: true, first_name: 'Bot', username: 'the_bot'}
const ADA = {id: 7, is_bot: false, first_name: 'Ada'}
const CHAT = {id: 7, type: 'private', first_name: 'Ada'}

let seq = 0
function entry(update: Record<string, unknown>, source: EntrySource = 'webhook'): UpdateEntry {
  seq += 1
  return {updateId: seq, time: '', type: Object.keys(update)[0], update, answer: null, calls: [], seq, source}
}

const userMessage = (id: number, text: string, chat: Record<string, unknown> = CHAT) => ({
  message_id: id,
  date: 1,
  chat,
  from: ADA,
  text,
})
const botMessage = (id: number, text: string, extra: Record<string, unknown> = {}) => ({
  message_id: id,
  date: 2,
  chat: CHAT,
  from: BOT,
  text,
  ...extra,
})

describe('SessionChats', () => {
  it("draws a user's message and the bot's answer as Telegram returned it; a synthetic one between, marked", () => {
    const chats = new SessionChats()
    const views = chats.fromEntry(entry({message: userMessage(10, 'hi')}))
    expect(views.map((v) => v.message.text)).toEqual(['hi'])
    chats.fromCall('sendMessage', {chat_id: 7, text: 'echo: hi'}, botMessage(11, 'echo: hi'))
    // bot trigger borrows the chat's next id (12), which Telegram then gives the bot's answer
    const [synthetic] = chats.fromEntry(entry({message: userMessage(12, 'typed')}, 'trigger'))
    expect(synthetic).toMatchObject({synthetic: true, message: {text: 'typed', message_id: 11.5}})
    chats.fromCall('sendMessage', {chat_id: '7', text: 'echo: typed'}, botMessage(12, 'echo: typed'))
    const [again] = chats.fromEntry(entry({message: userMessage(12, 'typed again')}, 'trigger'))
    expect(again.message.message_id).toBeGreaterThan(12)
    expect(again.message.message_id).toBeLessThan(13)
    expect(chats.history(7).map((v) => [v.message.text, v.synthetic ?? false])).toEqual([
      ['hi', false],
      ['echo: hi', false],
      ['typed', true],
      ['echo: typed', false],
      ['typed again', true],
    ])
    expect(chats.history(7, {limit: 2}).map((v) => v.message.text)).toEqual(['echo: typed', 'typed again'])
    expect(chats.history(7, {before: 12, limit: 2}).map((v) => v.message.text)).toEqual(['echo: hi', 'typed'])
    expect(chats.users()).toEqual([ADA])
    expect(chats.last()).toEqual({chatId: 7, user: ADA})
    expect(chats.chatList()).toEqual([CHAT])
    expect(chats.size).toBe(5)
  })

  it('applies edits, deletes, reactions, poll counts and the bot card; leaves failed or inline results out', () => {
    const chats = new SessionChats()
    chats.fromEntry(entry({message: userMessage(1, 'menu')}))
    chats.fromCall('sendMessage', {chat_id: 7}, botMessage(2, 'Menu'))
    chats.fromCall('editMessageText', {chat_id: 7, message_id: 2}, botMessage(2, 'Picked', {edit_date: 3}))
    expect(chats.view(7, 2)?.message).toMatchObject({text: 'Picked', edit_date: 3})
    // an inline message's edit returns true: nothing to draw
    chats.fromCall('editMessageText', {inline_message_id: 'x'}, true)
    chats.fromEntry(
      entry({
        message_reaction: {
          chat: CHAT,
          message_id: 2,
          user: ADA,
          date: 4,
          old_reaction: [],
          new_reaction: [{type: 'emoji', emoji: '👍'}],
        },
      }),
    )
    expect(chats.view(7, 2)?.reactions).toEqual([{type: {type: 'emoji', emoji: '👍'}, total_count: 1}])
    const poll = {id: 'p1', question: 'Q', options: [{text: 'a', voter_count: 0}], total_voter_count: 0}
    chats.fromCall('sendPoll', {chat_id: 7}, botMessage(3, undefined as unknown as string, {poll}))
    chats.fromEntry(entry({poll: {...poll, options: [{text: 'a', voter_count: 1}], total_voter_count: 1}}))
    expect(chats.view(7, 3)?.message.poll).toMatchObject({total_voter_count: 1})
    chats.fromCall('stopPoll', {chat_id: 7, message_id: 3}, {...poll, is_closed: true})
    expect(chats.view(7, 3)?.message.poll).toMatchObject({is_closed: true})
    chats.fromCall('deleteMessages', {chat_id: 7, message_ids: [1, 3]}, true)
    expect(chats.history(7).map((v) => v.message.message_id)).toEqual([2])
    expect(chats.size).toBe(1)
    chats.fromCall('setMyCommands', {commands: [{command: 'start', description: 'Start'}]}, true)
    chats.fromCall('setMyCommands', {commands: [{command: 'x', description: 'X'}], language_code: 'de'}, true)
    chats.fromCall('setMyDescription', {description: 'What it does'}, true)
    chats.fromCall('setChatMenuButton', {menu_button: {type: 'commands'}}, true)
    expect(chats.commands).toEqual([{command: 'start', description: 'Start'}])
    expect(chats.description).toBe('What it does')
    // a synthetic update's reaction or poll is not what a user did
    chats.fromEntry(
      entry(
        {
          message_reaction: {
            chat: CHAT,
            message_id: 2,
            user: {id: 8},
            date: 4,
            old_reaction: [],
            new_reaction: [{type: 'emoji', emoji: '🔥'}],
          },
        },
        'trigger',
      ),
    )
    expect(chats.view(7, 2)?.reactions).toHaveLength(1)
  })

  it('adds the message under a pressed button when it was sent before the session; keeps a group and its sender', () => {
    const chats = new SessionChats()
    const group = {id: -100, type: 'supergroup', title: 'G'}
    chats.fromEntry(
      entry({
        callback_query: {
          id: 'q',
          from: ADA,
          chat_instance: 'c',
          data: 'go',
          message: {message_id: 5, date: 1, chat: group, from: BOT, text: 'Old'},
        },
      }),
    )
    chats.fromEntry(entry({message: userMessage(6, 'in the group', group)}))
    expect(chats.history(-100).map((v) => v.message.text)).toEqual(['Old', 'in the group'])
    // Ada wrote in a group only: no private chat of hers, so she is not one of the users
    expect(chats.users()).toEqual([])
    expect(chats.last()).toEqual({chatId: -100})
  })

  it('is bounded: past its total, the oldest messages of the chat met first go', () => {
    const chats = new SessionChats({maxTotal: 50})
    for (let i = 1; i <= 40; i++) chats.fromEntry(entry({message: userMessage(i, `a${i}`)}))
    const other = {id: 9, type: 'private', first_name: 'Bo'}
    for (let i = 1; i <= 30; i++)
      chats.fromEntry(entry({message: {...userMessage(i, `b${i}`, other), from: {id: 9, first_name: 'Bo'}}}))
    expect(chats.size).toBe(50)
    expect(chats.history(9, {limit: 100})).toHaveLength(30)
    expect(chats.history(7, {limit: 100}).map((v) => v.message.text)[0]).toBe('a21')
  })
})

describe('SessionChats: ephemeral messages (Bot API 10.2), kept apart from the history', () => {
  const ephemeral = (id: number, extra: Record<string, unknown> = {}) => ({
    message_id: 0,
    date: 3,
    chat: CHAT,
    from: BOT,
    receiver_user: ADA,
    ephemeral_message_id: id,
    ...extra,
  })
  const where = {chat_id: CHAT.id, receiver_user_id: ADA.id}

  it("a send is its receiver's alone; an edit (Telegram answers true) is made from its parameters; a delete removes it", () => {
    const chats = new SessionChats()
    const keyboard = {inline_keyboard: [[{text: 'Later', callback_data: 'later'}]]}
    chats.fromCall(
      'sendMessage',
      {...where, text: 'Only for you'},
      ephemeral(1, {text: 'Only for you', reply_markup: keyboard}),
    )
    expect(chats.history(CHAT.id)).toEqual([])
    expect(chats.ephemeral.list(CHAT.id, ADA.id).map((v) => v.message.text)).toEqual(['Only for you'])
    expect(chats.ephemeral.list(CHAT.id, 99)).toEqual([])

    // the text formatted as sent (HTML here); an edit without reply_markup takes the keyboard away
    const edited = chats.ephemeral.fromCall(
      'editEphemeralMessageText',
      {...where, ephemeral_message_id: 1, text: '<b>Revealed</b>: 42', parse_mode: 'HTML'},
      true,
    )
    expect(edited?.view?.message).toMatchObject({
      text: 'Revealed: 42',
      entities: [{offset: 0, length: 8, type: 'bold'}],
    })
    expect(edited?.view?.message.reply_markup).toBeUndefined()
    // a failed call (no `true`) changes nothing
    chats.fromCall('editEphemeralMessageText', {...where, ephemeral_message_id: 1, text: 'no'}, undefined)
    expect(chats.ephemeral.view(CHAT.id, ADA.id, 1)?.message.text).toBe('Revealed: 42')
    chats.fromCall(
      'editEphemeralMessageReplyMarkup',
      {...where, ephemeral_message_id: '1', reply_markup: JSON.stringify(keyboard)},
      true,
    )
    expect(chats.ephemeral.view(CHAT.id, ADA.id, 1)?.message).toMatchObject({
      text: 'Revealed: 42',
      reply_markup: keyboard,
    })

    chats.fromCall(
      'sendPhoto',
      where,
      ephemeral(2, {photo: [{file_id: 'p1', file_unique_id: 'u', width: 1, height: 1}], caption: 'c'}),
    )
    chats.fromCall(
      'editEphemeralMessageCaption',
      {...where, ephemeral_message_id: 2, caption: 'new *cap*', parse_mode: 'Markdown'},
      true,
    )
    expect(chats.ephemeral.view(CHAT.id, ADA.id, 2)?.message).toMatchObject({
      caption: 'new cap',
      caption_entities: [{offset: 4, length: 3, type: 'bold'}],
    })
    chats.fromCall(
      'editEphemeralMessageMedia',
      {...where, ephemeral_message_id: 2, media: {type: 'document', media: 'doc-id', caption: 'a file'}},
      true,
    )
    const media = chats.ephemeral.view(CHAT.id, ADA.id, 2)?.message
    expect(media).toMatchObject({document: {file_id: 'doc-id'}, caption: 'a file'})
    expect(media?.photo).toBeUndefined()

    expect(chats.ephemeral.fromCall('deleteEphemeralMessage', {...where, ephemeral_message_id: 1}, true)).toEqual({
      ...where,
      ephemeral_message_id: 1,
    })
    expect(chats.ephemeral.list(CHAT.id, ADA.id).map((v) => v.message.ephemeral_message_id)).toEqual([2])
    expect(chats.history(CHAT.id)).toEqual([])
  })

  it('a press under an ephemeral message keeps it among the ephemeral ones, not in the history', () => {
    const chats = new SessionChats()
    chats.fromEntry(
      entry({callback_query: {id: 'q', from: ADA, chat_instance: 'i', data: 'd', message: ephemeral(5, {text: 'e'})}}),
    )
    expect(chats.history(CHAT.id)).toEqual([])
    expect(chats.ephemeral.view(CHAT.id, ADA.id, 5)?.message.text).toBe('e')
  })
})
