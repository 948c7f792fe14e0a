/** reply_markup: the server's texts for bad keyboards, and the silent cut, over HTTP against a started emulator. */
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

const bad = (description: string) => `{"ok":false,"error_code":400,"description":${JSON.stringify(description)}}`
const button = (m: string) => bad(`Bad Request: can't parse inline keyboard button: ${m}`)

async function chat() {
  const s = await setup()
  s.emu.sendUserMessage(s.token, {text: 'hi'})
  const send = (reply_markup: unknown, chat_id: number = 1111) =>
    s.api('sendMessage', {chat_id, text: 'pick', reply_markup})
  return {...s, send}
}

describe('inline keyboards the server refuses', () => {
  it('names what is wrong with the markup, the rows and the buttons', async () => {
    const {send} = await chat()
    expect((await send('{not json')).text).toBe(bad("Bad Request: can't parse reply keyboard markup JSON object"))
    expect((await send([[{text: 'a', callback_data: 'a'}]])).text).toBe(
      bad('Bad Request: object expected as reply markup'),
    )
    expect((await send({inline_keyboard: [{text: 'a', callback_data: 'a'}]})).text).toBe(
      bad('Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'),
    )
    expect((await send({inline_keyboard: [['a']]})).text).toBe(button('InlineKeyboardButton must be an Object'))
    expect((await send({inline_keyboard: [[{callback_data: 'a'}]]})).text).toBe(button('Can\'t find field "text"'))
    expect((await send({inline_keyboard: [[{text: true, callback_data: 'a'}]]})).text).toBe(
      button('Field "text" must be of type String'),
    )
    expect((await send({inline_keyboard: [[{text: 'a'}]]})).text).toBe(
      button('Text buttons are unallowed in the inline keyboard'),
    )
    expect((await send({inline_keyboard: [[{text: 'a', callback_data: '', url: ''}]]})).text).toBe(
      button('Text buttons are unallowed in the inline keyboard'),
    )
  })

  it('checks button URLs and callback_data size (64 bytes)', async () => {
    const {send} = await chat()
    expect((await send({inline_keyboard: [[{text: 'a', url: 'http://localhost:3000'}]]})).text).toBe(
      bad("Bad Request: inline keyboard button URL 'http://localhost:3000' is invalid: Wrong HTTP URL"),
    )
    expect((await send({inline_keyboard: [[{text: 'a', url: 'ftp://files.example.org'}]]})).text).toBe(
      bad("Bad Request: inline keyboard button URL 'ftp://files.example.org' is invalid: Unsupported URL protocol"),
    )
    expect((await send({inline_keyboard: [[{text: 'a', url: 'https://example.org:99999/'}]]})).text).toBe(
      bad(
        "Bad Request: inline keyboard button URL 'https://example.org:99999/' is invalid: Wrong port number specified in the URL",
      ),
    )
    expect((await send({inline_keyboard: [[{text: 'a', callback_data: 'x'.repeat(65)}]]})).text).toBe(
      bad('Bad Request: BUTTON_DATA_INVALID'),
    )
    expect((await send({inline_keyboard: [[{text: 'a', callback_data: 'é'.repeat(33)}]]})).text).toBe(
      bad('Bad Request: BUTTON_DATA_INVALID'),
    )
    const ok = await send({
      inline_keyboard: [
        [
          {text: 'a', callback_data: 'x'.repeat(64)},
          {text: 'site', url: 'Example.org'},
        ],
      ],
    })
    expect(ok.json.result.reply_markup).toEqual({
      inline_keyboard: [
        [
          {text: 'a', callback_data: 'x'.repeat(64)},
          {text: 'site', url: 'http://example.org/'},
        ],
      ],
    })
  })

  it('reads the markup before the chat, checks the buttons after it', async () => {
    const {send} = await chat()
    expect((await send('{not json', 42)).text).toBe(bad("Bad Request: can't parse reply keyboard markup JSON object"))
    expect((await send({inline_keyboard: [[{text: 'a', callback_data: 'x'.repeat(65)}]]}, 42)).text).toBe(
      bad('Bad Request: chat not found'),
    )
  })
})

describe('the silent cut', () => {
  it('keeps 12 buttons per row and 300 in all, drops buttons without text and empty rows, and stores what it kept', async () => {
    const {send, api} = await chat()
    const row = (n: number, prefix: string) =>
      Array.from({length: n}, (_, i) => ({text: `${prefix}${i}`, callback_data: `${prefix}${i}`}))
    const wide = await send({inline_keyboard: [row(13, 'a'), [{text: '', callback_data: 'z'}], row(2, 'b')]})
    const kept = wide.json.result.reply_markup.inline_keyboard
    expect(kept.map((r: unknown[]) => r.length)).toEqual([12, 2])
    expect(kept[0].at(-1)).toEqual({text: 'a11', callback_data: 'a11'})
    const many = await send({inline_keyboard: Array.from({length: 30}, (_, i) => row(11, `r${i}-`))})
    const rows = many.json.result.reply_markup.inline_keyboard
    expect(rows.flat()).toHaveLength(300)
    expect(rows).toHaveLength(28)
    expect(rows.at(-1)).toHaveLength(3)
    // what was cut is what is stored: the same uncut keyboard again is "not modified"
    const again = await api('editMessageReplyMarkup', {
      chat_id: 1111,
      message_id: wide.json.result.message_id,
      reply_markup: {inline_keyboard: [row(13, 'a'), [{text: '', callback_data: 'z'}], row(2, 'b')]},
    })
    expect(again.json.description).toMatch(/^Bad Request: message is not modified/)
    const none = await send({inline_keyboard: [[{text: '', callback_data: 'z'}]]})
    expect(none.json.result.reply_markup).toBeUndefined()
  })

  it('a reply keyboard is checked but not stored on the message', async () => {
    const {send} = await chat()
    expect(
      (await send({keyboard: [['Yes', {text: 'No'}]], one_time_keyboard: true})).json.result.reply_markup,
    ).toBeUndefined()
    expect((await send({keyboard: ['Yes']})).text).toBe(bad('Bad Request: field "keyboard" must be an Array of Arrays'))
    expect((await send({keyboard: [[5]]})).text).toBe(
      bad("Bad Request: can't parse keyboard button: KeyboardButton must be a String or an Object"),
    )
  })
})
