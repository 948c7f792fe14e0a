/**
 * A request's form and JSON parameters read byte by byte as the Bot API server's HTTP reader reads them (td
 * tdnet/td/net/HttpReader.cpp `parse_parameters` and `parse_json_parameters`, with tdutils/td/utils/JsonBuilder.cpp
 * `json_string_decode` and `do_json_skip`):
 *
 * - a JSON body is read parameter by parameter; at the first error the reader stops and logs it, and the parameters
 *   read before it stay: a body cut off or with bytes after its end still runs the method with them;
 * - a JSON string value is decoded (its escapes); any other value keeps its raw text (`1e3`, `1.50`, `{ "a" : 1 }`
 *   reach the method as written, not re-encoded);
 * - a form's `+` is a space and `%XX` a byte; an invalid `%` stays as it is;
 * - bytes are taken as they come: a value that is not valid UTF-8 (td `check_utf8`, tdutils/td/utils/utf8.cpp) is
 *   flagged, for the method to answer td's text, never turned into U+FFFD silently.
 */
import {errorText} from '../errors.js'

/** A parameter as read: its name and value as text, and whether either's bytes were not valid UTF-8. */
export type AddArg = (name: string, value: string, badUtf8: boolean) => void

const strict = new TextDecoder('utf-8', {fatal: true})
const lossy = new TextDecoder('utf-8')

/** Bytes as text, and whether they are not valid UTF-8 (td check_utf8: the same bytes as WHATWG's strict decoder). */
export function decodeUtf8(bytes: Uint8Array): [string, boolean] {
  let ascii = true
  for (let i = 0; i < bytes.length; i++)
    if (bytes[i] >= 0x80) {
      ascii = false
      break
    }
  if (ascii) return [Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'), false]
  try {
    return [strict.decode(bytes), false]
  } catch {
    return [lossy.decode(bytes), true]
  }
}

const hex = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : 16

/** td url_decode_inplace(decode_plus = true): `+` → space, `%XX` → the byte, a `%` not followed by two hex digits kept. */
function urlDecode(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(raw.length)
  let n = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === 43) out[n++] = 32
    else if (c === 37 && i + 2 < raw.length && hex(raw[i + 1]) < 16 && hex(raw[i + 2]) < 16) {
      out[n++] = hex(raw[i + 1]) * 16 + hex(raw[i + 2])
      i += 2
    } else out[n++] = c
  }
  return out.subarray(0, n)
}

/** td HttpReader::parse_parameters: `&`-separated `key=value` pairs, each url-decoded. */
export function readForm(raw: Uint8Array, add: AddArg): void {
  let start = 0
  while (start < raw.length) {
    let end = raw.indexOf(38, start)
    if (end < 0) end = raw.length
    const pair = raw.subarray(start, end)
    start = end + 1
    const eq = pair.indexOf(61)
    const [key, badKey] = decodeUtf8(urlDecode(eq < 0 ? pair : pair.subarray(0, eq)))
    const [value, badValue] = decodeUtf8(urlDecode(eq < 0 ? new Uint8Array(0) : pair.subarray(eq + 1)))
    add(key, value, badKey || badValue)
  }
}

class JsonError extends Error {}

/** td's Parser over bytes, with what parse_json_parameters, json_string_decode and do_json_skip use of it. */
class Reader {
  pos = 0
  /** The body as text when all its bytes are ASCII (most bodies): a value is then a slice of it, not a decoded copy. */
  readonly ascii: string | undefined
  constructor(readonly b: Uint8Array) {
    let ascii = true
    for (let i = 0; i < b.length; i++)
      if (b[i] >= 0x80) {
        ascii = false
        break
      }
    this.ascii = ascii ? Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1') : undefined
  }
  /** The bytes [begin, end) as text, and whether they are not valid UTF-8. */
  text(begin: number, end: number): [string, boolean] {
    return this.ascii !== undefined ? [this.ascii.slice(begin, end), false] : decodeUtf8(this.b.subarray(begin, end))
  }
  /** decodeString as text: a string without escapes is read in place. */
  decodeText(): [string, boolean] {
    if (this.peek() === 34) {
      const b = this.b
      const begin = this.pos + 1
      let i = begin
      while (i < b.length && b[i] !== 34 && b[i] !== 92) i++
      if (i < b.length && b[i] === 34) {
        this.pos = i + 1
        return this.text(begin, i)
      }
    }
    return decodeUtf8(this.decodeString())
  }
  get empty(): boolean {
    return this.pos >= this.b.length
  }
  /** The next byte, 0 at the end (td's Parser reads the terminating NUL). */
  peek(): number {
    return this.pos < this.b.length ? this.b[this.pos] : 0
  }
  skipWhitespace(): void {
    // td Parser::skip_whitespaces: space, tab, \r, \n
    while (this.pos < this.b.length) {
      const c = this.b[this.pos]
      if (c !== 32 && c !== 9 && c !== 13 && c !== 10) break
      this.pos++
    }
  }
  trySkip(c: number): boolean {
    if (this.peek() !== c || this.empty) return false
    this.pos++
    return true
  }
  trySkipWord(word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.b[this.pos + i] !== word.charCodeAt(i)) return false
    this.pos += word.length
    return true
  }

  /** json_string_decode: the decoded bytes of a string (the opening quote next). */
  decodeString(): Uint8Array {
    if (!this.trySkip(34)) throw new JsonError(`Opening '"' expected`)
    const b = this.b
    let i = this.pos
    while (i < b.length && b[i] !== 34 && b[i] !== 92) i++
    if (i < b.length && b[i] === 34) {
      // no escape: the bytes as they are (most strings)
      const value = b.subarray(this.pos, i)
      this.pos = i + 1
      return value
    }
    const out: number[] = Array.from(b.subarray(this.pos, i))
    while (true) {
      if (i >= b.length) throw new JsonError(`Closing '"' not found`)
      const c = b[i]
      if (c === 34) {
        this.pos = i + 1
        return Uint8Array.from(out)
      }
      if (c !== 92) {
        out.push(c)
        i++
        continue
      }
      i++
      if (i >= b.length) throw new JsonError(`Closing '"' not found`)
      const e = b[i]
      if (e !== 117) {
        // \b \f \n \r \t, and any other escaped byte as itself
        out.push(e === 98 ? 8 : e === 102 ? 12 : e === 110 ? 10 : e === 114 ? 13 : e === 116 ? 9 : e)
        i++
        continue
      }
      i++
      if (i + 4 > b.length) throw new JsonError('\\u has less than 4 symbols')
      let num = 0
      for (let k = 0; k < 4; k++, i++) {
        const d = hex(b[i])
        if (d === 16) throw new JsonError('Invalid \\u -- not hex digit')
        num = num * 16 + d
      }
      if (num > 0xd7ff && num < 0xe000 && i + 6 <= b.length && b[i] === 92 && b[i + 1] === 117) {
        let next = 0
        let j = i + 2
        for (let k = 0; k < 4; k++, j++) {
          const d = hex(b[j])
          if (d === 16) throw new JsonError('Invalid \\u -- not hex digit')
          next = next * 16 + d
        }
        if (next > 0xd7ff && next < 0xe000) {
          num = (((num & 0x3ff) << 10) | (next & 0x3ff)) + 0x10000
          i = j
        }
      }
      // append_utf8_character_unsafe: a lone surrogate becomes its three bytes (ED A0..BF xx), invalid UTF-8
      if (num <= 0x7f) out.push(num)
      else if (num <= 0x7ff) out.push(0xc0 | (num >> 6), 0x80 | (num & 0x3f))
      else if (num <= 0xffff) out.push(0xe0 | (num >> 12), 0x80 | ((num >> 6) & 0x3f), 0x80 | (num & 0x3f))
      else out.push(0xf0 | (num >> 18), 0x80 | ((num >> 12) & 0x3f), 0x80 | ((num >> 6) & 0x3f), 0x80 | (num & 0x3f))
    }
  }

  /** json_string_skip: past a string without decoding it. */
  skipString(): void {
    if (!this.trySkip(34)) throw new JsonError(`Opening '"' expected`)
    const b = this.b
    let i = this.pos
    while (true) {
      if (i >= b.length) throw new JsonError(`Closing '"' not found`)
      if (b[i] === 34) {
        this.pos = i + 1
        return
      }
      if (b[i] === 92) {
        i++
        if (i >= b.length) throw new JsonError(`Closing '"' not found`)
        if (b[i] === 117) {
          i++
          if (i + 4 > b.length) throw new JsonError('\\u has less than 4 symbols')
          for (let k = 0; k < 4; k++, i++) if (hex(b[i]) === 16) throw new JsonError('Invalid \\u -- not hex digit')
          continue
        }
      }
      i++
    }
  }

  /** do_json_skip: past one value of at most `depth` levels. */
  skipValue(depth: number): void {
    if (depth < 0) throw new JsonError('Too big object depth')
    this.skipWhitespace()
    const c = this.peek()
    if (c === 102) {
      if (!this.trySkipWord('false')) throw new JsonError("Starts with 'f' -- false expected")
    } else if (c === 116) {
      if (!this.trySkipWord('true')) throw new JsonError("Starts with 't' -- true expected")
    } else if (c === 110) {
      if (!this.trySkipWord('null')) throw new JsonError("Starts with 'n' -- null expected")
    } else if (c === 34) this.skipString()
    else if (c === 91 || c === 123) {
      const object = c === 123
      const close = object ? 125 : 93
      this.pos++
      this.skipWhitespace()
      if (this.trySkip(close)) return
      while (true) {
        if (this.empty) throw new JsonError('Unexpected end')
        if (object) {
          this.skipString()
          this.skipWhitespace()
          if (!this.trySkip(58)) throw new JsonError("':' expected")
        }
        this.skipValue(depth - 1)
        this.skipWhitespace()
        if (this.trySkip(close)) return
        if (this.trySkip(44)) {
          this.skipWhitespace()
          continue
        }
        throw new JsonError('Unexpected symbol')
      }
    } else if (c === 45 || c === 43 || c === 46 || (c >= 48 && c <= 57)) {
      while (!this.empty) {
        const d = this.peek()
        if (d === 45 || d === 43 || d === 46 || d === 101 || d === 69 || (d >= 48 && d <= 57)) this.pos++
        else break
      }
    } else if (c === 0) throw new JsonError('Unexpected end')
    else if (c > 0 && c < 127) throw new JsonError(`Unexpected symbol '${String.fromCharCode(c)}'`)
    else throw new JsonError('Unexpected symbol')
  }
}

/** td's DEFAULT_MAX_DEPTH in parse_json_parameters. */
const MAX_DEPTH = 100

/**
 * td HttpReader::parse_json_parameters: the body's parameters through `add`, in order, until its end or its first
 * error. Returns the error's text (`Bad Request: …`, which the server only logs), or undefined.
 */
export function readJsonArgs(raw: Uint8Array, add: AddArg): string | undefined {
  if (raw.length === 0) return undefined
  const p = new Reader(raw)
  p.skipWhitespace()
  if (p.peek() === 34) {
    let value: [string, boolean]
    try {
      value = p.decodeText()
    } catch (e) {
      return `Bad Request: can't parse string content: ${errorText(e)}`
    }
    if (!p.empty) return 'Bad Request: extra data after string'
    add('content', value[0], value[1])
    return undefined
  }
  if (!p.trySkip(123)) return 'Bad Request: JSON object expected'
  while (true) {
    p.skipWhitespace()
    if (p.trySkip(125)) {
      p.skipWhitespace()
      return p.empty ? undefined : 'Bad Request: unexpected data after object end'
    }
    if (p.empty) return 'Bad Request: expected parameter name'
    let key: [string, boolean]
    try {
      key = p.decodeText()
    } catch (e) {
      return `Bad Request: can't parse parameter name: ${errorText(e)}`
    }
    p.skipWhitespace()
    if (!p.trySkip(58)) return "Bad Request: can't parse object, ':' expected"
    p.skipWhitespace()
    let value: [string, boolean]
    try {
      if (p.peek() === 34) value = p.decodeText()
      else {
        const begin = p.pos
        p.skipValue(MAX_DEPTH)
        value = p.text(begin, p.pos)
      }
    } catch (e) {
      return `Bad Request: can't parse parameter value: ${errorText(e)}`
    }
    add(key[0], value[0], key[1] || value[1])
    p.skipWhitespace()
    if (p.peek() !== 125 && !p.trySkip(44)) return 'Bad Request: expected next field or object end'
  }
}
