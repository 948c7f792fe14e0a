/** parse_mode, explicit entities, detected entities and text limits, over HTTP against a started emulator. */
import {Bot, GrammyError} from 'grammy'
import {describe, expect, it} from 'vitest'
import {setup} from './helpers.js'

const bad = (description: string) => `{"ok":false,"error_code":400,"description":${JSON.stringify(description)}}`
const entitiesError = (message: string) => bad(`Bad Request: can't parse entities: ${message}`)

/** A started emulator whose bot may write to user 1111; `send` calls sendMessage there. */
async function chat() {
  const s = await setup()
  s.emu.sendUserMessage(s.token, {text: 'hi'})
  const send = (text: string, more: Record<string, unknown> = {}) =>
    s.api('sendMessage', {chat_id: 1111, text, ...more})
  return {...s, send}
}

describe('parse_mode HTML', () => {
  it('answers the text without markup and UTF-16 entities', async () => {
    const {send} = await chat()
    const r = await send(
      '😀 <b>bold <i>both</i></b> <a href="example.com">link</a> <code>x</code> &lt;&amp;&gt; &copy;',
      {parse_mode: 'HTML'},
    )
    expect(r.status).toBe(200)
    expect(r.json.result.text).toBe('😀 bold both link x <&> &copy;')
    expect(r.json.result.entities).toEqual([
      {offset: 3, length: 9, type: 'bold'},
      {offset: 8, length: 4, type: 'italic'},
      {offset: 13, length: 4, type: 'text_link', url: 'http://example.com/'},
      {offset: 18, length: 1, type: 'code'},
    ])
  })

  it('reads pre with a language, spoilers, blockquotes and text mentions; the mode name is case-insensitive', async () => {
    const {send} = await chat()
    const r = await send(
      '<pre><code class="language-ts">let a</code></pre>\n<tg-spoiler>s</tg-spoiler> <span class="tg-spoiler">t</span>\n<blockquote expandable>q</blockquote> <a href="tg://user?id=1111">you</a>',
      {parse_mode: 'hTmL'},
    )
    expect(r.json.result.text).toBe('let a\ns t\nq you')
    expect(r.json.result.entities).toEqual([
      {offset: 0, length: 5, type: 'pre', language: 'ts'},
      {offset: 6, length: 1, type: 'spoiler'},
      {offset: 8, length: 1, type: 'spoiler'},
      {offset: 10, length: 1, type: 'expandable_blockquote'},
      {
        offset: 12,
        length: 3,
        type: 'text_mention',
        user: {id: 1111, is_bot: false, first_name: 'Test', username: 'tester'},
      },
    ])
  })

  it('gives every parser error with its byte offset into the raw input', async () => {
    const {send} = await chat()
    expect((await send('Привет <x>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Unsupported start tag "x" at byte offset 13'),
    )
    expect((await send('a < b', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Unsupported start tag "" at byte offset 2'),
    )
    expect((await send('<b>x</i>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
    )
    expect((await send('x</b>', {parse_mode: 'HTML'})).text).toBe(entitiesError('Unexpected end tag at byte offset 1'))
    expect((await send('<b>bold', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Can\'t find end tag corresponding to start tag "b"'),
    )
    expect((await send('ab <b', {parse_mode: 'HTML'})).text).toBe(entitiesError('Unclosed start tag at byte offset 3'))
    expect((await send('<a href="x.com"', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Unclosed start tag at byte offset 0'),
    )
    expect((await send('<span>x</span>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Tag "span" must have class "tg-spoiler" at byte offset 0'),
    )
    expect((await send('<a href=x.com/y>x</a>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Unexpected end of name token at byte offset 8'),
    )
    expect((await send('<tg-emoji emoji-id="abc">x</tg-emoji>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Invalid custom emoji identifier specified'),
    )
    expect((await send('<b =1>x</b>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Empty attribute name in the tag "b" at byte offset 0'),
    )
  })
})

describe('parse_mode MarkdownV2', () => {
  it('answers nested entities, links, code and blockquotes', async () => {
    const {send} = await chat()
    const r = await send('*bold _both_* __u__ ~s~ ||sp|| [site](https://example.org/a\\)b) `c\\`d` \\. done\n>quote', {
      parse_mode: 'MarkdownV2',
    })
    expect(r.json.result.text).toBe('bold both u s sp site c`d . done\nquote')
    expect(r.json.result.entities).toEqual([
      {offset: 0, length: 9, type: 'bold'},
      {offset: 5, length: 4, type: 'italic'},
      {offset: 10, length: 1, type: 'underline'},
      {offset: 12, length: 1, type: 'strikethrough'},
      {offset: 14, length: 2, type: 'spoiler'},
      {offset: 17, length: 4, type: 'text_link', url: 'https://example.org/a)b'},
      {offset: 22, length: 3, type: 'code'},
      {offset: 33, length: 5, type: 'blockquote'},
    ])
    const pre = await send('```python\nprint(1)\n```', {parse_mode: 'MarkdownV2'})
    expect(pre.json.result).toMatchObject({
      text: 'print(1)',
      entities: [{offset: 0, length: 8, type: 'pre', language: 'python'}],
    })
  })

  it('reads expandable blockquotes, custom emoji, tg-time, and drops links td refuses', async () => {
    const {send} = await chat()
    expect((await send('>line one\n>line two||', {parse_mode: 'MarkdownV2'})).json.result).toMatchObject({
      text: 'line one\nline two',
      entities: [{offset: 0, length: 17, type: 'expandable_blockquote'}],
    })
    expect(
      (await send('![👍](tg://emoji?id=5368324170671202286)', {parse_mode: 'MarkdownV2'})).json.result.entities,
    ).toEqual([{offset: 0, length: 2, type: 'custom_emoji', custom_emoji_id: '5368324170671202286'}])
    expect(
      (await send('<tg-time unix="1700000000" format="wD">when</tg-time>', {parse_mode: 'HTML'})).json.result.entities,
    ).toEqual([{offset: 0, length: 4, type: 'date_time', unix_time: 1700000000, date_time_format: 'wD'}])
    expect((await send('<tg-time unix="1700000000" format="x">when</tg-time>', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Invalid date format used'),
    )
    const dropped = await send('[bad](localhost) ok', {parse_mode: 'MarkdownV2'})
    expect(dropped.json.result.text).toBe('bad ok')
    expect(dropped.json.result.entities).toBeUndefined()
    expect((await send('x >a', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Character '>' is reserved and must be escaped with the preceding '\\'"),
    )
  })

  it('gives the reserved-character and unclosed-entity errors with byte offsets', async () => {
    const {send} = await chat()
    expect((await send('Hello.', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Character '.' is reserved and must be escaped with the preceding '\\'"),
    )
    expect((await send('1-2', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Character '-' is reserved and must be escaped with the preceding '\\'"),
    )
    expect((await send('é *bold', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Can't find end of Bold entity at byte offset 3"),
    )
    expect((await send('a __u', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Can't find end of Underline entity at byte offset 2"),
    )
    expect((await send('```\ncode', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Can't find end of Pre entity at byte offset 0"),
    )
    expect((await send('[a](http://x.org', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError("Can't find end of a URL at byte offset 4"),
    )
    expect((await send('![a]', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError('The entity must contain a tg://emoji or tg://time URL'),
    )
    expect((await send('![a](http://x.org)', {parse_mode: 'MarkdownV2'})).text).toBe(
      entitiesError('Invalid tg://emoji or tg://time URL specified'),
    )
  })
})

describe('parse_mode Markdown (legacy)', () => {
  it('answers its four entities and its one error', async () => {
    const {send} = await chat()
    const r = await send('*b* _i_ `c` [l](http://e.org) 1.5-2', {parse_mode: 'Markdown'})
    expect(r.json.result.text).toBe('b i c l 1.5-2')
    expect(r.json.result.entities).toEqual([
      {offset: 0, length: 1, type: 'bold'},
      {offset: 2, length: 1, type: 'italic'},
      {offset: 4, length: 1, type: 'code'},
      {offset: 6, length: 1, type: 'text_link', url: 'http://e.org/'},
    ])
    expect((await send('ok *bold', {parse_mode: 'Markdown'})).text).toBe(
      entitiesError("Can't find end of the entity starting at byte offset 3"),
    )
  })
})

describe('the text around parsing', () => {
  it('unsupported parse_mode, empty, whitespace-only, too long in code points, too long in bytes', async () => {
    const {send} = await chat()
    expect((await send('x', {parse_mode: 'markdown3'})).text).toBe(bad('Bad Request: unsupported parse_mode'))
    expect((await send('x', {parse_mode: 'None'})).json.result.text).toBe('x')
    expect((await send('', {parse_mode: 'HTML'})).text).toBe(bad('Bad Request: message text is empty'))
    expect((await send('<b> </b>\n', {parse_mode: 'HTML'})).text).toBe(bad('Bad Request: text must be non-empty'))
    expect((await send(' \n ')).text).toBe(bad('Bad Request: text must be non-empty'))
    // 4096 astral characters (8192 UTF-16 units) pass, 4097 do not: the limit counts code points
    expect((await send('😀'.repeat(4096))).status).toBe(200)
    expect((await send('😀'.repeat(4097))).text).toBe(bad('Bad Request: message is too long'))
    // markup does not count: 4096 characters inside <b> are fine
    expect((await send(`<b>${'a'.repeat(4096)}</b>`, {parse_mode: 'HTML'})).status).toBe(200)
    expect((await send('é'.repeat(16385))).text).toBe(bad('Bad Request: text is too long'))
  })

  it('trims spaces and newlines, turns control characters into spaces and drops \\r', async () => {
    const {send} = await chat()
    const r = await send('\n  <b>a</b>\tb\r\nc  \n', {parse_mode: 'HTML'})
    expect(r.json.result.text).toBe('a b\nc')
    expect(r.json.result.entities).toEqual([{offset: 0, length: 1, type: 'bold'}])
  })

  it('checks explicit entities as the server does and drops the detected types given explicitly', async () => {
    const {send} = await chat()
    const parseError = (m: string) => bad(`Bad Request: can't parse MessageEntity: ${m}`)
    expect((await send('hello', {entities: [{offset: 0, length: 1, type: 'shiny'}]})).text).toBe(
      parseError('Unsupported type specified'),
    )
    expect((await send('hello', {entities: [{length: 1, type: 'bold'}]})).text).toBe(
      parseError('Can\'t find field "offset"'),
    )
    expect((await send('hello', {entities: [{offset: 'a', length: 1, type: 'bold'}]})).text).toBe(
      parseError('Field "offset" must be a valid Number'),
    )
    expect((await send('hello', {entities: [{offset: 0, length: 1, type: ''}]})).text).toBe(
      parseError('Type is not specified'),
    )
    expect((await send('hello', {entities: [5]})).text).toBe(parseError('expected an Object'))
    expect((await send('hello', {entities: [{offset: 0, length: 1, type: 'text_link'}]})).text).toBe(
      parseError('Can\'t find field "url"'),
    )
    expect((await send('hello', {entities: [{offset: 2, length: 9, type: 'bold'}]})).text).toBe(
      bad('Bad Request: entity beginning at UTF-16 offset 2 ends after the end of the text at UTF-16 offset 11'),
    )
    expect((await send('hello', {entities: [{offset: 7, length: 1, type: 'bold'}]})).text).toBe(
      bad('Bad Request: entity begins after the end of the text at UTF-16 offset 7'),
    )
    const ok = await send('hello world', {
      entities: [
        {offset: 6, length: 5, type: 'italic'},
        {offset: 0, length: 5, type: 'mention'},
      ],
    })
    expect(ok.json.result.entities).toEqual([{offset: 6, length: 5, type: 'italic'}])
    // with parse_mode, entities are ignored
    expect(
      (await send('<i>x</i>', {parse_mode: 'HTML', entities: [{offset: 0, length: 1, type: 'shiny'}]})).json.result
        .entities,
    ).toEqual([{offset: 0, length: 1, type: 'italic'}])
  })

  it('detects mentions, commands, hashtags, cashtags, URLs and emails in what the bot sends, but not inside code', async () => {
    const {send} = await chat()
    const r = await send(
      'Hi @durov, try /start@test_bot #news $USD https://t.me/x or mail a.b@example.org; google.com @ab',
    )
    expect(r.json.result.entities).toEqual([
      {offset: 3, length: 6, type: 'mention'},
      {offset: 15, length: 15, type: 'bot_command'},
      {offset: 31, length: 5, type: 'hashtag'},
      {offset: 37, length: 4, type: 'cashtag'},
      {offset: 42, length: 14, type: 'url'},
      {offset: 65, length: 15, type: 'email'},
      {offset: 82, length: 10, type: 'url'},
    ])
    const code = await send('<code>@durov</code> <b>see example.com</b>', {parse_mode: 'HTML'})
    expect(code.json.result.entities).toEqual([
      {offset: 0, length: 6, type: 'code'},
      {offset: 7, length: 4, type: 'bold'},
      {offset: 11, length: 11, type: 'url'},
      {offset: 11, length: 11, type: 'bold'},
    ])
    expect((await send('no.tld here, 1.5 and x/y')).json.result.entities).toBeUndefined()
  })

  it('finds the same links whatever was sent before (the expressions are shared between calls)', async () => {
    const {send} = await chat()
    const links = 'TG://resolve?domain=x then ftp://1.2.3.4:80/p and (see http://a.io/c)), b@example.org'
    // as detected before the expressions were shared (matchAll, a copy of each per call)
    const expected = [
      {offset: 0, length: 21, type: 'url'},
      {offset: 27, length: 18, type: 'url'},
      {offset: 55, length: 13, type: 'url'},
      {offset: 72, length: 13, type: 'email'},
    ]
    expect((await send(links)).json.result.entities).toEqual(expected)
    // a text whose scan stops early (a colon, no dot; a dot, no scheme), then the first text again
    expect((await send('re: m1')).json.result.entities).toBeUndefined()
    expect((await send('see example.com')).json.result.entities).toEqual([{offset: 4, length: 11, type: 'url'}])
    expect((await send(links)).json.result.entities).toEqual(expected)
  })

  it('captions: parse_mode, the 1024 limit, an empty caption dropped', async () => {
    const {api} = await chat()
    const photo = (caption: string, more: Record<string, unknown> = {}) =>
      api('sendPhoto', {chat_id: 1111, photo: 'https://example.com/cat.jpg', caption, ...more})
    const r = await photo('<b>cat</b> #cute', {parse_mode: 'HTML'})
    expect(r.json.result.caption).toBe('cat #cute')
    expect(r.json.result.caption_entities).toEqual([
      {offset: 0, length: 3, type: 'bold'},
      {offset: 4, length: 5, type: 'hashtag'},
    ])
    expect((await photo('<b>x', {parse_mode: 'HTML'})).text).toBe(
      entitiesError('Can\'t find end tag corresponding to start tag "b"'),
    )
    expect((await photo('a'.repeat(1025))).text).toBe(bad('Bad Request: message caption is too long'))
    expect((await photo('a'.repeat(1024))).status).toBe(200)
    const album = await api('sendMediaGroup', {
      chat_id: 1111,
      media: [
        {type: 'photo', media: 'https://example.com/cat.jpg', caption: '<i>one</i>', parse_mode: 'HTML'},
        {type: 'photo', media: 'https://example.com/dog.jpg', caption: 'two'},
      ],
    })
    expect(album.json.result.map((m: any) => [m.caption, m.caption_entities])).toEqual([
      ['one', [{offset: 0, length: 3, type: 'italic'}]],
      ['two', undefined],
    ])
    expect(
      (
        await api('sendMediaGroup', {
          chat_id: 1111,
          media: [{type: 'photo', media: 'https://example.com/cat.jpg', caption: '*x', parse_mode: 'MarkdownV2'}],
        })
      ).text,
    ).toBe(
      bad("Bad Request: can't parse InputMedia: Can't parse entities: Can't find end of Bold entity at byte offset 0"),
    )
    const empty = await photo('<b> </b>', {parse_mode: 'HTML'})
    expect(empty.status).toBe(200)
    expect('caption' in empty.json.result).toBe(false)
  })
})

describe('a real client library', () => {
  it('grammY gets the formatting error as a GrammyError with the server text', async () => {
    const {emu, token} = await chat()
    const bot = new Bot(token, {client: {apiRoot: emu.apiRoot}})
    const err = await bot.api.sendMessage(1111, 'Price: 5.00', {parse_mode: 'MarkdownV2'}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(GrammyError)
    expect((err as GrammyError).error_code).toBe(400)
    expect((err as GrammyError).description).toBe(
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    )
    const ok = await bot.api.sendMessage(1111, 'Price: *5\\.00*', {parse_mode: 'MarkdownV2'})
    expect(ok.text).toBe('Price: 5.00')
    expect(ok.entities).toEqual([{offset: 7, length: 4, type: 'bold'}])
  })
})
