/**
 * Request parameters as the Bot API server reads them (Query.h Query::arg): query string first, then the body
 * (form, JSON or multipart). A lookup takes the first match, so the query string wins on a duplicate key.
 * Every value is text: non-string JSON values keep their raw JSON text.
 */
import type {IncomingHttpHeaders} from 'node:http'
import type {Readable} from 'node:stream'
import {ApiError} from '../errors.js'
import {
  BODY_TOO_BIG,
  MAX_BODY,
  MAX_PARAMETERS,
  type UploadedFile,
  decodedBody,
  drain,
  readAll,
  readMultipart,
} from './body.js'
import {parseJsonBounded} from '../json.js'
import {readForm, readJsonArgs} from './td-args.js'
import {toInteger} from '../integer.js'

export {toInteger} from '../integer.js'

export type {UploadedFile} from './body.js'

export class Params {
  /** Names and values, in the order read: [name, value, name, value, …] (no pair array per parameter). */
  private readonly values: string[] = []
  readonly files = new Map<string, UploadedFile>()
  /** Parameters whose bytes (name or value) were not valid UTF-8 (td check_utf8); their text holds U+FFFD. */
  badUtf8?: Set<string>

  add(name: string, value: string, badUtf8 = false): void {
    this.values.push(name, value)
    if (badUtf8) (this.badUtf8 ??= new Set()).add(name)
  }

  /** Whether the value `get(name)` answers came as bytes that are not UTF-8. */
  isBadUtf8(name: string): boolean {
    return this.badUtf8 !== undefined && this.badUtf8.has(name)
  }

  /** The first value of `name` (query before body), or undefined. */
  get(name: string): string | undefined {
    const values = this.values
    for (let i = 0; i < values.length; i += 2) if (values[i] === name) return values[i + 1]
    return undefined
  }

  has(name: string): boolean {
    return this.get(name) !== undefined || this.files.has(name)
  }

  /** An InputFile: a multipart file field, or `attach://<name>` pointing at one. */
  file(name: string): UploadedFile | undefined {
    const direct = this.files.get(name)
    if (direct) return direct
    const text = this.get(name)
    if (text?.startsWith('attach://')) return this.files.get(text.slice('attach://'.length))
    return undefined
  }

  /**
   * A plain object for records: first value per key; values holding a JSON object or array are decoded; files
   * become `{filename, mimeType, size}` under the parameter that names them, however the client sent them (a file
   * field of that name, or `attach://<field>` in the parameter or inside its JSON, e.g. sendMediaGroup's media).
   */
  toRecord(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    if (this.files.size === 0) {
      // the common case, on every call's hot path: no file to resolve
      const values = this.values
      for (let i = 0; i < values.length; i += 2) if (!(values[i] in out)) out[values[i]] = decodeJsonish(values[i + 1])
      return out
    }
    const attached = new Set<string>()
    const resolve = (value: unknown): unknown => {
      if (typeof value === 'string') {
        if (!value.startsWith('attach://')) return value
        const name = value.slice('attach://'.length)
        const file = this.files.get(name)
        if (!file) return value
        attached.add(name)
        return fileInfo(file)
      }
      if (Array.isArray(value)) return value.map(resolve)
      if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]))
      }
      return value
    }
    for (let i = 0; i < this.values.length; i += 2) {
      const k = this.values[i]
      if (k in out) continue
      out[k] = resolve(decodeJsonish(this.values[i + 1]))
    }
    for (const [k, f] of this.files) if (!(k in out) && !attached.has(k)) out[k] = fileInfo(f)
    return out
  }
}

const fileInfo = (f: UploadedFile): {filename: string; mimeType: string; size: number} => ({
  filename: f.filename,
  mimeType: f.mimeType,
  size: f.size,
})

/** A value holding a JSON object or array, decoded (within the depth bound: a deeper one stays text). */
function decodeJsonish(value: string): unknown {
  const first = value.charCodeAt(0)
  // most values start with neither whitespace nor a bracket: no trimmed copy for them
  if (first !== 123 && first !== 91 && first > 32 && first < 127) return value
  const c = value.trimStart()[0]
  if (c !== '{' && c !== '[') return value
  try {
    return parseJsonBounded(value)
  } catch {
    return value
  }
}

/** `true`, `yes` or `1` after trimming and lower-casing (the server's to_bool). */
export function toBool(value: string | undefined): boolean {
  if (value === undefined) return false
  const v = value.trim().toLowerCase()
  return v === 'true' || v === 'yes' || v === '1'
}

/** An int32 parameter: empty → default; otherwise read as td's to_integer and clamped to [min, max] (never rejected). */
export function toInt(value: string | undefined, def: number, min: number, max: number): number {
  if (value === undefined || value === '') return def
  return Math.min(max, Math.max(min, toInteger(value, 32)))
}

/**
 * Read the query string of `search` and the body of `req` into Params, within the bounds of body.ts. A JSON body is
 * read up to its first error, keeping what came before (td-args.ts), as the server does.
 */
export async function readParams(search: string, headers: IncomingHttpHeaders, body: Readable): Promise<Params> {
  const params = queryParams(search)
  const declared = Number(headers['content-length'])
  if (declared > MAX_BODY) {
    body.resume()
    throw new ApiError(413, `Request Entity Too Large: ${BODY_TOO_BIG}`)
  }
  const type = String(headers['content-type'] ?? '').toLowerCase()
  const stream = decodedBody(headers, body)
  if (type.includes('multipart/form-data')) {
    if (!type.includes('boundary=')) {
      await drain(stream)
      return params
    }
    await readMultipart(
      headers,
      stream,
      (name, value, bad) => params.add(name, value, bad),
      (name, file) => params.files.set(name, file),
    )
    return params
  }
  const kind = bodyKind(type)
  if (kind === undefined) {
    await drain(stream) // any other content type is not read as parameters (td), nor kept
    return params
  }
  addBody(params, kind, await readAll(stream, MAX_PARAMETERS, 'too much parameters'))
  return params
}

/**
 * The same for a request whose whole body is at hand (the fast front, fast.ts): not encoded, not multipart and at most
 * MAX_PARAMETERS bytes, which the caller checked; `type` lower-cased.
 */
export function paramsOf(search: string, type: string, body: Buffer): Params {
  const params = queryParams(search)
  const kind = bodyKind(type)
  if (kind !== undefined && body.length > 0) addBody(params, kind, body)
  return params
}

function queryParams(search: string): Params {
  const params = new Params()
  if (search !== '') addForm(params, Buffer.from(search, 'utf8'))
  return params
}

/**
 * A query string or form body (td HttpReader::parse_parameters). URLSearchParams reads the same when every byte is
 * UTF-8 (its only difference: it turns bad bytes into U+FFFD); a body with a `%` escape of a byte ≥ 0x80 or raw bytes
 * ≥ 0x80 that are not UTF-8 is read byte by byte, to flag its bad values.
 */
function addForm(params: Params, raw: Buffer): void {
  if (!mayHoldBadUtf8(raw)) {
    for (const [k, v] of new URLSearchParams(raw.toString('latin1'))) params.add(k, v)
    return
  }
  readForm(raw, (k, v, bad) => params.add(k, v, bad))
}

/** Whether form bytes might decode to invalid UTF-8: a byte ≥ 0x80, or `%8`..`%F` escaping one. */
function mayHoldBadUtf8(raw: Buffer): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c >= 0x80) return true
    if (c === 37 && i + 1 < raw.length) {
      const d = raw[i + 1] | 0x20
      if ((d >= 56 && d <= 57) || (d >= 97 && d <= 102)) return true
    }
  }
  return false
}

/** How a (lower-cased, not multipart) content type's body is read: as a form, as JSON, or not at all. */
const bodyKind = (type: string): 'form' | 'json' | undefined =>
  type.includes('application/x-www-form-urlencoded') ? 'form' : type.includes('application/json') ? 'json' : undefined

function addBody(params: Params, kind: 'form' | 'json', raw: Buffer): void {
  if (kind === 'form') addForm(params, raw)
  // td logs a JSON error and goes on: the parameters read before it stay, and the method runs with them
  else readJsonArgs(raw, (k, v, bad) => params.add(k, v, bad))
}
