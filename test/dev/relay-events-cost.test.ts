/**
 * The shortcuts that keep the relay's per-update work small with the update line and the recording
 * on (issue 24 item 1) give what the long way gives: the webhook reply found in an answer, the
 * answer's text, the ISO time of a millisecond.
 */
import {describe, expect, it} from 'vitest'

import {webhookReply} from '../../src/dev/recording.js'
import {answerText} from '../../src/dev/relay/deliver.js'
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
