/** A bound on how deep a JSON value from a request may nest (an update nests about ten levels). */

/** An update (edited, replayed or triggered) nested deeper than this is refused before anything walks it. */
export const MAX_EDIT_DEPTH = 64

/** Whether a value nests deeper than `max` objects/arrays (walked without recursion: the value may be a stack bomb). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (item === null || typeof item !== 'object') continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}
