/**
 * One colour helper: whether a stream gets colours, and the ANSI sequences (SGR) that paint text.
 *
 * Colours go to a terminal (not TERM=dumb); NO_COLOR (any non-empty value, https://no-color.org)
 * turns them off, FORCE_COLOR (anything but '0' or '') turns them on even off a terminal;
 * NO_COLOR wins over FORCE_COLOR.
 */

/** Whether text written to `stream` gets colours. */
export function useColor(stream: {isTTY?: boolean} = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

const CODES = {
  green: [32, 39],
  red: [31, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
} as const
export type Color = keyof typeof CODES

/** `text` in `color`, always (the caller decided colours are wanted). */
export function style(color: Color, text: string): string {
  const [open, close] = CODES[color]
  return `\u001B[${open}m${text}\u001B[${close}m`
}

/** `text` in `color` when `on`, else `text` as it is. */
export function styleIf(on: boolean | undefined, color: Color, text: string): string {
  return on ? style(color, text) : text
}

/** `text` in `color` when `stream` gets colours (see useColor). */
export function paint(color: Color, text: string, stream: {isTTY?: boolean} = process.stdout): string {
  return styleIf(useColor(stream), color, text)
}

/** Cursor controls: back to the line's start and erase it; clear the screen and its scrollback. */
export const ERASE_LINE = '\r\u001B[K'
export const CLEAR_SCREEN = '\u001B[2J\u001B[3J\u001B[H'
