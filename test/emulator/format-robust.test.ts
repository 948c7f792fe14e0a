/** Whatever text a bot sends, the formatter answers a 400 or a text whose entities lie inside it (never a crash). */
import {describe, expect, it} from 'vitest'
import {ApiError} from '../../src/emulator/errors.js'
import {formatText} from '../../src/emulator/format/index.js'

const PIECES = [
  '<',
  '>',
  '/',
  'b',
  'a',
  ' ',
  '"',
  '=',
  '&',
  '#',
  ';',
  'x',
  '1',
  '*',
  '_',
  '~',
  '|',
  '`',
  '[',
  ']',
  '(',
  ')',
  '!',
  '\\',
  '\n',
  '.',
  '@',
  '😀',
  'é',
  'href',
  'code',
  'pre',
  'span',
  'class',
  'tg-spoiler',
  'blockquote',
  'http://',
  'tg://user?id=5',
  '\r',
  '\t',
  'tg://emoji?id=1',
  'language-',
  '$',
  'ABC',
  'expandable',
]

/** A small deterministic generator (the same inputs every run). */
function* inputs(count: number): Generator<string> {
  let seed = 12345
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (let i = 0; i < count; i++) {
    let s = ''
    for (let j = 1 + next(16); j > 0; j--) s += PIECES[next(PIECES.length)]
    yield s
  }
}

describe('formatting never crashes', () => {
  it('gives a 400 or entities inside the text, for 3000 generated inputs in each mode', () => {
    const outcomes = {ok: 0, refused: 0}
    for (const raw of inputs(3000)) {
      for (const parseMode of ['HTML', 'MarkdownV2', 'Markdown', undefined]) {
        try {
          const {text, entities} = formatText({raw, parseMode, kind: 'text', user: (id) => ({id})})()
          for (const e of entities) {
            expect(e.offset, `${parseMode} ${JSON.stringify(raw)}`).toBeGreaterThanOrEqual(0)
            expect(e.length).toBeGreaterThan(0)
            expect(e.offset + e.length).toBeLessThanOrEqual(text.length)
          }
          outcomes.ok++
        } catch (err) {
          expect(err, `${parseMode} ${JSON.stringify(raw)}`).toBeInstanceOf(ApiError)
          expect((err as ApiError).code).toBe(400)
          outcomes.refused++
        }
      }
    }
    expect(outcomes.ok).toBeGreaterThan(1000)
    expect(outcomes.refused).toBeGreaterThan(1000)
  })
})
