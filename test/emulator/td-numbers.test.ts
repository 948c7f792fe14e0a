/**
 * Numbers read as the official server reads them, expectations from its source:
 * - doubles: telegram-bot-api Client.cpp `Client::get_location` (latitude, longitude, horizontal_accuracy, trimmed,
 *   then td::to_double) and tdutils/td/utils/misc.cpp `to_double` (`std::stringstream >> double`, classic locale:
 *   the longest run of sign, digits, point and exponent, converted whole or 0; an overflow is the largest double);
 * - JSON integers: Client.cpp `process_send_poll_query` (correct_option_ids: "Correct option identifier must be of
 *   type Number", then td::to_integer_safe<int32> on the number as written, "Invalid correct option identifier
 *   specified") and tdutils/td/utils/misc.h `to_integer_safe` (the integer printed back must be the text itself),
 *   with tdutils JsonBuilder.cpp keeping a number as its literal.
 */
import {describe, expect, it} from 'vitest'
import {toDouble} from '../../src/emulator/integer.js'
import {arrayNumberLiterals} from '../../src/emulator/json.js'
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
    expect(arrayNumberLiterals('[1.0, 2, -0, 1e0, {"a": 3}, "4", [5]]')).toEqual(['1.0', '2', '-0', '1e0'])
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
