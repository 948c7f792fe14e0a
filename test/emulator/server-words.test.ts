/**
 * The official server's exact words for bad input, class by class. Each expectation cites the source it comes from:
 * tdlib/telegram-bot-api (BA) `telegram-bot-api/Client.cpp`, and td (TD) `tdnet/td/net/HttpReader.cpp`,
 * `tdutils/td/utils/misc.h`, `tdutils/td/utils/utf8.cpp`, `td/telegram/*.cpp`.
 */
import {describe, expect, it} from 'vitest'
import {toInteger} from '../../src/emulator/integer.js'
import {readJsonArgs} from '../../src/emulator/http/td-args.js'
import {setup} from './helpers.js'

/** POST a raw body (bytes as given) with a content type. */
async function post(base: string, method: string, type: string, body: string | Uint8Array) {
  const res = await fetch(`${base}/${method}`, {
    method: 'POST',
    headers: {'content-type': type},
    body: typeof body === 'string' ? body : new Uint8Array(body),
  })
  return {status: res.status, json: (await res.json()) as any}
}

describe('integers are read as td::to_integer reads them (TD tdutils/td/utils/misc.h to_integer)', () => {
  it('takes leading digits, stops at the first other character; +, space and 0x read as 0', () => {
    expect(toInteger('12abc')).toBe(12)
    expect(toInteger('-42')).toBe(-42)
    expect(toInteger('+5')).toBe(0)
    expect(toInteger(' 5')).toBe(0)
    expect(toInteger('0x10')).toBe(0)
    expect(toInteger('1.9')).toBe(1)
    expect(toInteger('')).toBe(0)
    // unsigned arithmetic wraps to the type's width (two's complement)
    expect(toInteger('4294967297', 32)).toBe(1)
    expect(toInteger('2147483648', 32)).toBe(-2147483648)
    expect(toInteger('18446744073709551615', 64)).toBe(-1)
  })

  it('chat_id (BA Client::check_chat), message_id (BA get_message_id) and user_id (BA get_user_id) over HTTP', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 77, userId: 77})
    // "77abc" is chat 77: the message is sent there
    const sent = await api('sendMessage', {chat_id: '77abc', text: 'a'})
    expect(sent.json.ok).toBe(true)
    expect(sent.json.result.chat.id).toBe(77)
    // a leading space, a plus sign, 0x: chat 0, which does not exist; only an empty chat_id is "empty"
    for (const chat_id of [' 77', '+77', '0x4d'])
      expect((await api('sendMessage', {chat_id, text: 'a'})).json.description).toBe('Bad Request: chat not found')
    expect((await api('sendMessage', {chat_id: '', text: 'a'})).json.description).toBe('Bad Request: chat_id is empty')
    // a JSON number's raw text, `77.9`, reads as 77 (td keeps the raw text of a non-string value)
    const raw = await post(
      `${emu.apiRoot}/bot${token}`,
      'sendMessage',
      'application/json',
      '{"chat_id": 77.9, "text": "b", "reply_parameters": {"message_id": 1}}',
    )
    expect(raw.json.ok).toBe(true)
    expect(raw.json.result.chat.id).toBe(77)
    // user_id "+77" is 0: `invalid user_id specified`
    expect((await api('getChatMember', {chat_id: 77, user_id: '+77'})).json.description).toBe(
      'Bad Request: invalid user_id specified',
    )
    expect((await api('getChatMember', {chat_id: 77, user_id: '77z'})).json.ok).toBe(true)
  })
})

describe('a JSON body is read up to its first error, keeping what came before (TD HttpReader::parse_json_parameters)', () => {
  it('parses parameter by parameter, raw text for non-strings, and reports the error it stopped at', () => {
    const seen: Array<[string, string]> = []
    const error = readJsonArgs(Buffer.from('{"chat_id": 1e3, "a":{ "b" : [1,2] }, "text": "x\\u00e9", "cut'), (k, v) =>
      seen.push([k, v]),
    )
    expect(seen).toEqual([
      ['chat_id', '1e3'],
      ['a', '{ "b" : [1,2] }'],
      ['text', 'xé'],
    ])
    expect(error).toBe(`Bad Request: can't parse parameter name: Closing '"' not found`)
    expect(readJsonArgs(Buffer.from('{"a":1} x'), () => {})).toBe('Bad Request: unexpected data after object end')
    expect(readJsonArgs(Buffer.from('[1]'), () => {})).toBe('Bad Request: JSON object expected')
    expect(readJsonArgs(Buffer.from('{"a":1 "b":2}'), () => {})).toBe('Bad Request: expected next field or object end')
  })

  it('runs the method with the parameters read before a cut or trailing bytes', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 78, userId: 78})
    const base = `${emu.apiRoot}/bot${token}`
    const cut = await post(base, 'sendMessage', 'application/json', '{"chat_id": 78, "text": "kept", "parse_mo')
    expect(cut.json.ok).toBe(true)
    expect(cut.json.result.text).toBe('kept')
    const trailing = await post(base, 'sendMessage', 'application/json', '{"chat_id": 78, "text": "after"} trailing')
    expect(trailing.json.ok).toBe(true)
    expect(trailing.json.result.text).toBe('after')
    // cut before the text: the method runs without it and answers what a missing text gets
    const early = await post(base, 'sendMessage', 'application/json', '{"chat_id": 78, "te')
    expect(early.json.description).toBe('Bad Request: message text is empty')
  })
})

describe('strings must be UTF-8 (TD tdutils/td/utils/utf8.cpp check_utf8; td/telegram/MessageEntity.cpp fix_formatted_text)', () => {
  it('answers td texts for bytes that are not UTF-8, in a form, a query string and a JSON body; never U+FFFD', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 79, userId: 79})
    const base = `${emu.apiRoot}/bot${token}`
    const form = await post(base, 'sendMessage', 'application/x-www-form-urlencoded', 'chat_id=79&text=a%FFb')
    expect(form.json.description).toBe('Bad Request: strings must be encoded in UTF-8')
    const query = await fetch(`${base}/sendMessage?chat_id=79&text=%C3%28`)
    expect(((await query.json()) as any).description).toBe('Bad Request: strings must be encoded in UTF-8')
    // with a parse_mode: td parseTextEntities (td/telegram/SynchronousRequests.cpp) says "Text must be …"
    const html = await post(
      base,
      'sendMessage',
      'application/x-www-form-urlencoded',
      'chat_id=79&parse_mode=HTML&text=%ED%A0%80',
    )
    expect(html.json.description).toBe('Bad Request: text must be encoded in UTF-8')
    // raw bytes in a JSON body, and a lone surrogate escape (td json_string_decode writes its 3 bytes: ED A0 80)
    const rawBytes = Buffer.concat([Buffer.from('{"chat_id":79,"text":"a'), Buffer.from([0xff]), Buffer.from('"}')])
    expect((await post(base, 'sendMessage', 'application/json', rawBytes)).json.description).toBe(
      'Bad Request: strings must be encoded in UTF-8',
    )
    expect(
      (await post(base, 'sendMessage', 'application/json', '{"chat_id":79,"text":"\\ud800"}')).json.description,
    ).toBe('Bad Request: strings must be encoded in UTF-8')
    // a surrogate pair is one character, and valid
    const pair = await post(base, 'sendMessage', 'application/json', '{"chat_id":79,"text":"\\ud83d\\ude00"}')
    expect(pair.json.result.text).toBe('😀')
    // a keyboard button's text: td ReplyMarkup.cpp get_inline_keyboard_button
    const markup = Buffer.concat([
      Buffer.from('chat_id=79&text=x&reply_markup={"inline_keyboard":[[{"text":"'),
      Buffer.from('%FE'),
      Buffer.from('","callback_data":"d"}]]}'),
    ])
    expect((await post(base, 'sendMessage', 'application/x-www-form-urlencoded', markup)).json.description).toBe(
      'Bad Request: inline keyboard button text must be encoded in UTF-8',
    )
  })
})

describe('strings in multipart form fields must be UTF-8, whatever charset a part names (TD tdnet/td/net/HttpReader.cpp parse_multipart; utf8.cpp check_utf8)', () => {
  /** A multipart body of text fields, each with its raw bytes and an optional Content-Type. */
  const multipart = (fields: Array<[string, Buffer, string?]>): {type: string; body: Buffer} => {
    const boundary = 'xYzBoundary'
    const parts = fields.map(([name, value, type]) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
        ),
        value,
        Buffer.from('\r\n'),
      ]),
    )
    return {
      type: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    }
  }

  it('answers td texts for a field that is not UTF-8, and keeps valid text as sent, with or without a charset', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 93, userId: 93})
    const base = `${emu.apiRoot}/bot${token}`
    const send = async (fields: Array<[string, Buffer, string?]>) => {
      const {type, body} = multipart(fields)
      return (await post(base, 'sendMessage', type, body)).json
    }
    const bad = await send([
      ['chat_id', Buffer.from('93')],
      ['text', Buffer.from([0x61, 0xff, 0x62])],
    ])
    expect(bad.description).toBe('Bad Request: strings must be encoded in UTF-8')
    const html = await send([
      ['chat_id', Buffer.from('93')],
      ['parse_mode', Buffer.from('HTML')],
      ['text', Buffer.from([0xc3, 0x28])],
    ])
    expect(html.description).toBe('Bad Request: text must be encoded in UTF-8')
    // valid UTF-8 bytes without a charset (curl -F), and with one (aiohttp names utf-8 on each text field)
    const plain = await send([
      ['chat_id', Buffer.from('93')],
      ['text', Buffer.from('café ✓')],
    ])
    expect(plain.result.text).toBe('café ✓')
    const named = await send([
      ['chat_id', Buffer.from('93'), 'text/plain; charset=utf-8'],
      ['text', Buffer.from('naïve £5'), 'text/plain; charset=utf-8'],
    ])
    expect(named.result.text).toBe('naïve £5')
    // a charset a part names changes nothing (parse_multipart reads a part's Content-Type only for
    // application/x-www-form-urlencoded): bytes that are not UTF-8 get td's text whatever charset is named
    for (const type of ['text/plain; charset=utf-8', 'text/plain; CHARSET="ISO-8859-1"', 'text/plain;charset=latin1'])
      expect([
        type,
        (
          await send([
            ['chat_id', Buffer.from('93'), type],
            ['text', Buffer.from([0x63, 0x61, 0x66, 0xe9]), type],
          ])
        ).description,
      ]).toEqual([type, 'Bad Request: strings must be encoded in UTF-8'])
    // a value that says `charset=` is a value: kept as sent
    const said = await send([
      ['chat_id', Buffer.from('93'), 'text/plain; charset=utf-8'],
      ['text', Buffer.from('Content-Type: text/plain; charset=utf-8\r\n\r\nok'), 'text/plain; charset=utf-8'],
    ])
    expect(said.result.text).toBe('Content-Type: text/plain; charset=utf-8\n\nok')
    // BA Client.cpp get_input_message_invoice: the payload's own text, before the title reaches td
    const invoice = await post(
      base,
      'sendInvoice',
      'application/x-www-form-urlencoded',
      'chat_id=93&title=%FF&description=d&payload=p%FE&currency=XTR&prices=[{"label":"a","amount":1}]',
    )
    expect(invoice.json.description).toBe('Bad Request: the payload must be encoded in UTF-8')
  })
})

describe('a malformed token under local rules (BA telegram-bot-api/ClientManager.cpp ClientManager::send)', () => {
  it('answers the local server checks; cloud rules keep api.telegram.org 404', async () => {
    const {emu} = await setup()
    const get = async (root: string, token: string) => {
      const res = await fetch(`${root}/bot${token}/getMe`)
      return [res.status, ((await res.json()) as any).description]
    }
    const invalid = [401, 'Unauthorized: invalid token specified']
    expect(await get(emu.apiRoot, '')).toEqual(invalid) // no ':'
    expect(await get(emu.apiRoot, 'no-colon')).toEqual(invalid)
    expect(await get(emu.apiRoot, '0123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual(invalid) // starts with 0
    expect(await get(emu.apiRoot, `123:${'A'.repeat(80)}`)).toEqual(invalid) // longer than 80
    expect(await get(emu.apiRoot, '18014398509481984:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual(invalid) // ≥ 2^54
    expect(await get(emu.apiRoot, '-5:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual(invalid) // ≤ 0
    // not an int64 as td::to_integer_safe reads it
    const misdirected = [421, 'Misdirected Request: unallowed token specified']
    expect(await get(emu.apiRoot, 'bot123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual(misdirected)
    expect(await get(emu.apiRoot, '+123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual(misdirected)
    // past the checks, a token Telegram does not know: the login fails
    expect(await get(emu.apiRoot, '123:short')).toEqual([401, 'Unauthorized'])
    const cloud = await setup({local: false})
    expect(await get(cloud.emu.apiRoot, '0123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toEqual([404, 'Not Found'])
  })
})

describe('td texts for empty poll texts, Web App URLs, provider tokens; the kicked bot', () => {
  it('an empty poll question or option: text must be non-empty (TD MessageContent.cpp, PollOption.cpp get_formatted_text)', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 81, userId: 81})
    expect((await api('sendPoll', {chat_id: 81, question: ' ', options: ['a', 'b']})).json.description).toBe(
      'Bad Request: text must be non-empty',
    )
    expect((await api('sendPoll', {chat_id: 81, question: 'Q', options: ['a', '  ']})).json.description).toBe(
      'Bad Request: text must be non-empty',
    )
  })

  it('a web_app URL that is not https, named by its place (TD ReplyMarkup.cpp, BotMenuButton.cpp; LinkManager::check_link)', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 82, userId: 82})
    const inline = {inline_keyboard: [[{text: 'Open', web_app: {url: 'http://example.com/app'}}]]}
    expect((await api('sendMessage', {chat_id: 82, text: 'x', reply_markup: inline})).json.description).toBe(
      "Bad Request: inline keyboard button Web App URL 'http://example.com/app' is invalid: Only HTTPS links are allowed",
    )
    const reply = {keyboard: [[{text: 'Open', web_app: {url: 'http://localhost:3000'}}]]}
    expect((await api('sendMessage', {chat_id: 82, text: 'x', reply_markup: reply})).json.description).toBe(
      "Bad Request: keyboard button Web App URL 'http://localhost:3000' is invalid: Only HTTPS links are allowed",
    )
    const menu = {type: 'web_app', text: 'App', web_app: {url: 'http://example.com'}}
    expect((await api('setChatMenuButton', {menu_button: menu})).json.description).toBe(
      "Bad Request: menu button Web App URL 'http://example.com' is invalid: Only HTTPS links are allowed",
    )
    // https is accepted everywhere
    const ok = {inline_keyboard: [[{text: 'Open', web_app: {url: 'https://example.com/app'}}]]}
    expect((await api('sendMessage', {chat_id: 82, text: 'x', reply_markup: ok})).json.ok).toBe(true)
    expect(
      (await api('setChatMenuButton', {menu_button: {...menu, web_app: {url: 'https://example.com'}}})).json.ok,
    ).toBe(true)
  })

  it('a placeholder provider token: PAYMENT_PROVIDER_INVALID; a test provider token and Stars without one pass', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 83, userId: 83})
    const invoice = {
      chat_id: 83,
      title: 'T',
      description: 'D',
      payload: 'p',
      currency: 'USD',
      prices: [{label: 'x', amount: 100}],
    }
    for (const provider_token of ['PAYMENT_PROVIDER_TOKEN', '', '123456'])
      expect((await api('sendInvoice', {...invoice, provider_token})).json.description).toBe(
        'Bad Request: PAYMENT_PROVIDER_INVALID',
      )
    expect((await api('sendInvoice', {...invoice, provider_token: '1234567890:TEST:emulator'})).json.ok).toBe(true)
    expect((await api('sendInvoice', {...invoice, provider_token: '284685063:LIVE:abc'})).json.ok).toBe(true)
    expect((await api('sendInvoice', {...invoice, currency: 'XTR', prices: [{label: 'x', amount: 1}]})).json.ok).toBe(
      true,
    )
  })

  it('a bot removed from a chat still sending there (BA Client::check_chat_access)', async () => {
    const {emu, api, token} = await setup()
    const cases = [
      [-1001, 'supergroup', 'kicked', 'Forbidden: bot was kicked from the supergroup chat'],
      [-1002, 'channel', 'kicked', 'Forbidden: bot was kicked from the channel chat'],
      [-1003, 'group', 'kicked', 'Forbidden: bot was kicked from the group chat'],
      [-1004, 'supergroup', 'left', 'Forbidden: bot is not a member of the supergroup chat'],
      [-1005, 'group', 'left', 'Forbidden: bot is not a member of the group chat'],
    ] as const
    for (const [chatId, chatType, status, description] of cases) {
      emu.setBotStatus(token, {chatId, chatType, status: 'member'})
      expect((await api('sendMessage', {chat_id: chatId, text: 'in'})).json.ok).toBe(true)
      emu.setBotStatus(token, {chatId, chatType, status})
      const answer = await api('sendMessage', {chat_id: chatId, text: 'still here?'})
      expect([answer.status, answer.json.description]).toEqual([403, description])
    }
  })
})

describe('chat settings in a private chat answer td texts, not "chat not found"', () => {
  it('title, description, permissions (TD DialogManager.cpp), sticker set (BA Client.cpp), leave and ban (TD DialogParticipantManager.cpp)', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 84, userId: 84})
    const answer = async (method: string, params: Record<string, unknown>) =>
      (await api(method, {chat_id: 84, ...params})).json.description
    expect(await answer('setChatTitle', {title: 'T'})).toBe("Bad Request: can't change private chat title")
    expect(await answer('setChatTitle', {title: ' '})).toBe('Bad Request: title must be non-empty')
    expect(await answer('setChatDescription', {description: 'D'})).toBe(
      "Bad Request: can't change private chat description",
    )
    expect(await answer('setChatPermissions', {permissions: {can_send_messages: true}})).toBe(
      "Bad Request: can't change private chat permissions",
    )
    expect(await answer('setChatStickerSet', {sticker_set_name: 's'})).toBe(
      'Bad Request: method is available only for supergroups',
    )
    // leaveChat: td Requests.cpp on_request(leaveChat) sets the bot's status
    expect(await answer('leaveChat', {})).toBe("Bad Request: chat member status can't be changed in private chats")
    expect(await answer('banChatMember', {user_id: 84})).toBe("Bad Request: can't ban members in private chats")
  })
})

describe('required parameters and optional JSON parameters as the server checks them (BA Client.cpp)', () => {
  it('forward/copy (single and batch), sendContact, empty id lists; link_preview_options and reply_markup flags', async () => {
    const {emu, api, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', chatId: 85, userId: 85})
    const answer = async (method: string, params: Record<string, unknown>) =>
      (await api(method, {chat_id: 85, ...params})).json.description ?? 'ok'
    // process_forward_message_query / process_copy_message_query: get_required_string_arg("from_chat_id") first
    expect(await answer('forwardMessage', {message_id: 1})).toBe('Bad Request: parameter "from_chat_id" is required')
    expect(await answer('copyMessage', {message_id: 1})).toBe('Bad Request: parameter "from_chat_id" is required')
    expect(await answer('forwardMessages', {message_ids: [1]})).toBe(
      'Bad Request: parameter "from_chat_id" is required',
    )
    expect(await answer('copyMessages', {message_ids: [1]})).toBe('Bad Request: parameter "from_chat_id" is required')
    // process_forward_messages_query, process_copy_messages_query, process_delete_messages_query: an empty list
    for (const method of ['forwardMessages', 'copyMessages'])
      expect(await answer(method, {from_chat_id: 85, message_ids: []})).toBe(
        'Bad Request: message identifiers are not specified',
      )
    expect(await answer('deleteMessages', {message_ids: []})).toBe('Bad Request: message identifiers are not specified')
    // process_send_contact_query
    expect(await answer('sendContact', {})).toBe('Bad Request: parameter "phone_number" is required')
    expect(await answer('sendContact', {phone_number: '+1'})).toBe('Bad Request: parameter "first_name" is required')
    expect(await answer('sendContact', {phone_number: '+1', first_name: 'A'})).toBe('ok')
    // get_link_preview_options, before the text
    expect(await answer('sendMessage', {text: 'x', link_preview_options: 5})).toBe(
      'Bad Request: object expected as link preview options',
    )
    expect(await answer('sendMessage', {link_preview_options: {is_disabled: 'yes'}})).toBe(
      'Bad Request: field "is_disabled" must be of type Boolean',
    )
    expect(
      await answer('sendMessage', {text: 'x', link_preview_options: {is_disabled: true, url: 'https://a.b'}}),
    ).toBe('ok')
    // get_reply_markup: its flags are Booleans (td JsonObject::get_optional_bool_field)
    expect(await answer('sendMessage', {text: 'x', reply_markup: {remove_keyboard: 'yes'}})).toBe(
      'Bad Request: field "remove_keyboard" must be of type Boolean',
    )
    expect(await answer('sendMessage', {text: 'x', reply_markup: {keyboard: [['a']], resize_keyboard: 1}})).toBe(
      'Bad Request: field "resize_keyboard" must be of type Boolean',
    )
  })
})
