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
    expect((await invoice('50.0')).json.description).toBe(
      'Bad Request: can\'t parse labeled price: Field "amount" must be a valid Number',
    )
    expect((await invoice('50')).json.ok).toBe(true)
  })
})

/**
 * Long fields: tdutils/td/utils/JsonBuilder.cpp `JsonObject::get_required_long_field` → `get_integer_field`, whose
 * own text replaces to_integer_safe's (`Field "X" must be a valid Number` for a String or a Number that is not an
 * int64's decimal form; `Field "X" must be a Number` for any other type; `Can't find field "X"`), as telegram-bot-api
 * Client.cpp `Client::get_labeled_price_part` reads `amount` (wrapped by `get_labeled_price_parts`: "Can't parse
 * labeled price: "), `Client::get_suggested_post_price` (`amount`) and `Client::get_input_suggested_post_info`
 * (`send_date`, get_optional_int_field); `Client::get_suggested_tip_amounts` (to_integer_safe<int64> of the number
 * as written: "Can't parse suggested tip amount as Number"); `Client::get_input_message_invoice` (max_tip_amount:
 * "Can't parse \"max_tip_amount\" as Number").
 */
describe("long and int fields answer get_integer_field's texts (JsonBuilder.cpp)", () => {
  it('a price amount: 50.0, 5e1, "abc", " 50" are not valid Numbers, true is not a Number', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const invoice = (price: string, tips?: string) =>
      api('sendInvoice', {
        chat_id: 91,
        title: 't',
        description: 'd',
        payload: 'p',
        currency: 'USD',
        provider_token: '1234567890:TEST:emulator',
        prices: `[${price}]`,
        ...(tips ? {max_tip_amount: 1000, suggested_tip_amounts: tips} : {}),
      })
    for (const amount of ['50.0', '5e1', '"abc"', '" 50"', '""', '9223372036854775808', '-0'])
      expect([amount, (await invoice(`{"label": "a", "amount": ${amount}}`)).json.description]).toEqual([
        amount,
        'Bad Request: can\'t parse labeled price: Field "amount" must be a valid Number',
      ])
    for (const amount of ['true', 'null', '{}', '[50]'])
      expect([amount, (await invoice(`{"label": "a", "amount": ${amount}}`)).json.description]).toEqual([
        amount,
        'Bad Request: can\'t parse labeled price: Field "amount" must be a Number',
      ])
    expect((await invoice('{"label": "a"}')).json.description).toBe(
      'Bad Request: can\'t parse labeled price: Can\'t find field "amount"',
    )
    // read (the largest int64), then refused by what comes after the reading
    expect((await invoice('{"label": "a", "amount": "9223372036854775807"}')).json.description).toBe(
      'Bad Request: too big amount of the currency specified',
    )
    expect((await invoice('{"label": "a", "amount": 100}', '[100.0]')).json.description).toBe(
      "Bad Request: can't parse suggested tip amount as Number",
    )
    expect((await invoice('{"label": "a", "amount": 100}', '[100, "200"]')).json.ok).toBe(true)
    // max_tip_amount, a parameter: td::to_integer_safe<int64> (misc.h: the integer printed back must be the text)
    const tip = (max: string) =>
      api('sendInvoice', {
        chat_id: 91,
        title: 't',
        description: 'd',
        payload: 'p',
        currency: 'USD',
        provider_token: '1234567890:TEST:emulator',
        prices: '[{"label": "a", "amount": 100}]',
        max_tip_amount: max,
      })
    for (const max of ['010', '-0', '1.0', ' 10'])
      expect([max, (await tip(max)).json.description]).toEqual([
        max,
        'Bad Request: can\'t parse "max_tip_amount" as Number',
      ])
    expect((await tip('10')).json.ok).toBe(true)
  })

  it('suggested_post_parameters: send_date 1.0 and price.amount 50.0 are not valid Numbers', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const suggest = (parameters: string) =>
      api('sendMessage', {chat_id: 91, text: 'x', suggested_post_parameters: parameters})
    expect((await suggest('{"send_date": 1.0}')).json.description).toBe(
      'Bad Request: field "send_date" must be a valid Number',
    )
    expect((await suggest('{"send_date": 2147483648}')).json.description).toBe(
      'Bad Request: field "send_date" must be a valid Number',
    )
    expect((await suggest('{"send_date": false}')).json.description).toBe(
      'Bad Request: field "send_date" must be a Number',
    )
    expect((await suggest('{"price": {"currency": "XTR", "amount": 50.0}}')).json.description).toBe(
      'Bad Request: field "amount" must be a valid Number',
    )
    expect((await suggest('{"price": {"currency": "XTR", "amount": "5O"}}')).json.description).toBe(
      'Bad Request: field "amount" must be a valid Number',
    )
  })
})

/**
 * Reply keyboard buttons as telegram-bot-api Client.cpp `Client::get_keyboard_button` and
 * `Client::get_keyboard_button_type` read them (wrapped by `Client::get_reply_markup`: "Can't parse keyboard button:
 * "): `icon_custom_emoji_id` (get_optional_long_field), `style` (`Client::get_button_style`: "invalid button style
 * specified"), `request_users` / `request_user` (`request_id` get_required_int_field, `max_quantity`
 * get_optional_int_field, the rest get_optional_bool_field), `request_chat` (`request_id`, its booleans,
 * `user_administrator_rights` / `bot_administrator_rights` through `Client::get_chat_administrator_rights`:
 * "ChatAdministratorRights must be an Object", each right a Boolean), `request_managed_bot` (`request_id`); inline
 * buttons the same head (`Client::get_inline_keyboard_button`) and `switch_inline_query_chosen_chat`'s booleans
 * (`Client::get_inline_keyboard_button_type`).
 */
describe('keyboard buttons read as Client.cpp get_keyboard_button reads them', () => {
  it("refuses 1.0 and other wrong fields with the server's texts, accepts what it accepts", async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const send = (button: string, inline = false) =>
      api('sendMessage', {
        chat_id: 91,
        text: 'k',
        reply_markup: inline ? `{"inline_keyboard": [[${button}]]}` : `{"keyboard": [[${button}]]}`,
      })
    const refused = async (button: string, text: string, inline = false) =>
      expect([button, (await send(button, inline)).json.description]).toEqual([
        button,
        `Bad Request: can't parse ${inline ? 'inline keyboard' : 'keyboard'} button: ${text}`,
      ])
    const users = (fields: string) => `{"text": "u", "request_users": {${fields}}}`
    await refused(users('"request_id": 1.0'), 'Field "request_id" must be a valid Number')
    await refused(users('"request_id": 1e0'), 'Field "request_id" must be a valid Number')
    await refused(users('"request_id": 2147483648'), 'Field "request_id" must be a valid Number')
    await refused(users('"request_id": true'), 'Field "request_id" must be a Number')
    await refused(users('"max_quantity": 2'), 'Can\'t find field "request_id"')
    await refused(users('"request_id": 1, "max_quantity": 2.0'), 'Field "max_quantity" must be a valid Number')
    await refused(users('"request_id": 1, "user_is_bot": "true"'), 'Field "user_is_bot" must be of type Boolean')
    await refused(users('"request_id": 1, "request_photo": 1'), 'Field "request_photo" must be of type Boolean')
    await refused('{"text": "u", "request_user": {"request_id": "1.0"}}', 'Field "request_id" must be a valid Number')
    await refused('{"text": "u", "request_users": 1}', 'Field "request_users" must be of type Object')
    const chat = (fields: string) => `{"text": "c", "request_chat": {${fields}}}`
    await refused(chat('"request_id": 7.0, "chat_is_channel": false'), 'Field "request_id" must be a valid Number')
    await refused(chat('"request_id": 7, "chat_is_channel": 0'), 'Field "chat_is_channel" must be of type Boolean')
    await refused(chat('"request_id": 7, "user_administrator_rights": []'), 'ChatAdministratorRights must be an Object')
    await refused(
      chat('"request_id": 7, "bot_administrator_rights": {"can_invite_users": "yes"}'),
      'Field "can_invite_users" must be of type Boolean',
    )
    await refused(
      '{"text": "b", "request_managed_bot": {"request_id": -1.5}}',
      'Field "request_id" must be a valid Number',
    )
    await refused('{"text": "i", "icon_custom_emoji_id": 5.0}', 'Field "icon_custom_emoji_id" must be a valid Number')
    await refused('{"text": "s", "style": "loud"}', 'invalid button style specified')
    await refused('{"text": "p", "request_contact": "yes"}', 'Field "request_contact" must be of type Boolean')
    await refused('{"text": "q", "request_poll": {"type": false}}', 'Field "type" must be of type String')
    await refused(
      '{"text": "i", "callback_data": "d", "icon_custom_emoji_id": "x"}',
      'Field "icon_custom_emoji_id" must be a valid Number',
      true,
    )
    await refused('{"text": "s", "callback_data": "d", "style": 1}', 'invalid button style specified', true)
    await refused(
      '{"text": "w", "switch_inline_query_chosen_chat": {"allow_user_chats": 1}}',
      'Field "allow_user_chats" must be of type Boolean',
      true,
    )

    for (const button of [
      users('"request_id": 1, "max_quantity": 2, "user_is_bot": false, "request_name": true'),
      users('"request_id": "-5"'),
      chat(
        '"request_id": 7, "chat_is_channel": true, "user_administrator_rights": {"can_invite_users": true},' +
          ' "bot_administrator_rights": {}, "bot_is_member": true',
      ),
      '{"text": "b", "request_managed_bot": {"request_id": 3, "suggested_name": "Bot"}}',
      '{"text": "i", "icon_custom_emoji_id": "5368324170671202286", "style": "Danger"}',
      '{"text": "p", "request_contact": true}',
    ])
      expect([button, (await send(button)).json.ok]).toEqual([button, true])
    expect(
      (await send('{"text": "s", "callback_data": "d", "style": "PRIMARY", "icon_custom_emoji_id": 1}', true)).json.ok,
    ).toBe(true)
  })
})

/**
 * Inline query results as telegram-bot-api Client.cpp `Client::get_inline_query_result` reads them (wrapped by
 * `Client::get_inline_query_results`: "Can't parse inline query result: "): the thumbnail's width and height
 * (`thumbnail_*`, or `thumb_*` when none of the three thumbnail fields is there), each type's own integers
 * (`audio_duration`, `gif_width`…, `photo_width`, `video_start_timestamp`, `voice_duration`, a location's
 * `live_period`) with get_optional_int_field; `Client::get_location` reads latitude and longitude with
 * get_required_double_field (a Number, not a String: `Field "latitude" must be of type Number`);
 * `Client::get_input_message_content` reads a location content's `live_period`, `heading`, `proximity_alert_radius`
 * and an invoice content's `max_tip_amount` (long) and `photo_size` / `photo_width` / `photo_height`; the markup
 * through `Client::get_reply_markup`.
 */
describe('inline query results read as Client.cpp get_inline_query_result reads them', () => {
  it('refuses an integer field written 1.0, a coordinate given as a String; accepts the same result written right', async () => {
    const {emu, api, token} = await setup({supportsInlineQueries: true})
    const answer = (result: string, id = 'none') =>
      api('answerInlineQuery', {inline_query_id: id, results: `[${result}]`})
    const refused = async (result: string, text: string) =>
      expect([result, (await answer(result)).json.description]).toEqual([
        result,
        `Bad Request: can't parse inline query result: ${text}`,
      ])
    const photo = '"type": "photo", "id": "1", "photo_url": "https://example.com/a.jpg"'
    await refused(`{${photo}, "photo_width": 100.0}`, 'Field "photo_width" must be a valid Number')
    await refused(
      `{${photo}, "thumbnail_url": "u", "thumbnail_width": 1e2}`,
      'Field "thumbnail_width" must be a valid Number',
    )
    await refused(`{${photo}, "thumb_height": "10.0"}`, 'Field "thumb_height" must be a valid Number')
    await refused(`{${photo}, "photo_height": false}`, 'Field "photo_height" must be a Number')
    await refused(
      '{"type": "audio", "id": "1", "audio_url": "https://example.com/a.mp3", "title": "t", "audio_duration": 3.0}',
      'Field "audio_duration" must be a valid Number',
    )
    await refused(
      '{"type": "gif", "id": "1", "gif_url": "https://example.com/a.gif", "gif_width": -0}',
      'Field "gif_width" must be a valid Number',
    )
    await refused(
      '{"type": "mpeg4_gif", "id": "1", "mpeg4_file_id": "f", "mpeg4_duration": 1.5}',
      'Field "mpeg4_duration" must be a valid Number',
    )
    await refused(
      '{"type": "video", "id": "1", "title": "t", "video_file_id": "f", "video_start_timestamp": 2.0}',
      'Field "video_start_timestamp" must be a valid Number',
    )
    await refused(
      '{"type": "voice", "id": "1", "title": "t", "voice_file_id": "f", "voice_duration": 1E1}',
      'Field "voice_duration" must be a valid Number',
    )
    const place = '"id": "1", "latitude": 1.5, "longitude": 2, "title": "t"'
    await refused(`{"type": "location", ${place}, "live_period": 60.0}`, 'Field "live_period" must be a valid Number')
    await refused(
      '{"type": "location", "id": "1", "latitude": "1.5", "longitude": 2, "title": "t"}',
      'Field "latitude" must be of type Number',
    )
    const content = (fields: string) =>
      `{"type": "article", "id": "1", "title": "t", "input_message_content": {${fields}}}`
    await refused(content('"latitude": 1, "longitude": 2, "heading": 90.0'), 'Field "heading" must be a valid Number')
    await refused(
      content('"latitude": 1, "longitude": 2, "proximity_alert_radius": "1e3"'),
      'Field "proximity_alert_radius" must be a valid Number',
    )
    const invoice =
      '"title": "t", "description": "d", "payload": "p", "currency": "USD", "prices": [{"label": "a", "amount": 5}]'
    await refused(content(`${invoice}, "max_tip_amount": 10.0`), 'Field "max_tip_amount" must be a valid Number')
    await refused(content(`${invoice}, "photo_size": 1.0`), 'Field "photo_size" must be a valid Number')
    await refused(
      content(
        '"title": "t", "description": "d", "payload": "p", "currency": "USD", "prices": [{"label": "a", "amount": 5.0}]',
      ),
      'Can\'t parse labeled price: Field "amount" must be a valid Number',
    )
    await refused(
      `{${photo}, "reply_markup": {"inline_keyboard": [[{"text": "x", "callback_data": "d", "style": "x"}]]}}`,
      "Can't parse inline keyboard button: invalid button style specified",
    )

    const query = emu.sendInlineQuery(token, {query: 'x', userId: 5}).inline_query as {id: string}
    const right = [
      `{${photo}, "photo_width": 100, "photo_height": "50", "thumbnail_url": "u", "thumbnail_width": 10}`,
      `{"type": "location", "id": "2", "latitude": 1.5, "longitude": 2, "title": "t", "live_period": 60}`,
      `{"type": "article", "id": "3", "title": "t", "input_message_content": {${invoice}, "max_tip_amount": "10", "photo_size": 1}}`,
    ].join(', ')
    const ok = await api('answerInlineQuery', {inline_query_id: query.id, results: `[${right}]`})
    expect(ok.json).toEqual({ok: true, result: true})
  })
})

/**
 * The other readers of a JSON object's integers on the same helper (json.ts tdIntegerFieldText): telegram-bot-api
 * Client.cpp `Client::get_input_media` (width, height, duration with get_optional_int_field, wrapped "Can't parse
 * InputMedia: "; a null field is there and is not a Number: tdutils JsonBuilder.cpp `JsonObject::get_field`),
 * `Client::get_text_entity_type` (custom_emoji_id with get_required_long_field, wrapped "Can't parse MessageEntity: "),
 * `Client::get_input_paid_media` (width, height, a video's duration and start_timestamp, wrapped by
 * `Client::get_paid_media`: "Can't parse InputPaidMedia: ");
 * and the Bot API 10.3 EphemeralMessageParameters.receiver_user_id and ReplyParameters.ephemeral_message_id, which
 * the pinned server predates, read by the same rule.
 */
describe('InputMedia, entities and ephemeral parameters read integers by the same rule', () => {
  it('refuses null, "" and 1.0 with the server texts', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 91, userId: 91})
    const media = async (width: string) =>
      (
        await api('editMessageMedia', {
          chat_id: 91,
          message_id: 1,
          media: `{"type": "video", "media": "https://example.com/v.mp4", "width": ${width}}`,
        })
      ).json.description
    expect(await media('null')).toBe('Bad Request: can\'t parse InputMedia: Field "width" must be a Number')
    expect(await media('""')).toBe('Bad Request: can\'t parse InputMedia: Field "width" must be a valid Number')
    expect(await media('1.0')).toBe('Bad Request: can\'t parse InputMedia: Field "width" must be a valid Number')
    // read, then refused for what it is: the user's own message
    expect(await media('5')).toBe("Bad Request: message can't be edited")
    const emoji = await api('sendMessage', {
      chat_id: 91,
      text: 'hello',
      entities: '[{"type": "custom_emoji", "offset": 0, "length": 1, "custom_emoji_id": 5.0}]',
    })
    expect(emoji.json.description).toBe(
      'Bad Request: can\'t parse MessageEntity: Field "custom_emoji_id" must be a valid Number',
    )
    const ephemeral = (parameters: Record<string, string>) =>
      api('sendMessage', {chat_id: 91, text: 'x', ...parameters})
    expect((await ephemeral({ephemeral_message_parameters: '{"receiver_user_id": 91.0}'})).json.description).toBe(
      'Bad Request: field "receiver_user_id" must be a valid Number',
    )
    expect((await ephemeral({ephemeral_message_parameters: '{"receiver_user_id": "91"}'})).json.ok).toBe(true)
    const paid = async (item: string) =>
      (await api('sendPaidMedia', {chat_id: 91, star_count: 5, media: `[${item}]`})).json
    expect((await paid('{"type": "video", "media": "https://example.com/v.mp4", "width": 640.0}')).description).toBe(
      'Bad Request: can\'t parse InputPaidMedia: Field "width" must be a valid Number',
    )
    expect((await paid('{"type": "video", "media": "https://example.com/v.mp4", "duration": "1e1"}')).description).toBe(
      'Bad Request: can\'t parse InputPaidMedia: Field "duration" must be a valid Number',
    )
    const video = await paid('{"type": "video", "media": "https://example.com/v.mp4", "width": 320, "duration": "7"}')
    expect(video.result.paid_media.paid_media[0].video).toMatchObject({width: 320, height: 360, duration: 7})
    expect((await ephemeral({reply_parameters: '{"ephemeral_message_id": 1.0}'})).json.description).toBe(
      'Bad Request: field "ephemeral_message_id" must be a valid Number',
    )
  })
})
