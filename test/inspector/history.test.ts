import {appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ATTACH_WINDOW_MS, UpdateHistory} from '../../src/inspector/history/history.js'
import {clean, MAX_CALLS, MAX_UPDATE_BYTES} from '../../src/inspector/history/shape.js'
import {redactSecrets} from '../../src/telegram/redact.js'
import type {ApiCall} from '../../src/inspector/types.js'
import {waitFor} from '../support/wait.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const SECRET = 'webhook_secret_value_123'

function message(updateId: number, chatId: number, text = 'hi', userId = chatId): Record<string, unknown> {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1,
      chat: {id: chatId, type: 'private'},
      from: {id: userId, is_bot: false, first_name: 'U'},
      text,
    },
  }
}

function callback(updateId: number, userId: number, id: string): Record<string, unknown> {
  return {
    update_id: updateId,
    callback_query: {id, from: {id: userId, is_bot: false, first_name: 'U'}, chat_instance: '1', data: 'x'},
  }
}

function call(o: Partial<ApiCall> & {at: number}): ApiCall {
  const {at, ...rest} = o
  return {method: 'sendMessage', ok: true, ms: 1.2, params: {}, time: new Date(at).toISOString(), ...rest}
}

/** A history with a clock the test moves. */
function clocked(o: ConstructorParameters<typeof UpdateHistory>[0] = {}) {
  const clock = {now: 1_700_000_000_000}
  const history = new UpdateHistory({now: () => clock.now, ...o})
  return {history, clock}
}

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'bot-history-test-'))
}

describe('UpdateHistory: entries', () => {
  it('records an update in flight, then its answer; lists newest first; tells subscribers, even past a throwing one', () => {
    const {history} = clocked()
    const seen: string[] = []
    history.subscribe(() => {
      throw new Error('a broken listener')
    })
    const off = history.subscribe((entry, change) => seen.push(`${change} ${entry.updateId}`))
    const a = history.begin(message(10, 1111, '/start'), 'webhook')
    expect(a).toMatchObject({
      updateId: 10,
      type: 'message',
      chatId: 1111,
      preview: '/start',
      answer: null,
      calls: [],
      seq: 1,
      source: 'webhook',
    })
    expect(history.inFlight(a)).toBe(true)
    history.finish(a, {status: 200, body: '{"method":"sendMessage"}'}, 12.345)
    expect(a.answer).toEqual({status: 200, body: '{"method":"sendMessage"}'})
    expect(a.ms).toBe(12.3)
    expect(history.inFlight(a)).toBe(false)
    const b = history.begin(message(11, 2222), 'replay', 10)
    expect(b).toMatchObject({seq: 2, source: 'replay', replayOf: 10})
    expect(history.list().map((e) => e.seq)).toEqual([2, 1])
    expect(history.last()).toBe(b)
    expect(history.find(10)).toBe(a)
    expect(seen).toEqual(['new 10', 'update 10', 'new 11'])
    off()
    history.begin(message(12, 1), 'trigger')
    expect(seen).toHaveLength(3)
  })

  it('keeps only the newest `limit` entries', () => {
    const {history} = clocked({limit: 3})
    for (let i = 1; i <= 10; i++) history.begin(message(i, 1), 'webhook')
    expect(history.list().map((e) => e.updateId)).toEqual([10, 9, 8])
    expect(history.find(7)).toBeUndefined()
  })

  it('redacts the token, the webhook secret and anything token-shaped from updates, answers and calls', () => {
    const {history, clock} = clocked({secrets: [TOKEN, SECRET]})
    const e = history.begin(
      message(1, 5, `my token is ${TOKEN} and ${SECRET} and 987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw`),
      'webhook',
    )
    history.finish(e, {status: 200, body: `{"text":"${TOKEN.split(':')[1]}"}`}, 1)
    history.addCall(call({at: clock.now, chatId: 5, params: {text: `echo ${TOKEN}`}, description: SECRET}))
    const all = JSON.stringify(history.list())
    expect(all).not.toContain(TOKEN.split(':')[1])
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain('ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw')
    expect(all).toContain('<token>')
  })

  it('redacts in one pass exactly what redactSecrets redacts (whole, secret part, URL-encoded, token-shaped)', () => {
    const samples = [
      `a ${TOKEN} b`,
      `part ${TOKEN.split(':')[1]} only`,
      `encoded ${encodeURIComponent(TOKEN)} and ${SECRET}x${SECRET}`,
      'other 987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw token',
      'a regex-looking secret: a.b*c(d)',
      'nothing here',
    ]
    const secrets = [TOKEN, SECRET, 'a.b*c(d)+[e]', undefined]
    for (const text of samples) expect(clean(text, secrets)).toBe(redactSecrets(text, secrets))
    expect(clean('x a.b*c(d)+[e] y', secrets)).toBe('x <token> y')
    // A changed list of secrets is used at once.
    expect(clean(`s ${SECRET}`, [TOKEN])).toBe(`s ${SECRET}`)
  })

  it('keeps a huge update as its start only (marked truncated), and at most MAX_CALLS calls per update', () => {
    const {history, clock} = clocked()
    const e = history.begin(message(1, 5, 'x'.repeat(MAX_UPDATE_BYTES + 10)), 'webhook')
    expect(e.truncated).toBe(true)
    expect(JSON.stringify(e.update).length).toBeLessThan(8 * 1024)
    expect(e.updateId).toBe(1)
    for (let i = 0; i < MAX_CALLS + 5; i++) history.addCall(call({at: clock.now, chatId: 5}))
    expect(e.calls).toHaveLength(MAX_CALLS)
    expect(e.droppedCalls).toBe(5)
  })
})

describe('UpdateHistory: attaching calls', () => {
  it('attaches a call to the update in flight for its chat, even when a newer update of another chat exists', () => {
    const {history, clock} = clocked()
    const a = history.begin(message(1, 100), 'webhook')
    const b = history.begin(message(2, 200), 'webhook')
    expect(history.addCall(call({at: clock.now, chatId: 100}))).toBe(a)
    expect(history.addCall(call({at: clock.now, chatId: '200'}))).toBe(b)
    expect(a.calls).toHaveLength(1)
    expect(b.calls).toHaveLength(1)
  })

  it('prefers the update in flight over a newer answered one of the same chat', () => {
    const {history, clock} = clocked()
    const slow = history.begin(message(1, 100), 'webhook')
    const fast = history.begin(message(2, 100), 'webhook')
    history.finish(fast, {status: 200, body: ''}, 1)
    expect(history.addCall(call({at: clock.now, chatId: 100}))).toBe(slow)
  })

  it('else the newest update of that chat or user within 60 s; older ones get nothing', () => {
    const {history, clock} = clocked()
    const old = history.begin(message(1, 100), 'webhook')
    history.finish(old, {status: 200, body: ''}, 1)
    clock.now += 10_000
    const newer = history.begin(message(2, 100), 'polling')
    history.finish(newer, null, 0)
    clock.now += 1000
    expect(history.addCall(call({at: clock.now, chatId: 100}))).toBe(newer)
    expect(history.addCall(call({at: clock.now, userId: 100, method: 'banChatMember', chatId: undefined}))).toBe(newer)
    expect(history.addCall(call({at: clock.now, chatId: 999}))).toBeUndefined()
    clock.now += ATTACH_WINDOW_MS
    expect(history.addCall(call({at: clock.now, chatId: 100}))).toBeUndefined()
    expect(old.calls).toHaveLength(0)
    expect(newer.calls).toHaveLength(2)
  })

  it('matches answerCallbackQuery by callback_query_id, and any other call to the only update in flight', () => {
    const {history, clock} = clocked()
    const press = history.begin(callback(1, 300, 'cbq-42'), 'webhook')
    history.finish(press, {status: 200, body: ''}, 1)
    const msg = history.begin(message(2, 400), 'webhook')
    expect(
      history.addCall(call({at: clock.now, method: 'answerCallbackQuery', params: {callback_query_id: 'cbq-42'}})),
    ).toBe(press)
    expect(history.addCall(call({at: clock.now, method: 'getMe'}))).toBe(msg)
    // A call about another chat while exactly one update is handled belongs to that update.
    expect(history.addCall(call({at: clock.now, chatId: 999_999_999}))).toBe(msg)
    history.begin(message(3, 500), 'webhook')
    expect(history.addCall(call({at: clock.now, method: 'getMe'}))).toBeUndefined()
    expect(history.addCall(call({at: clock.now, chatId: 999_999_999}))).toBeUndefined()
  })

  it('attaches a call to the update it is given (a call in the webhook answer)', () => {
    const {history, clock} = clocked()
    const a = history.begin(message(1, 100), 'webhook')
    history.begin(message(2, 100), 'webhook')
    expect(history.addCall(call({at: clock.now, chatId: 100, webhookReply: true}), a)).toBe(a)
    expect(a.calls).toEqual([expect.objectContaining({webhookReply: true})])
  })

  it('does not attach a call made before the update arrived', () => {
    const {history, clock} = clocked()
    const at = clock.now
    clock.now += 5000
    const e = history.begin(message(1, 100), 'webhook')
    history.finish(e, {status: 200, body: ''}, 1)
    expect(history.addCall(call({at, chatId: 100}))).toBeUndefined()
  })
})

describe('UpdateHistory: the JSONL log', () => {
  it('appends entries (0600, no token) that readLog gives back with their newest contents', async () => {
    const dir = tmp()
    const file = join(dir, 'state', 'history-1.jsonl')
    const {history, clock} = clocked({logFile: file, secrets: [TOKEN], flushMs: 5})
    const e = history.begin(message(7, 100, `token ${TOKEN}`), 'webhook')
    history.finish(e, {status: 200, body: 'ok'}, 3)
    history.addCall(
      call({at: clock.now, chatId: 100, ok: false, errorCode: 400, description: 'Bad Request: chat not found'}),
    )
    // flushed by its timer
    await waitFor(() => readFileSync(file, 'utf8').includes('chat not found'))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700)
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(TOKEN.split(':')[1])
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
    const back = UpdateHistory.readLog(file)
    expect(back).toHaveLength(1)
    expect(back[0]).toMatchObject({
      updateId: 7,
      answer: {status: 200, body: 'ok'},
      calls: [{method: 'sendMessage', ok: false, errorCode: 400}],
    })
    expect(back[0]).not.toHaveProperty('session')
    history.close()
  })

  it('finds an update of an earlier session in the log; trims the log to the newest `limit` entries at start', () => {
    const dir = tmp()
    const file = join(dir, 'history-1.jsonl')
    const first = new UpdateHistory({logFile: file, limit: 5})
    for (let i = 1; i <= 12; i++) first.finish(first.begin(message(i, 1), 'webhook'), {status: 200, body: ''}, 1)
    first.close()
    appendFileSync(file, '{"session":"x","updateId":99,"seq":1,"cut in the mid') // a crash mid-line
    expect(UpdateHistory.readLog(file).map((e) => e.updateId)).toEqual([8, 9, 10, 11, 12])

    const second = new UpdateHistory({logFile: file, limit: 5})
    expect(second.list()).toEqual([])
    expect(second.find(9)?.updateId).toBe(9)
    expect(second.last()?.updateId).toBe(12)
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5)
    second.begin(message(50, 1), 'trigger')
    second.close()
    expect(UpdateHistory.readLog(file).map((e) => e.updateId)).toEqual([8, 9, 10, 11, 12, 50])
  })

  it('compacts a log that grows past twice the limit while running, and never throws for an unwritable one', () => {
    const dir = tmp()
    const file = join(dir, 'history-1.jsonl')
    const history = new UpdateHistory({logFile: file, limit: 4})
    for (let i = 1; i <= 40; i++) {
      history.finish(history.begin(message(i, 1), 'webhook'), {status: 200, body: ''}, 1)
      history.flush()
    }
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(3 * 4)
    expect(UpdateHistory.readLog(file).at(-1)?.updateId).toBe(40)
    history.close()

    const blocker = join(dir, 'not-a-dir')
    writeFileSync(blocker, '')
    const errors: string[] = []
    const broken = new UpdateHistory({logFile: join(blocker, 'history.jsonl'), onError: (m) => errors.push(m)})
    broken.begin(message(1, 1), 'webhook')
    broken.flush()
    expect(broken.list()).toHaveLength(1)
    expect(errors).toHaveLength(1)
    expect(UpdateHistory.readLog(join(blocker, 'history.jsonl'))).toEqual([])
  })
})
