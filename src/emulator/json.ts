/**
 * How deep a JSON value from a request may nest. V8's JSON.parse does not recurse, but everything that walks the value
 * afterwards does (JSON.stringify for an answer, a record, a webhook POST; the validators): an update nested 200,000
 * levels deep would overflow the stack there. So every JSON the emulator reads is bounded before it is parsed.
 *
 * - Bot API parameters: td's own bound, `DEFAULT_MAX_DEPTH = 100` of json_decode (a parameter's value) and of the
 *   JSON body reader (each top-level value); a deeper value is a parse error, as on the server.
 * - Control API bodies: 64, the bound `bot dev` applies to an update (src/lib/json-depth.ts MAX_EDIT_DEPTH; the
 *   emulator imports nothing outside src/emulator, so the number is repeated here). A real update nests about ten.
 */

/** td's DEFAULT_MAX_DEPTH (tdutils JsonBuilder.h json_decode, tdnet HttpReader.cpp parse_json_parameters). */
export const MAX_PARAM_DEPTH = 100

/** The control API's bound on a body (the same as `bot dev`'s on an update). */
export const MAX_CONTROL_DEPTH = 64

/**
 * Whether JSON text opens more than `max` objects/arrays inside one another (brackets inside strings do not count).
 * One pass over the characters, no allocation; text shorter than `max` + 1 characters cannot, and is not scanned.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max) return true
    } else if (c === 125 || c === 93) depth--
  }
  return false
}

/**
 * Whether text that JSON.parse accepted nests deeper than `max`: valid JSON that deep has at least `max` + 1 opening and
 * as many closing brackets, so shorter text (most bodies) is not scanned at all.
 */
export function parsedDeeperThan(text: string, max: number): boolean {
  return text.length >= 2 * (max + 1) && nestsDeeperThan(text, max)
}

/** JSON.parse with the depth bound: text nested deeper than `max` throws a SyntaxError, as malformed JSON does. */
export function parseJsonBounded(text: string, max = MAX_PARAM_DEPTH): unknown {
  const value: unknown = JSON.parse(text) // V8's parser does not recurse: it is what comes after that must not walk it
  if (parsedDeeperThan(text, max)) throw new SyntaxError(`JSON nested deeper than ${max} levels`)
  if (value !== null && typeof value === 'object' && ODD_NUMBER.test(text)) noteWrittenNumbers(text, value)
  return value
}

/** Whether a parsed value nests deeper than `max` objects/arrays (walked without recursion). */
export function valueDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false
  const stack: Array<[object, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (depth > max) return true
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}

/**
 * Numbers as the request wrote them, for the members of objects and arrays that parseJsonBounded gave: only those
 * whose literal is not what JavaScript prints for the parsed number (`1.0`, `1e0`, `-0`, integers past 2^53…). td's JSON reader keeps a number as its literal (tdutils JsonBuilder.cpp, JsonValue::get_number), and
 * JsonObject::get_optional_int_field / get_required_int_field / …_long_field read an integer from that text with
 * td::to_integer_safe (tdutils misc.h), which wants the integer's own decimal form: `{"message_id": 1.0}` answers
 * `Field "message_id" must be a valid Number` where JSON.parse gives 1.
 */
const writtenNumbers = new WeakMap<object, Map<string, string>>()

/** Text that may hold a number literal JavaScript would print otherwise (a point, an exponent, -0, 16+ digits). */
const ODD_NUMBER = /\d[.eE]|-0|\d{16}/

function noteWrittenNumbers(text: string, value: unknown): void {
  let i = 0
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  }
  const skipString = (): void => {
    i++
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
  }
  const note = (holder: unknown, key: string, literal: string): void => {
    if (holder === null || typeof holder !== 'object') return
    const v: unknown = Reflect.get(holder, key)
    let map = writtenNumbers.get(holder)
    if (typeof v === 'number' && String(v) !== literal) {
      if (!map) writtenNumbers.set(holder, (map = new Map()))
      map.set(key, literal)
    } else map?.delete(key) // (a later duplicate key wins, as in JSON.parse)
  }
  const member = (holder: unknown, key: string): void => {
    space()
    const c = text.charCodeAt(i)
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i
      while (i < text.length && /[-0-9eE+.]/.test(text[i])) i++
      note(holder, key, text.slice(start, i))
      return
    }
    const child: unknown = holder !== null && typeof holder === 'object' ? Reflect.get(holder, key) : undefined
    walk(child)
  }
  // the text is valid JSON (JSON.parse took it) no deeper than MAX_PARAM_DEPTH: no checks, bounded recursion
  const walk = (v: unknown): void => {
    space()
    const c = text[i]
    if (c === '{') {
      i++
      space()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        space()
        const start = i
        skipString()
        const key = String(JSON.parse(text.slice(start, i)))
        space()
        i++ // :
        member(v, key)
        space()
        if (text[i++] === '}') return
      }
    }
    if (c === '[') {
      i++
      space()
      if (text[i] === ']') {
        i++
        return
      }
      for (let index = 0; ; index++) {
        member(Array.isArray(v) ? v : undefined, String(index))
        space()
        if (text[i++] === ']') return
      }
    }
    if (c === '"') skipString()
    else while (i < text.length && /[a-z0-9eE+.-]/.test(text[i])) i++
  }
  walk(value)
}

/**
 * The text td reads an integer field of a JSON object from (JsonObject::get_*_int_field): a string as it is, a number
 * as it was written.
 */
export function integerFieldText(holder: object, key: string): string | undefined {
  const v: unknown = Reflect.get(holder, key)
  if (typeof v === 'string') return v
  if (typeof v !== 'number') return undefined
  return writtenNumbers.get(holder)?.get(key) ?? String(v)
}

/**
 * An integer field of a JSON object read as td reads it (tdutils JsonBuilder.cpp get_integer_field:
 * td::to_integer_safe<int32/int64> of the string or the number as written): its own decimal form within range, else
 * undefined (td: `Field "…" must be a valid Number`). A number beyond 2^53 comes back rounded (a JavaScript number).
 */
export function integerField(holder: object, key: string, bits: 32 | 64): number | undefined {
  const text = integerFieldText(holder, key)
  if (text === undefined || !/^(0|-?[1-9]\d*)$/.test(text)) return undefined
  const n = BigInt(text)
  return BigInt.asIntN(bits, n) === n ? Number(n) : undefined
}

/**
 * td's JsonObject::get_optional_int_field / get_required_int_field / get_optional_long_field /
 * get_required_long_field (tdutils JsonBuilder.cpp), texts and all, for the readers of the Bot API server's JSON
 * objects (telegram-bot-api Client.cpp): an absent field is undefined, or `Can't find field "X"` when required; a
 * String or a Number goes through get_integer_field (td::to_integer_safe of the string, or of the number as written),
 * anything else (null too: a present field) is `Field "X" must be a Number`; a text that is not the integer's own
 * decimal form within range is `Field "X" must be a valid Number` (`1.0`, `1e0`, `-0`, `" 5"`, `""`, 2^31 for an
 * int). Returns the decimal text (exact for a long); the errors are plain Errors for the caller to prefix.
 */
export function tdIntegerFieldText(holder: object, name: string, bits: 32 | 64, required = false): string | undefined {
  if (!Object.hasOwn(holder, name)) {
    if (required) throw new Error(`Can't find field "${name}"`)
    return undefined
  }
  const v: unknown = Reflect.get(holder, name)
  if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`Field "${name}" must be a Number`)
  const text = integerFieldText(holder, name)!
  if (!/^(0|-?[1-9]\d*)$/.test(text) || BigInt.asIntN(bits, BigInt(text)) !== BigInt(text))
    throw new Error(`Field "${name}" must be a valid Number`)
  return text
}

/** The same for an int field (get_optional_int_field / get_required_int_field), as a number. */
export function tdIntField(holder: object, name: string, required = false): number | undefined {
  const text = tdIntegerFieldText(holder, name, 32, required)
  return text === undefined ? undefined : Number(text)
}
