/**
 * The history log writes an update that arrived as raw JSON (the relay's body) as that JSON,
 * redacted and on one line, instead of serialising the parsed object again: what readLog gives back
 * is the same update, whatever whitespace Telegram put in it, and nothing in a body can add fields
 * to the line (only valid JSON is written that way).
 */
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {updateFacts} from '../../src/inspector/history/shape.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'

describe('history log: updates written as the JSON they arrived in', () => {
  it('one line per entry, the update given back equal, the token redacted', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bot-history-json-')), 'history.jsonl')
    const history = new UpdateHistory({logFile: file, secrets: [TOKEN]})
    // Telegram's own layout: a line break after update_id; a text with a token and a line break of its own.
    const raw = `{"update_id":7,\n"message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"a ${TOKEN}\\nb"}}`
    const kept =
      '{"update_id":7, "message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"a <token>\\nb"}}'
    expect(updateFacts(Buffer.from(raw), [TOKEN]).json).toBe(kept)
    const entry = history.begin(Buffer.from(raw), 'webhook')
    history.finish(entry, {status: 200, body: '{}'}, 1.5)
    history.flush()
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain(TOKEN)
    expect(lines[0]).toContain(`"update":${kept}}`)
    const [back] = UpdateHistory.readLog(file)
    expect(back.update).toEqual({
      update_id: 7,
      message: {message_id: 1, date: 1, chat: {id: 5, type: 'private'}, text: 'a <token>\nb'},
    })
    expect(back).toMatchObject({updateId: 7, type: 'message', chatId: 5, answer: {status: 200, body: '{}'}, ms: 1.5})
  })

  it('a body that is not valid JSON is never written as it is', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bot-history-json-')), 'history.jsonl')
    const history = new UpdateHistory({logFile: file})
    // Valid JSON would end at the first `}`: as raw text it would add fields to the line.
    const forged = '{"update_id":8,"x":1},"seq":999,"session":"forged"'
    expect(updateFacts(Buffer.from(forged), []).json).toBeUndefined()
    const entry = history.begin(Buffer.from(forged), 'webhook')
    history.flush()
    const [back] = UpdateHistory.readLog(file)
    expect(back.seq).toBe(entry.seq)
    expect(back.update).toMatchObject({_unparsable: expect.stringContaining('forged')})
  })
})
