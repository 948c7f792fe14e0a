/**
 * Numbers read as the official server reads them, expectations from its source:
 * - doubles: telegram-bot-api Client.cpp `Client::get_location` (latitude, longitude, horizontal_accuracy, trimmed,
 *   then td::to_double) and tdutils/td/utils/misc.cpp `to_double` (`std::stringstream >> double`, classic locale:
 *   the longest run of sign, digits, point and exponent, converted whole or 0; an overflow is the largest double);
 * - JSON integers: Client.cpp `process_send_poll_query` (correct_option_ids: "Correct option identifier must be of
 *   type Number", then td::to_integer_safe<int32> on the number as written, "Invalid correct option identifier
 *   specified") and tdutils/td/utils/misc.h `to_integer_safe` (the integer printed back must be the text itself),
 *   with tdutils JsonBuilder.cpp keeping a number as its literal;
 * - integer fields of JSON objects: tdutils/td/utils/JsonBuilder.cpp `JsonObject::get_optional_int_field` /
 *   `get_required_int_field` / `…_long_field` → `get_integer_field` (td::to_integer_safe of a string, or of a number
 *   as written: else `Field "X" must be a valid Number`), as telegram-bot-api Client.cpp `Client::get_reply_parameters`
 *   reads `message_id` and `quote_position` (and `chat_id` with get_optional_string_field: a number is its literal).
 */
import {describe, expect, it} from 'vitest'
import {toDouble} from '../../src/emulator/integer.js'
import {integerField, integerFieldText, parseJsonBounded} from '../../src/emulator/json.js'
import {setup} from './helpers.js'

describe('td::to_double (tdutils misc.cpp) for latitude, longitude, horizontal_accuracy (Client.cpp get_location)', () => {
  it('reads what stringstream >> double reads', () => {
    const cases: Array<[string, number]> = [
      ['12.5', 12.5],
      ['12abc', 12],
      ['1,5', 1],
      ['.5', 0.5],
      ['+5', 5],
      ['-.25', -0.25],
      ['1.', 1],
      ['1.5.3', 1.5],
      ['1e2', 100],
      ['1E-1', 0.1],
      ['1e', 0], // the exponent has no digits: the read fails
      ['1e+', 0],
      ['.', 0],
      ['-', 0],
      ['0x10', 0],
      ['Infinity', 0],
      ['inf', 0],
      ['nan', 0],
      ['', 0],
      ['1e400', Number.MAX_VALUE], // C++11 num_get: an overflow is the largest value
      ['-1e400', -Number.MAX_VALUE],
    ]
    for (const [text, value] of cases) expect([text, toDouble(text)]).toEqual([text, value])
  })

  it('sendLocation and editMessageLiveLocation answer what the server makes of the text', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const sent = await api('sendLocation', {
      chat_id: 91,
      latitude: ' 12.5abc ',
      longitude: '1e',
      horizontal_accuracy: '1e1',
      live_period: 60,
    })
    expect(sent.json.result.location).toMatchObject({latitude: 12.5, longitude: 0, horizontal_accuracy: 10})
    const infinite = await api('sendLocation', {chat_id: 91, latitude: 'Infinity', longitude: '+.5'})
    expect(infinite.json.result.location).toMatchObject({latitude: 0, longitude: 0.5})
    expect(infinite.json.result.location.horizontal_accuracy).toBeUndefined()
    // trimmed before the emptiness check: `latitude is empty`
    expect((await api('sendLocation', {chat_id: 91, latitude: '  ', longitude: '1'})).json.description).toBe(
      'Bad Request: latitude is empty',
    )
    const edited = await api('editMessageLiveLocation', {
      chat_id: 91,
      message_id: sent.json.result.message_id,
      latitude: '-.25',
      longitude: '3,5',
    })
    expect(edited.json.ok).toBe(true)
    expect(edited.json.result.location).toMatchObject({latitude: -0.25, longitude: 3})
  })
})

describe('JSON integers read as td::to_integer_safe (correct_option_ids, Client.cpp process_send_poll_query)', () => {
  it('keeps each number as written', () => {
    const list = parseJsonBounded('[1.0, 2, -0, 1e0, {"a": 3}, "4", [5]]') as object
    expect([0, 1, 2, 3, 4].map((i) => integerFieldText(list, String(i)))).toEqual(['1.0', '2', '-0', '1e0', undefined])
  })

  it('refuses a literal that is not the integer itself, accepts one that is', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const quiz = (ids: string) =>
      api('sendPoll', {chat_id: 91, question: 'q', options: ['a', 'b', 'c'], type: 'quiz', correct_option_ids: ids})
    for (const ids of ['[1.0]', '[1e0]', '[-0]', '[0, 2147483648]', '[1.5]'])
      expect([ids, (await quiz(ids)).json.description]).toEqual([
        ids,
        'Bad Request: invalid correct option identifier specified',
      ])
    expect((await quiz('["1"]')).json.description).toBe('Bad Request: correct option identifier must be of type Number')
    const ok = await quiz('[0, 2]')
    expect(ok.json.ok).toBe(true)
    expect(ok.json.result.poll.correct_option_ids).toEqual([0, 2])
  })
})

describe("a multipart part's charset is hidden from busboy (td HttpReader::parse_multipart ignores it)", () => {
  it('HideCharsets rewrites charset= in part headers only, however the body is cut into chunks', async () => {
    const {HideCharsets} = await import('../../src/emulator/http/body.js')
    const body = Buffer.from(
      'preamble\r\n--B0\r\nContent-Disposition: form-data; name="a"\r\nContent-Type: text/plain; Charset=utf-8\r\n\r\n' +
        'value charset=x --B0x\r\n--B0\r\nContent-Disposition: form-data; name="f"; filename="f"\r\n\r\nfile CHARSET=y\r\n--B0--\r\n',
      'latin1',
    )
    const want = body.toString('latin1').replace('Charset=utf-8', 'Charsex=utf-8')
    for (const size of [1, 2, 3, 5, 7, 16, body.length]) {
      const hider = new HideCharsets('B0')
      const out: Buffer[] = []
      hider.on('data', (c: Buffer) => out.push(c))
      const ended = new Promise((resolve) => hider.on('end', resolve))
      for (let i = 0; i < body.length; i += size) hider.write(body.subarray(i, i + size))
      hider.end()
      await ended
      expect([size, Buffer.concat(out).toString('latin1')]).toEqual([size, want])
    }
  })
})

describe('integer fields of JSON objects read as written (JsonBuilder.cpp JsonObject::get_*_int_field)', () => {
  it('integerField takes the string or the number as written, in its own decimal form and in range', () => {
    const o = parseJsonBounded(
      '{"a": 1.0, "b": 2, "c": -0, "d": "7", "e": 1e0, "f": " 5", "g": 2147483648, "h": "-0", "i": [3.0, 4],' +
        ' "j": {"k": 10E-1}, "l": "1.0", "m": -12, "a2": 1.5}',
    ) as Record<string, unknown> & {i: object; j: object}
    const read = (holder: object, key: string, bits: 32 | 64 = 32) => [key, integerField(holder, key, bits)]
    expect(read(o, 'a')).toEqual(['a', undefined])
    expect(read(o, 'b')).toEqual(['b', 2])
    expect(read(o, 'c')).toEqual(['c', undefined])
    expect(read(o, 'd')).toEqual(['d', 7])
    expect(read(o, 'e')).toEqual(['e', undefined])
    expect(read(o, 'f')).toEqual(['f', undefined])
    expect(read(o, 'g')).toEqual(['g', undefined])
    expect(read(o, 'g', 64)).toEqual(['g', 2147483648])
    expect(read(o, 'h')).toEqual(['h', undefined])
    expect(read(o.i, '0')).toEqual(['0', undefined])
    expect(read(o.i, '1')).toEqual(['1', 4])
    expect(read(o.j, 'k')).toEqual(['k', undefined])
    expect(read(o, 'l')).toEqual(['l', undefined])
    expect(read(o, 'm')).toEqual(['m', -12])
    expect(read(o, 'a2')).toEqual(['a2', undefined])
    expect(read(o, 'absent')).toEqual(['absent', undefined])
  })

  it('reply_parameters, entities and a command scope refuse 1.0 where JSON.parse gives 1', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const first = (await api('sendMessage', {chat_id: 91, text: 'first'})).json.result.message_id as number
    const reply = (parameters: string) => api('sendMessage', {chat_id: 91, text: 'r', reply_parameters: parameters})
    for (const written of [`${first}.0`, `${first}e0`, `"${first}.0"`, `" ${first}"`])
      expect([written, (await reply(`{"message_id": ${written}}`)).json.description]).toEqual([
        written,
        'Bad Request: field "message_id" must be a valid Number',
      ])
    expect((await reply(`{"message_id": ${first}, "quote": "f", "quote_position": 0.0}`)).json.description).toBe(
      'Bad Request: field "quote_position" must be a valid Number',
    )
    const ok = await reply(`{"message_id": "${first}", "quote": "fi", "quote_position": 0}`)
    expect(ok.json.ok).toBe(true)
    expect(ok.json.result.reply_to_message.message_id).toBe(first)

    const bold = (offset: string) =>
      api('sendMessage', {chat_id: 91, text: 'hello', entities: `[{"type": "bold", "offset": ${offset}, "length": 2}]`})
    expect((await bold('0.0')).json.description).toContain('Field "offset" must be a valid Number')
    expect((await bold('-0')).json.description).toContain('Field "offset" must be a valid Number')
    expect((await bold('0')).json.ok).toBe(true)

    const scope = (userId: string) =>
      api('setMyCommands', {
        commands: '[{"command": "a", "description": "b"}]',
        scope: `{"type": "chat_member", "chat_id": 91, "user_id": ${userId}}`,
      })
    expect((await scope('91.0')).json.description).toContain('Field "user_id" must be a valid Number')
    // 91 is read: the scope then fails on the chat (a private chat has no chat_member scope)
    expect((await scope('91')).json.description).toBe("Bad Request: can't use specified scope in private chats")

    // a long field (an invoice's price amount): to_integer_safe of the literal, refused with the literal named
    const invoice = (amount: string) =>
      api('sendInvoice', {
        chat_id: 91,
        title: 't',
        description: 'd',
        payload: 'p',
        currency: 'XTR',
        prices: `[{"label": "a", "amount": ${amount}}]`,
      })
    expect((await invoice('50.0')).json.description).toContain('"50.0"')
    expect((await invoice('50')).json.ok).toBe(true)
  })
})
