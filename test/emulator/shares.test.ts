/**
 * What a user's app sends for a reply keyboard's request buttons (share_contact, share_location, share_users,
 * share_chat), a callback_game press (game_short_name instead of data), and a message in a forum topic
 * (message_thread_id): through the table by name, as the chat page and the control API run them.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BotApiEmulator} from '../../src/emulator/index.js'

describe('share actions, callback_game presses, forum topics', () => {
  let emu: BotApiEmulator
  let token: string
  beforeAll(async () => {
    emu = await BotApiEmulator.start()
    token = emu.createBot({username: 'share_bot'}).token
  })
  afterAll(() => emu.stop())

  it('sends a contact, a location, users_shared and chat_shared as messages from the user', async () => {
    const who = {user_id: 42, first_name: 'Ann'}
    const contact = (await emu.runAction(token, 'share_contact', {phone_number: '+15550001', ...who})) as any
    expect(contact.message.contact).toEqual({phone_number: '+15550001', first_name: 'Ann', user_id: 42})
    expect(contact.message.text).toBeUndefined()
    const location = (await emu.runAction(token, 'share_location', {latitude: 1.5, longitude: -2, ...who})) as any
    expect(location.message.location).toEqual({latitude: 1.5, longitude: -2})
    emu.addChat(token, {id: -1009, type: 'supergroup', title: 'Club'})
    const users = (await emu.runAction(token, 'share_users', {request_id: 7, user_ids: [42, 43], ...who})) as any
    expect(users.message.users_shared).toMatchObject({
      request_id: 7,
      users: [{user_id: 42, first_name: 'Ann'}, {user_id: 43}],
    })
    const chat = (await emu.runAction(token, 'share_chat', {request_id: 8, shared_chat_id: -1009, ...who})) as any
    expect(chat.message.chat_shared).toEqual({request_id: 8, chat_id: -1009, title: 'Club'})
    // checked in the table's words
    await expect(emu.runAction(token, 'share_location', {latitude: 91, longitude: 0})).rejects.toThrow(
      'latitude must be a number from -90 to 90',
    )
    await expect(emu.runAction(token, 'share_users', {request_id: 1, user_ids: []})).rejects.toThrow(
      'user_ids must be a non-empty array of user ids',
    )
  })

  it('presses a callback_game button: the query has game_short_name and no data', async () => {
    const sent = await fetch(`${emu.apiRoot}/bot${token}/sendMessage`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({
        chat_id: 42,
        text: 'play',
        reply_markup: {inline_keyboard: [[{text: 'Play', callback_game: {}}]]},
      }),
    }).then((r) => r.json() as Promise<any>)
    const press = (await emu.runAction(token, 'press_button', {
      data: '',
      game_short_name: 'tetris',
      message_id: sent.result.message_id,
      chat_id: 42,
      user_id: 42,
    })) as any
    expect(press.callback_query.game_short_name).toBe('tetris')
    expect('data' in press.callback_query).toBe(false)
    await expect(
      emu.runAction(token, 'press_button', {data: '', message_id: sent.result.message_id, chat_id: 42}),
    ).rejects.toThrow('data must be a non-empty string')
  })

  it('sends into a forum topic of a supergroup the bot knows, keeping its type', async () => {
    emu.addChat(token, {id: -1007, type: 'supergroup', title: 'Forum', is_forum: true})
    const sent = (await emu.runAction(token, 'send_message', {
      text: 'hi',
      chat_id: -1007,
      user_id: 42,
      message_thread_id: 3,
    })) as any
    expect(sent.message).toMatchObject({
      message_thread_id: 3,
      is_topic_message: true,
      chat: {id: -1007, type: 'supergroup', is_forum: true},
    })
  })
})
