/**
 * The shortcuts that keep the relay's per-update work small with the update line and the recording
 * on give what the long way gives: the webhook reply found in an answer, the
 * answer's text, the ISO time of a millisecond, the bot's answer head read again, the history's
 * redaction for a list of secrets that grows in place, the update line read from the record.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {SessionRecording, webhookReply} from '../../src/dev/recording.js'
import type {Relay} from '../../src/dev/relay/relay.js'
import {scanUpdate} from '../../src/dev/relay/scan.js'
import type {RelayRecorder} from '../../src/dev/relay/types.js'
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

describe('the update line of a recorded update', () => {
  const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
  const recorder = () => {
    const recording = new SessionRecording({
      token: TOKEN,
      mode: 'webhook',
      keepDir: mkdtempSync(join(tmpdir(), 'bot-line-')),
      emit: () => {},
    })
    recording.open({id: 1, first_name: 'Bot'})
    let attached: RelayRecorder | undefined
    recording.attachRelay({setRecorder: (r: RelayRecorder | undefined) => (attached = r)} as unknown as Relay)
    return attached!
  }

  it('shows what the relay would read itself: the record is read once, not scanned again', () => {
    const rec = recorder()
    const bodies = [
      '{"update_id":7,"message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"hi"}}',
      `{"update_id":8,"message":{"message_id":2,"chat":{"id":5},"text":"a ${TOKEN} b\\nc"}}`,
      '{"update_id":9,"callback_query":{"id":"q","from":{"id":42},"message":{"chat":{"id":-100}},"data":"x"}}',
      '{"update_id":10,"channel_post":{"chat":{"id":"-100"},"caption":"c"}}',
      '{"update_id":11,"inline_query":{"id":"i","from":{"id":3},"query":"q"}}',
      '{"message":{"chat":{"id":1},"text":"no id"}}',
      '{"update_id":12}',
      '{"update_id":13,"poll":{"id":"p","question":"why?"},"update_id":14}',
      `{"update_id":15,"message":{"chat":{"id":1},"text":"${'x'.repeat(70 * 1024)}"}}`,
      'not json',
      '[1,2]',
      '{"update_id":16,',
    ]
    for (const text of bodies) {
      const body = Buffer.from(text)
      const record = rec.begin(body, 'webhook')
      const line = rec.describe?.(record) ?? scanUpdate(body, [TOKEN])
      expect([text.slice(0, 60), line]).toEqual([text.slice(0, 60), scanUpdate(body, [TOKEN])])
    }
    // A record it has (a message) is described by the record, not by another scan.
    expect(rec.describe?.(rec.begin(Buffer.from(bodies[0]), 'webhook'))).toEqual({
      updateId: 7,
      updateType: 'message',
      chatId: 5,
      preview: 'hi',
    })
  })
})
