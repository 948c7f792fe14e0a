/**
 * The shortcuts that keep the relay's per-update work small with the update line and the recording
 * on (issue 24 item 1) give what the long way gives: the webhook reply found in an answer, the
 * answer's text, the ISO time of a millisecond, the bot's answer head read again, the history's
 * redaction for a list of secrets that grows in place.
 */
import {describe, expect, it} from 'vitest'

import {webhookReply} from '../../src/dev/recording.js'
import {answerText} from '../../src/dev/relay/deliver.js'
import {parseResponseHead, responseHeadOf} from '../../src/dev/relay/response-head.js'
import {clean} from '../../src/inspector/history/shape.js'
import {isoTime} from '../../src/lib/iso-time.js'

describe('webhookReply', () => {
  const ok = (body: string) => webhookReply({status: 200, body})

  it('finds a Bot API call in the answer, also when its key is written with escapes', () => {
    expect(ok('{"method":"sendMessage","chat_id":1,"text":"hi"}')).toEqual({
      method: 'sendMessage',
      params: {chat_id: 1, text: 'hi'},
    })
    expect(ok('{"\\u006dethod":"sendMessage","chat_id":1}')).toEqual({method: 'sendMessage', params: {chat_id: 1}})
    expect(ok('{"m\\u0065thod":"answerCallbackQuery","callback_query_id":"7"}')).toEqual({
      method: 'answerCallbackQuery',
      params: {callback_query_id: '7'},
    })
    expect(ok(' \n{"method" : "sendChatAction"}')).toEqual({method: 'sendChatAction', params: {}})
  })

  it('finds none where there is none', () => {
    for (const body of ['{}', '{"ok":true}', '', 'ok', '{"text":"method"}', '{"method":5}', '{"method":"x y"}', '{'])
      expect([body, ok(body)]).toEqual([body, undefined])
    expect(webhookReply({status: 500, body: '{"method":"sendMessage"}'})).toBeUndefined()
  })
})

describe('answerText', () => {
  it('is the UTF-8 text of the bytes the bot sent (kept as a latin1 string)', () => {
    const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
    expect(answerText({status: 200, text: '{"ok":true}'}, undefined)).toBe('{"ok":true}')
    expect(answerText({status: 200, text: latin1('{"text":"héllo ✓ 🎉"}')}, undefined)).toBe('{"text":"héllo ✓ 🎉"}')
    expect(answerText({status: 200, text: ''}, undefined)).toBe('')
    expect(answerText(undefined, 'the bot was not listening within 30s')).toBe(
      'bot dev: the bot was not listening within 30s\n',
    )
    expect(answerText(undefined, undefined)).toBe('')
  })
})

describe('isoTime', () => {
  it('is toISOString of the millisecond, also when asked again and in turns', () => {
    for (const ms of [0, 1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_124, 1_700_000_000_123, -1])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString())
    expect(() => isoTime(Number.NaN)).toThrow(RangeError)
  })
})

describe('responseHeadOf', () => {
  const head = (extra: string) =>
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n${extra}\r\n`

  it('reads each head as parseResponseHead does, the same head once', () => {
    const a = head('Date: Wed, 25 Nov 2026 16:45:00 GMT\r\nKeep-Alive: timeout=5\r\n')
    const first = responseHeadOf(a)
    expect(first).toEqual(parseResponseHead(a))
    expect(responseHeadOf(`${a}`)).toBe(first)
    // Any other head is read again, never taken for the last one.
    for (const other of [
      head('Date: Wed, 25 Nov 2026 16:45:01 GMT\r\nKeep-Alive: timeout=5\r\n'),
      head('Connection: close\r\n'),
      'HTTP/1.1 503 Service Unavailable\r\nretry-after: 3\r\ncontent-length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nbad header\r\n\r\n',
      a,
    ])
      expect(responseHeadOf(other)).toEqual(parseResponseHead(other))
    expect(responseHeadOf('nonsense\r\n\r\n')).toBe(parseResponseHead('nonsense\r\n\r\n'))
    expect(responseHeadOf(a)).toEqual(parseResponseHead(a))
  })
})

describe('clean (the history redacts every update)', () => {
  it('follows a list of secrets changed in place (the recording adds the webhook secret and path later)', () => {
    const secrets: Array<string | undefined> = ['first-secret-value']
    expect(clean('a first-secret-value b second-secret-value', secrets)).toBe('a <token> b second-secret-value')
    secrets.push('second-secret-value')
    expect(clean('a first-secret-value b second-secret-value', secrets)).toBe('a <token> b <token>')
    secrets[0] = 'third-secret-value'
    expect(clean('first-secret-value third-secret-value', secrets)).toBe('first-secret-value <token>')
    expect(clean('x first-secret-value', ['first-secret-value'])).toBe('x <token>')
  })
})
