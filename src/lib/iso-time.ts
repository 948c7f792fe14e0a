/**
 * `new Date(ms).toISOString()`, cached for the last ms asked for: updates that arrive or are
 * answered in the same millisecond (many, under load) share one string, and toISOString is one of
 * the dearer calls made per update.
 */
let lastMs = Number.NaN
let lastText = ''

export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastText
}
