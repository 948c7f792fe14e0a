/**
 * Small output helpers shared by commands: status marks, colours only on a TTY (NO_COLOR
 * respected), aligned "label  value" rows, spinners.
 *
 * One set of glyphs everywhere: ✓ done, ! warning, ✗ failed (ora's own ✔/✖ are never shown:
 * spinners end through `stopAndPersist` with these marks).
 */

import {paint, useColor} from '../lib/color.js'

export {paint, useColor, type Color} from '../lib/color.js'

export const GLYPH = {ok: '✓', warn: '!', fail: '✗'} as const

export const mark = {
  ok: (stream?: NodeJS.WriteStream) => paint('green', GLYPH.ok, stream),
  warn: (stream?: NodeJS.WriteStream) => paint('yellow', GLYPH.warn, stream),
  fail: (stream?: NodeJS.WriteStream) => paint('red', GLYPH.fail, stream),
}

/** An error line: `✗ message`, all red on a colour terminal. */
export function errorLine(message: string, stream: NodeJS.WriteStream = process.stderr): string {
  return paint('red', `${GLYPH.fail} ${message}`, stream)
}

/**
 * A line that starts with one of the marks (`✓ `, `! `, `✗ `), coloured by it: the mark green or
 * yellow, a failure red as a whole. Other lines are returned as they are.
 */
export function markedLine(text: string, stream: NodeJS.WriteStream = process.stderr): string {
  if (text.startsWith(`${GLYPH.fail} `)) return paint('red', text, stream)
  if (text.startsWith(`${GLYPH.ok} `)) return mark.ok(stream) + text.slice(1)
  if (text.startsWith(`${GLYPH.warn} `)) return mark.warn(stream) + text.slice(1)
  return text
}

/** A spinner on a terminal (ora), ended with our marks. */
export interface Spinner {
  text: string
  readonly isSpinning: boolean
  succeed(text: string): void
  fail(text: string): void
  stop(): void
  clear(): void
  render(): void
}

/**
 * Loads ora (only when a spinner is wanted: it is not cheap) and returns a function that starts
 * one on `stream`. Colours only when `useColor(stream)` (chalk, under ora, ignores NO_COLOR);
 * stdin is left alone (ora's stdin discarder puts the terminal in raw mode, and ^C then never
 * becomes SIGINT).
 */
export async function loadSpinner(stream: NodeJS.WriteStream = process.stderr): Promise<(text: string) => Spinner> {
  const {default: ora} = await import('ora')
  return (text) => {
    const o = ora({text, stream, color: useColor(stream) ? 'cyan' : false, discardStdin: false}).start()
    return {
      get text() {
        return o.text
      },
      set text(value: string) {
        o.text = value
      },
      get isSpinning() {
        return o.isSpinning
      },
      succeed: (t) => void o.stopAndPersist({symbol: mark.ok(stream), text: t}),
      fail: (t) => void o.stopAndPersist({symbol: mark.fail(stream), text: paint('red', t, stream)}),
      stop: () => void o.stop(),
      clear: () => void o.clear(),
      render: () => void o.render(),
    }
  }
}

/** Rows of "label  value", labels padded to one width, each line indented by `indent`. */
export function rows(pairs: Array<[string, string | undefined]>, indent = '  '): string[] {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined)
  const width = Math.max(0, ...shown.map(([k]) => k.length))
  return shown.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`)
}

/** "1 update" / "3 updates". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`
}
