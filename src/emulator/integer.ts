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

/**
 * td::to_double (tdutils/td/utils/misc.cpp): `std::stringstream >> double` in the classic locale, as libstdc++ reads
 * it. Leading white space is skipped; then the longest run of an optional sign, digits, one decimal point and an
 * exponent (`e`/`E` after a digit, an optional sign, digits) is taken, and converted whole or not at all: `12abc` is
 * 12, `1,5` is 1, `.5` is 0.5 and `+5` is 5, but `1e` (an exponent without digits), `.`, `-`, `0x10`'s `x`…, `inf`,
 * `nan` and the empty string are 0 (the read fails, the result is 0). A value too large for a double is the largest
 * double of its sign (C++11 num_get), never Infinity.
 */
export function toDouble(text: string): number {
  let i = 0
  while (i < text.length && /\s/.test(text[i])) i++
  const start = i
  if (text[i] === '+' || text[i] === '-') i++
  let digits = false
  let point = false
  let exponent = false
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) digits = true
    else if (c === 46 && !point && !exponent) point = true
    else if ((c === 101 || c === 69) && digits && !exponent) {
      exponent = true
      if (text[i + 1] === '+' || text[i + 1] === '-') i++
    } else break
  }
  const taken = text.slice(start, i)
  // strtod must consume all that was taken: it does when the mantissa has a digit and an exponent has its digits
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(taken)) return 0
  const value = Number(taken)
  if (value === Number.POSITIVE_INFINITY) return Number.MAX_VALUE
  if (value === Number.NEGATIVE_INFINITY) return -Number.MAX_VALUE
  return value
}
