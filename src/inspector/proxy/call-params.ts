/**
 * The parameters of one Bot API call, read from a bounded copy of the request body as it streams
 * through the api proxy (core.telegram.org/bots/api#making-requests: query string, urlencoded, JSON
 * or multipart; the query string wins on a duplicate key, as Query::arg in Query.h takes the first). JSON and
 * urlencoded bodies are parsed from their first 64 KiB (beyond that the record says `truncated: true`); multipart
 * bodies go through busboy while they stream, keeping small field values and, for files, only their name and size.
 */
import busboy from 'busboy'
import type {IncomingHttpHeaders} from 'node:http'

/** How much of a JSON or urlencoded body is kept for its parameters. */
export const PARAMS_TEE_BYTES = 64 * 1024
/** A multipart field value longer than this is cut (values are cut to ~200 characters in records anyway). */
const FIELD_BYTES = 16 * 1024
/**
 * The most of a multipart request's field values kept (like PARAMS_TEE_BYTES for a JSON body): past
 * it a value is replaced by a note of its size, so 200 uploads stalled half way hold 200 × 64 KiB,
 * not 200 × 200 fields × 16 KiB.
 */
const FIELDS_KEPT_BYTES = 64 * 1024
/** The most a multipart parser may hold unparsed. */
const PARSER_BACKLOG_BYTES = 8 * 1024 * 1024

export interface FileSummary {
  file: string
  size: number
}

type Kind = 'json' | 'form' | 'multipart' | 'other'

function kindOf(contentType: string): Kind {
  const type = contentType.toLowerCase()
  if (type.includes('multipart/form-data')) return 'multipart'
  if (type.includes('application/x-www-form-urlencoded')) return 'form'
  if (type.includes('application/json')) return 'json'
  return 'other'
}

/** A field value that holds a JSON object or array (reply_markup, media…) is shown decoded. */
function maybeJson(value: string): unknown {
  const first = value.charCodeAt(0)
  if (first !== 0x7b && first !== 0x5b) return value // { or [
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** A number-looking chat_id/user_id inside a JSON prefix that could not be parsed whole. */
function scanJson(text: string, out: Record<string, unknown>): void {
  for (const key of ['chat_id', 'user_id', 'method']) {
    const match = new RegExp(`"${key}"\\s*:\\s*(-?\\d+|"(?:[^"\\\\]|\\\\.){0,200}")`).exec(text)
    if (!match) continue
    try {
      out[key] = JSON.parse(match[1])
    } catch {}
  }
}

/** Collects what the parameters of one request need, chunk by chunk, within fixed bounds. */
export class RequestTee {
  readonly #kind: Kind
  readonly #headers: IncomingHttpHeaders
  #chunks: Buffer[] = []
  #size = 0
  #truncated = false
  #encoded: string | undefined
  #parser: busboy.Busboy | undefined
  #parserFailed = false
  readonly #fields: Array<[string, unknown]> = []
  #fieldBytes = 0
  #fieldsNotKept = 0
  readonly #files = new Map<string, FileSummary>()

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers
    this.#kind = kindOf(headers['content-type'] ?? '')
    const encoding = headers['content-encoding']
    if (encoding && encoding.toLowerCase() !== 'identity') this.#encoded = encoding
  }

  /** Whether the body needs to be seen at all. */
  get wanted(): boolean {
    return this.#kind !== 'other' && !this.#encoded
  }

  push(chunk: Buffer): void {
    if (!this.wanted) return
    if (this.#kind === 'multipart') return this.#multipart(chunk)
    if (this.#truncated) return
    if (this.#size + chunk.length > PARAMS_TEE_BYTES) {
      this.#truncated = true
      const room = PARAMS_TEE_BYTES - this.#size
      if (room > 0) this.#chunks.push(chunk.subarray(0, room))
      this.#size = PARAMS_TEE_BYTES
      return
    }
    this.#chunks.push(chunk)
    this.#size += chunk.length
  }

  end(): void {
    if (this.#parser && !this.#parserFailed) {
      try {
        this.#parser.end()
      } catch {
        this.#parserFailed = true
      }
    }
  }

  #multipart(chunk: Buffer): void {
    if (this.#parserFailed) return
    try {
      if (!this.#parser) this.#parser = this.#startParser()
      // The parser keeps up in practice; should it ever lag this far, the parameters are given up, not memory.
      if (this.#parser.writableLength > PARSER_BACKLOG_BYTES) {
        this.#parserFailed = true
        this.#parser.destroy()
        return
      }
      this.#parser.write(chunk)
    } catch {
      this.#parserFailed = true
    }
  }

  #startParser(): busboy.Busboy {
    const parser = busboy({
      headers: this.#headers as busboy.BusboyConfig['headers'],
      limits: {fieldSize: FIELD_BYTES, fields: 200, files: 50, parts: 300, headerPairs: 200},
    })
    parser.on('field', (name, value, info) => {
      const size = name.length + value.length
      if (this.#fieldBytes + size > FIELDS_KEPT_BYTES) {
        // Left out whole (a cut could leave half a token that redaction no longer recognises), counted.
        this.#fieldsNotKept++
        return
      }
      this.#fieldBytes += size
      this.#fields.push([name, info.valueTruncated ? `${value}…` : maybeJson(value)])
    })
    parser.on('file', (name, stream, info) => {
      const summary: FileSummary = {file: info.filename ?? name, size: 0}
      if (!this.#files.has(name)) this.#files.set(name, summary)
      stream.on('data', (data: Buffer) => {
        summary.size += data.length
      })
      stream.on('error', () => {})
    })
    parser.on('error', () => {
      this.#parserFailed = true
    })
    return parser
  }

  /** The parameters as parsed: query string first (it wins), then the body. Raw values, not yet summarised. */
  params(query: string): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    if (query) for (const [k, v] of new URLSearchParams(query)) if (!(k in out)) out[k] = maybeJson(v)
    const add = (k: string, v: unknown) => {
      if (!(k in out)) out[k] = v
    }
    if (this.#encoded) add('bodyEncoding', this.#encoded)
    if (!this.wanted) return out
    if (this.#kind === 'multipart') {
      for (const [k, v] of this.#fields) add(k, v)
      for (const [k, file] of this.#files) add(k, file)
      this.#resolveAttachments(out)
      if (this.#fieldsNotKept) add('fieldsNotKept', this.#fieldsNotKept)
      if (this.#parserFailed) add('unparsed', true)
      return out
    }
    const text = (this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks)).toString('utf8')
    if (this.#kind === 'form') {
      const whole = this.#truncated ? text.slice(0, Math.max(0, text.lastIndexOf('&'))) : text
      for (const [k, v] of new URLSearchParams(whole)) add(k, maybeJson(v))
    } else if (!this.#truncated) {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      if (typeof body === 'string') add('content', body)
      else if (body && typeof body === 'object' && !Array.isArray(body))
        for (const [k, v] of Object.entries(body)) add(k, v)
    } else {
      const found: Record<string, unknown> = {}
      scanJson(text, found)
      for (const [k, v] of Object.entries(found)) add(k, v)
    }
    if (this.#truncated) out.truncated = true
    return out
  }

  /** `attach://name` (a parameter, or inside sendMediaGroup's media) becomes that file's {file, size}. */
  #resolveAttachments(out: Record<string, unknown>): void {
    const resolve = (value: unknown, depth: number): unknown => {
      if (typeof value === 'string')
        return value.startsWith('attach://') ? (this.#files.get(value.slice(9)) ?? value) : value
      if (depth > 3 || !value || typeof value !== 'object') return value
      if (Array.isArray(value)) return value.map((v) => resolve(v, depth + 1))
      const copy: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) copy[k] = resolve(v, depth + 1)
      return copy
    }
    for (const [k, v] of Object.entries(out)) out[k] = resolve(v, 0)
  }
}

/** Parameters of a body that was read whole (a small one). */
export function paramsOf(
  headers: IncomingHttpHeaders,
  body: Buffer | undefined,
  query: string,
): Record<string, unknown> {
  const tee = new RequestTee(headers)
  if (body) tee.push(body)
  tee.end()
  return tee.params(query)
}
