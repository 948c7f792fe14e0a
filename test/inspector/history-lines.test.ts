import {describe, expect, it} from 'vitest'

import {FailedCallLines, REPEAT_WINDOW_MS, type FailedCallLine} from '../../src/inspector/history/failed-lines.js'
import type {ApiCall, UpdateEntry} from '../../src/inspector/types.js'

function failure(o: Partial<ApiCall> = {}): ApiCall {
  return {
    method: 'sendMessage',
    ok: false,
    errorCode: 400,
    description: 'Bad Request: chat not found',
    ms: 2,
    params: {},
    time: '2026-01-01T10:00:00.000Z',
    ...o,
  }
}

function entry(seq: number): UpdateEntry {
  return {
    updateId: 100 + seq,
    seq,
    time: '2026-01-01T10:00:00.000Z',
    type: 'message',
    update: {},
    answer: null,
    calls: [],
    source: 'webhook',
  }
}

function lines() {
  const clock = {now: 0}
  const out: FailedCallLine[] = []
  return {
    lines: new FailedCallLines(
      (l) => out.push(l),
      () => clock.now,
    ),
    out,
    clock,
  }
}

describe('FailedCallLines', () => {
  it('holds the lines of an update in flight until its own line is out; shows the others at once', () => {
    const {lines: l, out} = lines()
    const busy = entry(1)
    l.failed(failure({explanation: 'The bot has no chat with that id.'}), busy, true)
    l.failed(
      failure({method: 'getUpdates', errorCode: 409, description: 'Conflict: terminated by other getUpdates request'}),
      undefined,
      false,
    )
    expect(out.map((e) => e.text)).toEqual(['  ↳ getUpdates 409 Conflict: terminated by other getUpdates request'])
    l.finished(busy)
    expect(out.at(-1)).toMatchObject({
      type: 'api-call',
      method: 'sendMessage',
      errorCode: 400,
      updateId: 101,
      seq: 1,
      text: '  ↳ sendMessage 400 Bad Request: chat not found — The bot has no chat with that id.',
    })
    l.finished(busy)
    expect(out).toHaveLength(2)
  })

  it('counts the same failure again within 30 s instead of printing it, and says so with the next one shown', () => {
    const {lines: l, out, clock} = lines()
    const conflict = failure({method: 'getUpdates', errorCode: 409, description: 'Conflict'})
    for (let i = 0; i < 5; i++) {
      l.failed(conflict, undefined, false)
      clock.now += 1000
    }
    expect(out).toHaveLength(1)
    clock.now += REPEAT_WINDOW_MS
    l.failed(conflict, undefined, false)
    expect(out).toHaveLength(2)
    expect(out[1]).toMatchObject({repeated: 4})
    expect(out[1].text).toBe('  ↳ getUpdates 409 Conflict (4 more like it before, not shown)')
    // The same failure for another update is that update's own line.
    l.failed(conflict, entry(7), false)
    expect(out).toHaveLength(3)
  })

  it('keeps at most 20 lines waiting per update and says how many more failed', () => {
    const {lines: l, out} = lines()
    const busy = entry(2)
    for (let i = 0; i < 50; i++)
      l.failed(failure({params: {chat_id: i}, description: `Bad Request: chat ${i} not found`}), busy, true)
    l.finished(busy)
    expect(out).toHaveLength(20)
    expect(out.at(-1)!.text).toMatch(/\(and 30 more failed calls for this update: see the inspector\)$/)
  })
})
