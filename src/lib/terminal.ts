/**
 * Text from outside (a user's message, a request path) made safe to print on a terminal.
 *
 * A terminal acts on more than ESC: C1 controls (U+0080–U+009F; U+009B is a one-character CSI
 * on many terminals) and the C0 controls move the cursor, clear the screen, set the title or
 * hyperlinks; bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069, and the marks U+200E,
 * U+200F, U+061C) reorder what follows them on the line, so a line can show something else than
 * it holds; U+2028/U+2029 break lines in some viewers. Each of these is shown as its escape
 * (`\u009b`), so what was sent stays visible and nothing acts on the terminal.
 */

// C0 except tab, DEL, C1, bidi marks/overrides/isolates, line and paragraph separators.
const UNSAFE = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/g
const UNSAFE_KEEP_NEWLINES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/g
const UNSAFE_ONE = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/

// One SGR sequence, captured so that split() keeps it at the odd indexes.
const SGR = /(\u001B\[[0-9;]{0,32}m)/

/** `\u009b` for U+009B. */
export function escapeChar(char: string): string {
  return '\\u' + char.charCodeAt(0).toString(16).padStart(4, '0')
}

/** True when `char` (one UTF-16 unit) is something sanitizeForTerminal escapes. */
export function isUnsafeForTerminal(char: string): boolean {
  return UNSAFE_ONE.test(char)
}

/**
 * `text` with every control character (C0 but tab, DEL, C1) and every bidi control escaped as
 * `\uXXXX`. With `keepNewlines`, `\n` is left as it is (for text printed as several lines).
 */
export function sanitizeForTerminal(
  text: string,
  options: {keepNewlines?: boolean; keepColors?: boolean} = {},
): string {
  const unsafe = options.keepNewlines ? UNSAFE_KEEP_NEWLINES : UNSAFE
  if (!options.keepColors) return text.replace(unsafe, escapeChar)
  // Colour and style sequences (SGR: ESC [ digits ; … m) pass; every other escape is shown.
  return text
    .split(SGR)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(unsafe, escapeChar)))
    .join('')
}
