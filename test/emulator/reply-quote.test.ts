/**
 * reply_parameters.quote: the reply carries Message.quote (TextQuote: text, entities, position, is_manual) as the
 * Bot API answers it (telegram-bot-api Client.cpp JsonTextQuote), over HTTP against a started emulator.
 */
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

const bad = (description: string) => `{"ok":false,"error_code":400,"description":${JSON.stringify(description)}}`

describe('reply_parameters.quote', () => {
  it('the reply carries the quoted part, its position and is_manual, right after reply_to_message', async () => {
    const {api, emu, token} = await setup()
    const asked = emu.sendUserMessage(token, {text: 'Is the shop open on Sunday?'}).message as {message_id: number}
    const reply = (
      await api('sendMessage', {
        chat_id: 1111,
        text: 'Yes, 10 to 4.',
        reply_parameters: {message_id: asked.message_id, quote: 'open on Sunday'},
      })
    ).json.result
    expect(reply.reply_to_message).toMatchObject({message_id: asked.message_id})
    expect(reply.quote).toEqual({text: 'open on Sunday', position: 12, is_manual: true})
    const keys = Object.keys(reply)
    expect(keys.indexOf('quote')).toBe(keys.indexOf('reply_to_message') + 1)
    // getUpdates-free check that it was stored as sent: a reply without a quote has none.
    const plain = (
      await api('sendMessage', {chat_id: 1111, text: 'ok', reply_parameters: {message_id: asked.message_id}})
    ).json.result
    expect(plain.reply_to_message).toBeDefined()
    expect(plain.quote).toBeUndefined()
  })

  it("keeps the replied text's formatting entities inside the quote, clipped to it; quote_parse_mode reads the quote", async () => {
    const {api, emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi'})
    const sent = (
      await api('sendMessage', {
        chat_id: 1111,
        text: '<b>hello</b> <a href="https://a.example">world</a> <i>again</i>',
        parse_mode: 'HTML',
      })
    ).json.result
    expect(sent.text).toBe('hello world again')
    const reply = (
      await api('sendMessage', {
        chat_id: 1111,
        text: 'quoting',
        reply_parameters: {message_id: sent.message_id, quote: '<b>llo</b> world ag', quote_parse_mode: 'HTML'},
      })
    ).json.result
    // bold "llo" kept (clipped), the text_link dropped (not a quote's entity), italic "ag" kept (clipped)
    expect(reply.quote).toEqual({
      text: 'llo world ag',
      entities: [
        {offset: 0, length: 3, type: 'bold'},
        {offset: 10, length: 2, type: 'italic'},
      ],
      position: 2,
      is_manual: true,
    })
  })

  it('of several occurrences, the one nearest to quote_position', async () => {
    const {api, emu, token} = await setup()
    const m = emu.sendUserMessage(token, {text: 'ab ab ab'}).message as {message_id: number}
    const at = async (quote_position?: number) =>
      (
        await api('sendMessage', {
          chat_id: 1111,
          text: 'x',
          reply_parameters: {
            message_id: m.message_id,
            quote: 'ab',
            ...(quote_position === undefined ? {} : {quote_position}),
          },
        })
      ).json.result.quote.position
    expect(await at()).toBe(0)
    expect(await at(4)).toBe(3)
    expect(await at(5)).toBe(6)
    expect(await at(100)).toBe(6)
  })

  it('a quote that is not part of the replied text is refused with the server’s words, and nothing is sent', async () => {
    const {api, emu, token} = await setup()
    const m = emu.sendUserMessage(token, {text: 'Is the shop open on Sunday?'}).message as {message_id: number}
    expect(
      (
        await api('sendMessage', {
          chat_id: 1111,
          text: 'x',
          reply_parameters: {message_id: m.message_id, quote: 'Monday'},
        })
      ).text,
    ).toBe(bad('Bad Request: QUOTE_TEXT_INVALID'))
    expect(
      (
        await api('sendMessage', {
          chat_id: 1111,
          text: 'x',
          reply_parameters: {message_id: m.message_id, quote: 'shop', quote_position: 'here'},
        })
      ).text,
    ).toBe(bad('Bad Request: field "quote_position" must be a valid Number'))
    expect(
      (
        await api('sendMessage', {
          chat_id: 1111,
          text: 'x',
          reply_parameters: {message_id: m.message_id, quote: '<b>shop', quote_parse_mode: 'HTML'},
        })
      ).json.description,
    ).toContain("can't parse entities")
    // none of them took a message id: the next message is the one right after the user's
    const next = (await api('sendMessage', {chat_id: 1111, text: 'next'})).json.result
    expect(next.message_id).toBe(m.message_id + 1)
  })
})
