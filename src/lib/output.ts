/**
 * Small output helpers shared by commands: status marks, colours only on a TTY (NO_COLOR
 * respected), aligned "label  value" rows.
 */

export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true
  return Boolean(stream.isTTY) && process.env.TERM !== 'dumb'
}

const CODES = {green: [32, 39], red: [31, 39], yellow: [33, 39], dim: [2, 22], bold: [1, 22], cyan: [36, 39]} as const
export type Color = keyof typeof CODES

export function paint(color: Color, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  if (!useColor(stream)) return text
  const [open, close] = CODES[color]
  return `\u001B[${open}m${text}\u001B[${close}m`
}

export const mark = {
  ok: (stream?: NodeJS.WriteStream) => paint('green', '✓', stream),
  warn: (stream?: NodeJS.WriteStream) => paint('yellow', '!', stream),
  fail: (stream?: NodeJS.WriteStream) => paint('red', '✗', stream),
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
