/** Dice notation for /roll: "2d6", "d20", "3d8+2". Pure, so it is easy to test and reuse. */
export interface Roll {
  spec: string
  rolls: number[]
  modifier: number
  total: number
}

const NOTATION = /^(\d{0,2})d(\d{1,4})([+-]\d{1,4})?$/i

/** Roll dice, or return an error message when the notation is not understood. */
export function roll(input: string, random: () => number = Math.random): Roll | {error: string} {
  const spec = input.trim() || '1d6'
  const m = NOTATION.exec(spec)
  if (!m) return {error: `"${spec}" is not dice notation. Try /roll 2d6, /roll d20 or /roll 3d8+2.`}
  const count = m[1] ? Number(m[1]) : 1
  const sides = Number(m[2])
  const modifier = m[3] ? Number(m[3]) : 0
  if (count < 1 || count > 20) return {error: 'Roll between 1 and 20 dice at a time.'}
  if (sides < 2) return {error: 'A die needs at least 2 sides.'}
  const rolls = Array.from({length: count}, () => 1 + Math.floor(random() * sides))
  const total = rolls.reduce((a, b) => a + b, 0) + modifier
  return {spec: spec.toLowerCase(), rolls, modifier, total}
}

export function describeRoll(result: Roll): string {
  const parts = result.rolls.join(' + ')
  const mod = result.modifier ? ` ${result.modifier > 0 ? '+' : '-'} ${Math.abs(result.modifier)}` : ''
  return result.rolls.length === 1 && !result.modifier
    ? `🎲 ${result.spec}: ${result.total}`
    : `🎲 ${result.spec}: ${parts}${mod} = ${result.total}`
}
