/**
 * The HTTP/1.1 the relay speaks on both sides (RFC 9112), the strict subset Telegram, tunnels and
 * bots send: CRLF line ends only, no obs-fold, no whitespace before a header's colon, no control
 * bytes; Content-Length or chunked framing (never both). What this module reads it bounds.
 */
import {STATUS_CODES} from 'node:http'

/** Most bytes of a request or response head (Node's default, 16 KiB). */
export const MAX_HEAD_BYTES = 16 * 1024
/** Most bytes of a chunk-size line (with its extensions) and of a chunked body's trailer section. */
const MAX_CHUNK_LINE = 1024
const MAX_TRAILER_BYTES = 8 * 1024

const CR = 13
const LF = 10

/** The status line's reason phrase. */
export function reasonOf(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown'
}

/** Where the head ends: the index just past its blank line (CRLF CRLF), or -1 while it is incomplete. */
export function headEnd(buf: Buffer, from: number): number {
  const at = buf.indexOf('\r\n\r\n', from, 'latin1')
  return at < 0 ? -1 : at + 4
}

/** `OWS value OWS` → value (SP and HTAB trimmed). */
export function trimOws(value: string): string {
  let start = 0
  let end = value.length
  while (start < end && (value.charCodeAt(start) === 32 || value.charCodeAt(start) === 9)) start++
  while (end > start && (value.charCodeAt(end - 1) === 32 || value.charCodeAt(end - 1) === 9)) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}

/** A Content-Length value: 1*DIGIT, at most 15 digits; -1 when it is not one. */
export function contentLengthOf(value: string): number {
  if (value.length === 0 || value.length > 15) return -1
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 48 || c > 57) return -1
  }
  return Number(value)
}

/** Whether a comma-separated header value (Connection) lists `token` (lower case), case-insensitively. */
export function listHas(value: string, token: string): boolean {
  const lower = value.toLowerCase()
  if (lower === token) return true
  if (!lower.includes(token)) return false
  for (const part of lower.split(',')) if (trimOws(part) === token) return true
  return false
}

/**
 * A chunked body (RFC 9112 §7.1), fed as it arrives: chunk data goes to `onData`, extensions and
 * trailers are read and dropped (each bounded). `feed` returns where it stopped in `buf`: at `end`
 * while more is needed, just past the body once `done`, or -1 when the framing is broken.
 */
export class ChunkedDecoder {
  done = false
  /** 0 size line, 1 data, 2 CR after data, 3 LF after data, 4 trailer section. */
  #state = 0
  #remaining = 0
  #line = ''
  #trailer = 0
  /** In the trailer section: the current line is empty so far. */
  #lineEmpty = true
  #sawCr = false

  constructor(readonly onData: (buf: Buffer, start: number, end: number) => boolean) {}

  /** Feed buf[start, end). `onData` returning false stops the body (the caller has refused it). */
  feed(buf: Buffer, start: number, end: number): number {
    let i = start
    while (i < end && !this.done) {
      switch (this.#state) {
        case 0: {
          const lf = buf.indexOf(LF, i)
          const stop = lf < 0 || lf >= end ? end : lf + 1
          if (this.#line.length + (stop - i) > MAX_CHUNK_LINE) return -1
          this.#line += buf.toString('latin1', i, stop)
          i = stop
          if (stop === end && (lf < 0 || lf >= end)) return end
          const size = chunkSizeOf(this.#line)
          this.#line = ''
          if (size < 0) return -1
          if (size === 0) {
            this.#state = 4
            this.#lineEmpty = true
            this.#sawCr = false
          } else {
            this.#remaining = size
            this.#state = 1
          }
          break
        }
        case 1: {
          const take = Math.min(this.#remaining, end - i)
          if (!this.onData(buf, i, i + take)) return -1
          this.#remaining -= take
          i += take
          if (this.#remaining === 0) this.#state = 2
          break
        }
        case 2:
          if (buf[i++] !== CR) return -1
          this.#state = 3
          break
        case 3:
          if (buf[i++] !== LF) return -1
          this.#state = 0
          break
        case 4: {
          // Trailer lines are dropped; an empty line ends the body.
          const c = buf[i++]
          if (++this.#trailer > MAX_TRAILER_BYTES) return -1
          if (this.#sawCr) {
            if (c !== LF) return -1
            if (this.#lineEmpty) this.done = true
            this.#lineEmpty = true
            this.#sawCr = false
          } else if (c === CR) this.#sawCr = true
          else if (c === LF || (c < 32 && c !== 9) || c === 127) return -1
          else this.#lineEmpty = false
          break
        }
      }
    }
    return i
  }
}

/**
 * A chunk extension list (RFC 9112 §7.1.1) as llhttp takes it: `;name` or `;name=value`, the value
 * a token or a quoted string, no whitespace anywhere.
 */
const CHUNK_EXT =
  /^(?:;[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:=(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t\x20\x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t\x20-\x7e\x80-\xff])*"))?)*$/

/**
 * `1*HEXDIG [ chunk-ext ] CRLF` → the size; -1 when the line is not one (bare LF, no digits,
 * whitespace after the size, a malformed extension, too large).
 */
function chunkSizeOf(line: string): number {
  const end = line.length - 2
  if (end < 1 || line.charCodeAt(end) !== CR) return -1
  let size = 0
  let digits = 0
  let i = 0
  for (; i < end; i++) {
    const c = line.charCodeAt(i)
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1
    if (v < 0) break
    // Leading zeros do not count; over 2^48 no body the relay takes is that large.
    if ((digits > 0 || v > 0) && ++digits > 12) return -1
    size = size * 16 + v
  }
  if (i === 0) return -1
  if (i < end && !CHUNK_EXT.test(line.slice(i, end))) return -1
  return size
}
