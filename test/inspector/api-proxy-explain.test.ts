/** The explanations and summaries the api proxy puts in its records (pure parts). */
import {describe, expect, it} from 'vitest'
import {explainCall} from '../../src/inspector/proxy/call-explain.js'
import {paramsOf} from '../../src/inspector/proxy/call-params.js'
import {buildCall, redactorFor, summarize} from '../../src/inspector/proxy/call-record.js'

describe('explainCall: Telegram texts get one line', () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'sendMessage',
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
      /formatting/,
    ],
    ['sendMessage', 'Bad Request: can\'t parse entities: Unsupported start tag "foo" at byte offset 0', /formatting/],
    [
      'editMessageText',
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      /editMessageText .*nothing changed/,
    ],
    ['sendMessage', 'Bad Request: chat not found', /does not know that chat/],
    ['sendMessage', 'Forbidden: bot was blocked by the user', /blocked the bot/],
    ['sendMessage', 'Too Many Requests: retry after 12', /wait 12 s/],
    ['editMessageText', 'Bad Request: message to edit not found', /No such message/],
    [
      'answerCallbackQuery',
      'Bad Request: query is too old and response timeout expired or query ID is invalid',
      /answerCallbackQuery first/,
    ],
    [
      'getUpdates',
      'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      /Another process polls/,
    ],
    [
      'getUpdates',
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      /webhook is set/,
    ],
    ['sendMesage', 'Not Found: method not found', /no method "sendMesage"/],
    ['getMe', 'Unauthorized', /token was rejected/],
    ['sendMessage', "Forbidden: bot can't initiate conversation with a user", /press Start/],
    ['sendMessage', 'Bad Request: group chat was upgraded to a supergroup chat', /migrate_to_chat_id/],
    ['sendPhoto', 'Bad Request: message caption is too long', /1024/],
  ]
  for (const [method, description, expected] of cases) {
    it(description, () => {
      expect(explainCall(method, description, {parse_mode: 'MarkdownV2'})).toMatch(expected)
    })
  }

  it('an unknown failure gets none', () => {
    expect(explainCall('sendMessage', 'Bad Request: something new', {})).toBeUndefined()
    expect(explainCall('sendMessage', undefined, {})).toBeUndefined()
  })

  it('the parse_mode decides the hint', () => {
    expect(explainCall('sendMessage', "Bad Request: can't parse entities: x", {parse_mode: 'HTML'})).toMatch(/&lt;/)
    expect(explainCall('sendMessage', "Bad Request: can't parse entities: x", {})).toMatch(/without parse_mode/)
  })
})

describe('record summaries', () => {
  const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
  const clean = redactorFor([token])

  it('cuts long strings after redacting, bounds width and depth', () => {
    const summary = summarize(
      {
        text: `${token} ${'z'.repeat(500)}`,
        list: Array.from({length: 50}, (_, i) => i),
        deep: {a: {b: {c: {d: {e: {f: {g: 1}}}}}}},
      },
      clean,
    ) as any
    expect(summary.text.startsWith('<token> zzz')).toBe(true)
    expect(summary.text.length).toBe(201)
    expect(summary.list).toHaveLength(21)
    expect(summary.list[20]).toBe('… 30 more')
    expect(JSON.stringify(summary.deep)).toContain('…')
  })

  it('parses urlencoded, JSON (a bare string is `content`), and reads chat_id / user_id as numbers', () => {
    const form = paramsOf(
      {'content-type': 'application/x-www-form-urlencoded'},
      Buffer.from('chat_id=-1001234&text=a+b&reply_markup=%7B%22x%22%3A1%7D'),
      '',
    )
    expect(form).toEqual({chat_id: '-1001234', text: 'a b', reply_markup: {x: 1}})
    expect(paramsOf({'content-type': 'application/json'}, Buffer.from('"hello"'), '')).toEqual({content: 'hello'})
    expect(paramsOf({'content-type': 'application/json'}, Buffer.from('{"chat_id":1}'), 'chat_id=2')).toEqual({
      chat_id: '2',
    })
    expect(paramsOf({'content-type': 'text/plain'}, Buffer.from('{"chat_id":1}'), '')).toEqual({})
    const call = buildCall(
      {
        method: 'banChatMember',
        params: {chat_id: '-1001234', user_id: '77'},
        started: 0,
        ms: 1.234,
        status: 200,
        envelope: {ok: true, result: true},
      },
      clean,
    )
    expect(call).toMatchObject({chatId: -1001234, userId: 77, ok: true, ms: 1.2, time: '1970-01-01T00:00:00.000Z'})
    const channel = buildCall(
      {method: 'sendMessage', params: {chat_id: '@my_channel'}, started: 0, ms: 1, status: 200, envelope: {ok: true}},
      clean,
    )
    expect(channel.chatId).toBe('@my_channel')
  })
})
