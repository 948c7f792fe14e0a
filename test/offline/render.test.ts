import {describe, expect, it} from 'vitest'

import {flatButtons, formatRendered, keyboardOf, plainText, renderCall} from '../../src/offline/render.js'

const lines = (method: string, params: Record<string, unknown>, extra: {result?: unknown; error?: unknown} = {}) => {
  const r = renderCall({method, params, ...extra})
  return r ? formatRendered(r) : undefined
}

describe('renderCall', () => {
  it('shows sendMessage text with the bot prefix, continuation lines indented', () => {
    expect(lines('sendMessage', {chat_id: 1, text: 'Hello\nworld'})).toEqual(['bot › Hello', '      world'])
  })

  it('is case-insensitive on the method name, like the Bot API', () => {
    expect(lines('SENDMESSAGE', {chat_id: 1, text: 'hi'})).toEqual(['bot › hi'])
  })

  it('drops HTML tags and MarkdownV2 escapes', () => {
    expect(lines('sendMessage', {text: '<b>Bold</b> &amp; <i>it</i> &lt;3', parse_mode: 'HTML'})).toEqual([
      'bot › Bold & it <3',
    ])
    expect(plainText('1\\.5 \\- ok\\!', 'MarkdownV2')).toBe('1.5 - ok!')
    expect(plainText('<b>raw</b>')).toBe('<b>raw</b>')
  })

  it('marks edits', () => {
    expect(lines('editMessageText', {chat_id: 1, message_id: 4, text: 'new'})).toEqual(['bot › (edited) new'])
    expect(lines('editMessageCaption', {caption: 'c2'})).toEqual(['bot › (edited caption) c2'])
  })

  it('renders inline keyboards as buttons, one line per row, given as an object or as JSON text', () => {
    const markup = {
      inline_keyboard: [
        [
          {text: 'Yes', callback_data: 'y'},
          {text: 'No', callback_data: 'n'},
        ],
        [{text: 'Docs', url: 'https://example.org'}],
      ],
    }
    const expected = ['bot › Do you like it?', '      [ Yes ] [ No ]', '      [ Docs ↗ ]']
    expect(lines('sendMessage', {text: 'Do you like it?', reply_markup: markup})).toEqual(expected)
    expect(lines('sendMessage', {text: 'Do you like it?', reply_markup: JSON.stringify(markup)})).toEqual(expected)
  })

  it('renders reply keyboards and their removal differently from inline buttons', () => {
    expect(
      lines('sendMessage', {text: 'Pick', reply_markup: {keyboard: [['A', {text: 'B'}]], resize_keyboard: true}}),
    ).toEqual(['bot › Pick', '      ‹ A › ‹ B ›'])
    expect(lines('sendMessage', {text: 'Done', reply_markup: {remove_keyboard: true}})).toEqual([
      'bot › Done',
      '      (keyboard removed)',
    ])
  })

  it('describes media in one line with the caption', () => {
    expect(lines('sendPhoto', {chat_id: 1, photo: 'https://example.org/img/cat.jpg', caption: 'A cat'})).toEqual([
      'bot › [photo: cat.jpg] A cat',
    ])
    expect(lines('sendPhoto', {chat_id: 1, photo: 'AgACAgIAAxkBAAIB'})).toEqual(['bot › [photo]'])
    expect(lines('sendDocument', {document: {filename: 'report.pdf'}, caption: 'here'})).toEqual([
      'bot › [document: report.pdf] here',
    ])
    expect(lines('sendVoice', {voice: 'x', duration: 3})).toEqual(['bot › [voice message 3s]'])
    expect(lines('sendSticker', {sticker: 'x', emoji: '😀'})).toEqual(['bot › [sticker 😀]'])
    expect(lines('sendLocation', {latitude: 51.5, longitude: -0.12})).toEqual(['bot › [location 51.5, -0.12]'])
    expect(lines('sendPoll', {question: 'Tea?', options: JSON.stringify([{text: 'yes'}, {text: 'no'}])})).toEqual([
      'bot › [poll] Tea? — yes / no',
    ])
    expect(
      lines('sendMediaGroup', {
        media: [
          {type: 'photo', media: 'a', caption: 'trip'},
          {type: 'photo', media: 'b'},
        ],
      }),
    ).toEqual(['bot › [album: 2 photo] trip'])
    expect(lines('sendDice', {})).toEqual(['bot › [dice 🎲]'])
  })

  it('keeps a keyboard attached to media', () => {
    const r = renderCall({
      method: 'sendPhoto',
      params: {photo: 'x', reply_markup: {inline_keyboard: [[{text: 'Like', callback_data: 'l'}]]}},
      result: {message_id: 9},
    })
    expect(r?.keyboard?.rows[0][0]).toEqual({text: 'Like', kind: 'callback', data: 'l'})
    expect(r?.messageId).toBe(9)
  })

  it('shows answerCallbackQuery text, and nothing when it has none', () => {
    expect(lines('answerCallbackQuery', {callback_query_id: '1', text: 'Saved'})).toEqual([
      'bot › (notification) Saved',
    ])
    expect(lines('answerCallbackQuery', {callback_query_id: '1', text: 'Sure?', show_alert: true})).toEqual([
      'bot › (alert) Sure?',
    ])
    expect(lines('answerCallbackQuery', {callback_query_id: '1'})).toBeUndefined()
  })

  it('ignores chat actions unless asked, then shows them dim', () => {
    expect(renderCall({method: 'sendChatAction', params: {action: 'typing'}})).toBeUndefined()
    const r = renderCall({method: 'sendChatAction', params: {action: 'upload_photo'}}, {showChatActions: true})
    expect(r).toMatchObject({text: '(upload photo…)', dim: true})
    expect(formatRendered(r!, {color: true})[0]).toContain('\u001B[2m(upload photo…)')
  })

  it('hides calls that are not visible in a chat', () => {
    for (const method of ['getMe', 'getUpdates', 'setWebhook', 'deleteWebhook', 'setMyCommands', 'getFile'])
      expect(renderCall({method, params: {}}), method).toBeUndefined()
  })

  it('shows a failed send as a dim error line', () => {
    const r = renderCall({
      method: 'sendMessage',
      params: {text: ''},
      error: {error_code: 400, description: 'Bad Request: message text is empty'},
    })
    expect(r).toMatchObject({dim: true, text: '✗ sendMessage failed: 400 Bad Request: message text is empty'})
  })

  it('reads chat_id given as text', () => {
    expect(renderCall({method: 'sendMessage', params: {chat_id: '-100', text: 'x'}})?.chatId).toBe(-100)
  })

  it('shows deletions and button removal dim', () => {
    expect(renderCall({method: 'deleteMessage', params: {chat_id: 1, message_id: 2}})).toMatchObject({
      text: '(deleted a message)',
      dim: true,
    })
    expect(renderCall({method: 'editMessageReplyMarkup', params: {reply_markup: {inline_keyboard: []}}})).toMatchObject(
      {
        text: '(buttons removed)',
        dim: true,
      },
    )
  })
})

describe('keyboards', () => {
  it('numbers buttons left to right, top to bottom', () => {
    const {keyboard} = keyboardOf({
      inline_keyboard: [
        [
          {text: 'a', callback_data: '1'},
          {text: 'b', callback_data: '2'},
        ],
        [{text: 'c', callback_data: '3'}],
      ],
    })
    expect(flatButtons(keyboard!).map((b) => b.text)).toEqual(['a', 'b', 'c'])
  })

  it('notes force_reply', () => {
    expect(keyboardOf({force_reply: true, input_field_placeholder: 'your name'}).note).toBe(
      '(asks for a reply: your name)',
    )
  })

  it('ignores markup that is not a keyboard', () => {
    expect(keyboardOf('not json')).toEqual({})
    expect(keyboardOf(undefined)).toEqual({})
  })
})
