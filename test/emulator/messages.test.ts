/** The message store and the errors that depend on it, over HTTP against a started emulator. */
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const bad = (description: string) => `{"ok":false,"error_code":400,"description":${JSON.stringify(description)}}`
const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'
const keyboard = (data: string) => ({inline_keyboard: [[{text: 'A', callback_data: data}]]})

describe('edits', () => {
  it('an identical edit is "not modified"; a new text or a new keyboard is an edit', async () => {
    const {api, emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const sent = (
      await api('sendMessage', {chat_id: 1111, text: '<b>v1</b>', parse_mode: 'HTML', reply_markup: keyboard('a')})
    ).json.result
    const edit = (p: Record<string, unknown>) =>
      api('editMessageText', {chat_id: 1111, message_id: sent.message_id, ...p})
    expect((await edit({text: '<b>v1</b>', parse_mode: 'HTML', reply_markup: keyboard('a')})).text).toBe(
      bad(NOT_MODIFIED),
    )
    expect((await edit({text: 'v1', reply_markup: keyboard('a')})).json.result).toMatchObject({text: 'v1'}) // entities gone
    expect((await edit({text: 'v1', reply_markup: keyboard('a')})).text).toBe(bad(NOT_MODIFIED))
    const rekeyed = (await edit({text: 'v1', reply_markup: keyboard('b')})).json.result
    expect(rekeyed.reply_markup).toEqual(keyboard('b'))
    expect(typeof rekeyed.edit_date).toBe('number')
    const markupOnly = (p: Record<string, unknown>) =>
      api('editMessageReplyMarkup', {chat_id: 1111, message_id: sent.message_id, ...p})
    expect((await markupOnly({reply_markup: keyboard('b')})).text).toBe(bad(NOT_MODIFIED))
    expect((await markupOnly({})).json.result.reply_markup).toBeUndefined()
    expect((await markupOnly({})).text).toBe(bad(NOT_MODIFIED))
  })

  it("a user's message can't be edited; unknown and deleted ones are not found; the content must fit the method", async () => {
    const {api, emu, token} = await setup()
    const user = emu.sendUserMessage(token, {text: 'mine'}).message as {message_id: number}
    expect((await api('editMessageText', {chat_id: 1111, message_id: user.message_id, text: 'x'})).text).toBe(
      bad("Bad Request: message can't be edited"),
    )
    expect((await api('editMessageText', {chat_id: 1111, message_id: 999, text: 'x'})).text).toBe(
      bad('Bad Request: message to edit not found'),
    )
    const photo = (await api('sendPhoto', {chat_id: 1111, photo: 'https://example.com/cat.jpg', caption: 'c'})).json
      .result
    expect((await api('editMessageText', {chat_id: 1111, message_id: photo.message_id, text: 'x'})).text).toBe(
      bad('Bad Request: there is no text in the message to edit'),
    )
    expect(
      (
        await api('editMessageCaption', {
          chat_id: 1111,
          message_id: photo.message_id,
          caption: '<i>new</i>',
          parse_mode: 'HTML',
        })
      ).json.result,
    ).toMatchObject({caption: 'new', caption_entities: [{offset: 0, length: 3, type: 'italic'}]})
    const text = (await api('sendMessage', {chat_id: 1111, text: 'plain'})).json.result
    expect((await api('editMessageCaption', {chat_id: 1111, message_id: text.message_id, caption: 'x'})).text).toBe(
      bad('Bad Request: there is no caption in the message to edit'),
    )
    expect((await api('editMessageText', {chat_id: 1111, message_id: text.message_id, text: ''})).text).toBe(
      bad('Bad Request: message text is empty'),
    )
    expect(
      (await api('editMessageText', {chat_id: 1111, message_id: text.message_id, text: '*x', parse_mode: 'MarkdownV2'}))
        .text,
    ).toBe(bad("Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 0"))
    expect((await api('deleteMessage', {chat_id: 1111, message_id: text.message_id})).text).toBe(
      '{"ok":true,"result":true}',
    )
    expect((await api('editMessageText', {chat_id: 1111, message_id: text.message_id, text: 'x'})).text).toBe(
      bad('Bad Request: message to edit not found'),
    )
  })
})

describe('deletions, replies and chats', () => {
  it('deleteMessage: once, then "message to delete not found"; a missing id is "not specified"', async () => {
    const {api, emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const sent = (await api('sendMessage', {chat_id: 1111, text: 'bye'})).json.result
    expect((await api('deleteMessage', {chat_id: 1111, message_id: sent.message_id})).json.result).toBe(true)
    expect((await api('deleteMessage', {chat_id: 1111, message_id: sent.message_id})).text).toBe(
      bad('Bad Request: message to delete not found'),
    )
    expect((await api('deleteMessage', {chat_id: 1111, message_id: 12345})).text).toBe(
      bad('Bad Request: message to delete not found'),
    )
    expect((await api('deleteMessage', {chat_id: 1111})).text).toBe(
      bad('Bad Request: message identifier is not specified'),
    )
    expect((await api('deleteMessage', {chat_id: 777, message_id: 1})).text).toBe(bad('Bad Request: chat not found'))
  })

  it('a reply to a missing message fails unless allow_sending_without_reply (either form)', async () => {
    const {api, emu, token} = await setup()
    const first = emu.sendUserMessage(token, {text: 'question'}).message as {message_id: number}
    const replied = (
      await api('sendMessage', {chat_id: 1111, text: 'answer', reply_parameters: {message_id: first.message_id}})
    ).json.result
    expect(replied.reply_to_message).toMatchObject({message_id: first.message_id, text: 'question'})
    expect((await api('sendMessage', {chat_id: 1111, text: 'x', reply_to_message_id: 99})).text).toBe(
      bad('Bad Request: message to be replied not found'),
    )
    expect((await api('sendMessage', {chat_id: 1111, text: 'x', reply_parameters: {message_id: 99}})).text).toBe(
      bad('Bad Request: message to be replied not found'),
    )
    const loose = (
      await api('sendMessage', {chat_id: 1111, text: 'x', reply_to_message_id: 99, allow_sending_without_reply: true})
    ).json.result
    expect(loose.text).toBe('x')
    expect(loose.reply_to_message).toBeUndefined()
    const loose2 = (
      await api('sendMessage', {
        chat_id: 1111,
        text: 'y',
        reply_parameters: {message_id: 99, allow_sending_without_reply: true},
      })
    ).json.result
    expect(loose2.reply_to_message).toBeUndefined()
    expect((await api('sendMessage', {chat_id: 1111, text: 'x', reply_parameters: '{bad'})).text).toBe(
      bad("Bad Request: can't parse reply parameters JSON object"),
    )
    await api('deleteMessage', {chat_id: 1111, message_id: first.message_id})
    expect((await api('sendMessage', {chat_id: 1111, text: 'x', reply_to_message_id: first.message_id})).text).toBe(
      bad('Bad Request: message to be replied not found'),
    )
  })

  it('"chat not found" until the chat writes or is added; the text is checked first, the chat before td\'s checks', async () => {
    const {api, emu, token} = await setup()
    expect((await api('sendMessage', {chat_id: 42, text: 'x'})).text).toBe(bad('Bad Request: chat not found'))
    expect((await api('sendMessage', {chat_id: 42, text: ''})).text).toBe(bad('Bad Request: message text is empty'))
    expect((await api('sendMessage', {chat_id: 42, text: 'x.', parse_mode: 'MarkdownV2'})).json.description).toContain(
      "can't parse entities",
    )
    expect((await api('sendMessage', {chat_id: 42, text: '  '})).text).toBe(bad('Bad Request: chat not found'))
    emu.addChat(token, {id: 42, type: 'private', first_name: 'Ann'})
    expect((await api('sendMessage', {chat_id: 42, text: 'x'})).json.result.chat).toEqual({
      id: 42,
      type: 'private',
      first_name: 'Ann',
    })
    emu.sendUserMessage(token, {text: 'hi', chatId: -500, userId: 7})
    expect((await api('sendMessage', {chat_id: -500, text: 'to the group'})).status).toBe(200)
  })
})

describe('callback queries', () => {
  it('can be answered once', async () => {
    const {api, emu, token} = await setup({timeScale: 0.1})
    emu.sendUserMessage(token, {text: 'hi'})
    await api('sendMessage', {chat_id: 1111, text: 'pick', reply_markup: keyboard('a')})
    const id = (emu.sendCallbackQuery(token, {data: 'a'}).callback_query as {id: string}).id
    expect((await api('answerCallbackQuery', {callback_query_id: id})).text).toBe('{"ok":true,"result":true}')
    expect((await api('answerCallbackQuery', {callback_query_id: id})).text).toBe(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
    expect((await api('answerCallbackQuery', {callback_query_id: 'nope'})).text).toBe(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
  })

  it('press a button of a message that exists: an unknown message id throws and queues nothing', async () => {
    const {api, emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const sent = (await api('sendMessage', {chat_id: 1111, text: 'pick', reply_markup: keyboard('a')})).json.result as {
      message_id: number
    }
    const queued = emu.pendingUpdates(token).length
    expect(() => emu.sendCallbackQuery(token, {data: 'a', messageId: sent.message_id + 1000})).toThrow(
      `there is no message ${sent.message_id + 1000} in chat 1111`,
    )
    expect(() => emu.sendCallbackQuery(token, {data: 'a', messageId: sent.message_id, chatId: 9})).toThrow(
      'there is no message',
    )
    expect(emu.pendingUpdates(token)).toHaveLength(queued)
    const press = emu.sendCallbackQuery(token, {data: 'a', messageId: sent.message_id}).callback_query as {
      message: {message_id: number}
    }
    expect(press.message.message_id).toBe(sent.message_id)
  })

  it('expire 150 s after they were made (scaled by timeScale)', async () => {
    const {api, emu, token} = await setup({timeScale: 0.0001}) // 150 s → 15 ms
    emu.sendUserMessage(token, {text: 'hi'})
    const made = Date.now()
    const id = (emu.sendCallbackQuery(token, {data: 'late'}).callback_query as {id: string}).id
    await waitFor(() => Date.now() - made > 30, {what: 'the query to age past its lifetime'})
    expect((await api('answerCallbackQuery', {callback_query_id: id})).text).toBe(
      bad('Bad Request: query is too old and response timeout expired or query ID is invalid'),
    )
  })
})

describe('user messages the emulator makes', () => {
  it('carry the entities Telegram detects', async () => {
    const {emu, token} = await setup()
    const m = emu.sendUserMessage(token, {text: '/help@test_bot ask @support_team about #billing at help.example.com'})
      .message as {entities: unknown}
    expect(m.entities).toEqual([
      {offset: 0, length: 14, type: 'bot_command'},
      {offset: 19, length: 13, type: 'mention'},
      {offset: 39, length: 8, type: 'hashtag'},
      {offset: 51, length: 16, type: 'url'},
    ])
    expect('entities' in (emu.sendUserMessage(token, {text: 'just words'}).message as object)).toBe(false)
  })
})
