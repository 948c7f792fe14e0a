/** "Did you mean …?": the candidate closest to what was typed, by edit distance. */

/** Edit distance (insertions, deletions, substitutions), the rule @oclif/plugin-not-found uses. */
export function distance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** The candidate closest to `typed`, or undefined when there is none (or, with `maxDistance`, none that close). */
export function closest(
  typed: string,
  candidates: string[],
  maxDistance = Number.POSITIVE_INFINITY,
): string | undefined {
  let best: {id: string; d: number} | undefined
  for (const candidate of candidates) {
    const d = distance(typed, candidate)
    if (!best || d < best.d) best = {id: candidate, d}
  }
  return best && best.d <= maxDistance ? best.id : undefined
}
