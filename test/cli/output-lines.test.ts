/**
 * The line styling of src/cli/output.ts and src/cli/render/dev.ts, on a stream that says it is a
 * terminal: marks and colours per kind of line, and with NO_COLOR (or no terminal) exactly the
 * same text with no escape code.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {isFailureLine, logLine} from '../../src/cli/render/dev.js'
import {errorLine, GLYPH, mark, markedLine} from '../../src/cli/output.js'

const tty = {isTTY: true} as NodeJS.WriteStream
const pipe = {isTTY: false} as NodeJS.WriteStream
const saved = {NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR, TERM: process.env.TERM}
beforeEach(() => {
  delete process.env.NO_COLOR
  delete process.env.FORCE_COLOR
  process.env.TERM = 'xterm'
})
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})

const ok = {type: 'update', status: 200, text: '10:42:01 ← #1 message chat 1 "hi" → 200 1 ms'}
const failed = {type: 'update', status: 500, text: '10:42:01 ✗ #2 message chat 1 "x" → 500 1 ms'}
const gone = {
  type: 'update',
  status: 499,
  text: '10:42:01 ✗ #3 message chat 1 "x" → 499 600 ms (Telegram closed the connection)',
}
const repeat = {
  type: 'update',
  status: 200,
  repeat: true,
  text: '10:42:01 ↺ #1 message chat 1 "hi" → 200 0 ms (sent again by Telegram…)',
}
const refused = {
  type: 'rejected',
  text: '10:42:01 ✗ refused POST (webhook path) → 401 (wrong or missing secret token; not forwarded)',
}
const call = {type: 'api-call', text: "  ↳ sendMessage 400 Bad Request: can't parse entities"}

describe('output lines', () => {
  it('one set of marks: ✓ ! ✗', () => {
    expect(GLYPH).toEqual({ok: '✓', warn: '!', fail: '✗'})
    expect([mark.ok(pipe), mark.warn(pipe), mark.fail(pipe)]).toEqual(['✓', '!', '✗'])
  })

  it('the update log is dim; failures (non-2xx, 499, refusals, failing calls) are red, never dim', () => {
    expect(logLine(ok, tty)).toBe(`\u001B[2m${ok.text}\u001B[22m`)
    expect(logLine(repeat, tty)).toBe(`\u001B[2m${repeat.text}\u001B[22m`)
    for (const line of [failed, gone, refused, call]) {
      expect(isFailureLine(line), line.text).toBe(true)
      expect(logLine(line, tty)).toBe(`\u001B[31m${line.text}\u001B[39m`)
    }
  })

  it('a failing call logged under an update that went well is red, with its explanation; the update line stays dim', () => {
    const entry = {
      type: 'update',
      status: 200,
      text: `${ok.text}\n  ↳ sendMessage 400 Bad Request: can't parse entities\n    Escape the text or drop parse_mode.`,
    }
    expect(logLine(entry, tty).split('\n')).toEqual([
      `\u001B[2m${ok.text}\u001B[22m`,
      "\u001B[31m  ↳ sendMessage 400 Bad Request: can't parse entities\u001B[39m",
      '\u001B[31m    Escape the text or drop parse_mode.\u001B[39m',
    ])
    expect(logLine(entry, pipe)).toBe(entry.text)
  })

  it('errors red as a whole, ✓ green and ! yellow as marks', () => {
    expect(errorLine('No bot token.', tty)).toBe('\u001B[31m✗ No bot token.\u001B[39m')
    expect(markedLine('✗ The bot exited with code 1.', tty)).toBe('\u001B[31m✗ The bot exited with code 1.\u001B[39m')
    expect(markedLine('✓ Bot listening on port 1 (2 ms)', tty)).toBe(
      '\u001B[32m✓\u001B[39m Bot listening on port 1 (2 ms)',
    )
    expect(markedLine('! bot cleanup: timed out', tty)).toBe('\u001B[33m!\u001B[39m bot cleanup: timed out')
    expect(markedLine('■ bot dev ended', tty)).toBe('■ bot dev ended')
  })

  it('NO_COLOR or a pipe: the same text, byte for byte, no escape code', () => {
    const all = [ok, repeat, failed, gone, refused, call]
    const render = (stream: NodeJS.WriteStream) => [
      ...all.map((l) => logLine(l, stream)),
      errorLine('No bot token.', stream),
      markedLine('✓ done', stream),
      markedLine('! careful', stream),
    ]
    const expected = [...all.map((l) => l.text), '✗ No bot token.', '✓ done', '! careful']
    expect(render(pipe)).toEqual(expected)
    process.env.NO_COLOR = '1'
    expect(render(tty)).toEqual(expected)
  })
})
