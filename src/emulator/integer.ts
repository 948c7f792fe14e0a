/** Integers in parameters, read as the Bot API server reads them. */

/**
 * td::to_integer<int32|int64> (tdutils/td/utils/misc.h): an optional `-`, then the digits up to the first other
 * character; nothing is skipped first, so `+5`, ` 5` and `0x5` read as 0 and `12abc` as 12. It wraps as the C++
 * unsigned arithmetic does (two's complement to the type's width). An int64 beyond 2^53 is not exact here.
 */
export function toInteger(text: string, bits: 32 | 64 = 64): number {
  let i = 0
  const negative = text.charCodeAt(0) === 45
  if (negative) i = 1
  const start = i
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) break
    i++
  }
  if (i === start) return 0
  if (i - start < 16 && bits === 64) {
    const n = Number(text.slice(start, i))
    return negative ? -n : n
  }
  const big = BigInt(text.slice(start, i))
  return Number(BigInt.asIntN(bits, negative ? -big : big))
}
