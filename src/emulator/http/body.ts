/**
 * Reading a request body with bounds, as the Bot API server does (td HttpReader.cpp): gzip and deflate are decoded and
 * the decoded bytes count; nothing a request sends is kept beyond these limits, however small it was on the wire.
 *
 * - the whole body, decoded: 50 MiB, the cloud's limit for a multipart upload
 *   (core.telegram.org/bots/api#sending-files;
 *   a body over 50 MB gets 413), so the largest file is a little under that;
 * - parameters (a form or JSON body, a multipart body's fields): 1 MiB, td's MAX_TOTAL_PARAMETERS_LENGTH;
 * - files in a multipart body: 50, telegram-bot-api's max_files (`Request Entity Too Large: too much files attached`);
 * - parts of a multipart body: 1000 (not settled by the sources: td bounds their headers to 256 KiB in all).
 *
 * A body over a limit is answered 413 at once; the rest of it is read and dropped (never decoded, never kept).
 */
import type {IncomingHttpHeaders} from 'node:http'
import {type Readable, Transform, type TransformCallback} from 'node:stream'
import {createGunzip, createInflate} from 'node:zlib'
import busboy from 'busboy'
import {ApiError, errorText} from '../errors.js'
import {decodeUtf8} from './td-args.js'

export const MAX_BODY = 50 * 1024 * 1024
export const MAX_PARAMETERS = 1 << 20
export const MAX_FILES = 50
export const MAX_PARTS = 1000

/** A file received in a multipart body. */
export interface UploadedFile {
  filename: string
  mimeType: string
  size: number
  data: Buffer
}

const tooLarge = (what: string): ApiError => new ApiError(413, `Request Entity Too Large: ${what}`)
export const BODY_TOO_BIG = 'request body is too big'

/**
 * The decoded body as a stream (the request itself when it is not encoded). An encoded one is decoded while fewer
 * than MAX_BODY decoded bytes came: past that, or on a decoding error, the stream fails with 413 / 400 and the rest of
 * the request is read and dropped.
 */
export function decodedBody(headers: IncomingHttpHeaders, body: Readable): Readable {
  const encoding = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase()
  if (encoding === '' || encoding === 'identity') return body
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    body.resume()
    throw new ApiError(415, 'Unsupported Media Type: unsupported content-encoding')
  }
  const decoder = encoding === 'gzip' ? createGunzip() : createInflate()
  let decoded = 0
  const stop = (error: Error): void => {
    body.unpipe(decoder)
    body.resume() // the rest is read and dropped, never decoded
    decoder.destroy(error)
  }
  decoder.on('data', (chunk: Buffer) => {
    decoded += chunk.length
    if (decoded > MAX_BODY) stop(tooLarge(BODY_TOO_BIG))
  })
  decoder.on('error', (err) => {
    if (!(err instanceof ApiError)) {
      body.unpipe(decoder)
      body.resume()
    }
  })
  body.on('error', (err) => decoder.destroy(err))
  body.on('close', () => {
    if (!body.readableEnded) decoder.destroy(new ApiError(400, 'Bad Request: the request body was cut off'))
  })
  body.pipe(decoder)
  return decoder
}

/** A decoding error in the server's words (`Bad Request: …`), a limit's 413 as it is. */
const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError ? err : new ApiError(400, `Bad Request: ${errorText(err).toLowerCase()}`)

/**
 * The whole body, at most `limit` bytes (else 413 `Request Entity Too Large: <what>`). Listeners, not `for await`: the
 * async iterator costs a lot per request.
 */
export function readAll(stream: Readable, limit: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        done = true
        chunks.length = 0
        stream.off('data', onData)
        stream.resume()
        reject(tooLarge(what))
        return
      }
      chunks.push(chunk)
    }
    stream.on('data', onData)
    stream.once('end', () => {
      if (done) return
      done = true
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    })
    stream.once('error', (err) => {
      if (done) return
      done = true
      reject(asApiError(err))
    })
    stream.once('close', () => {
      if (done) return
      done = true
      resolve(Buffer.concat(chunks, size)) // the caller went away: whatever came
    })
  })
}

/** A body that is not read as parameters (another content type): read to its end, nothing kept. */
export function drain(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('end', resolve)
    stream.once('close', resolve)
    stream.once('error', (err) => reject(asApiError(err)))
    stream.resume()
  })
}

/**
 * The multipart bytes as busboy is given them: in each part's headers (from a boundary line to the blank line) a
 * `charset=` parameter becomes `charsex=`, so that busboy hands every field's bytes over as they came (one character
 * per byte, its default latin1). td's HttpReader::parse_multipart reads a part's Content-Type only for
 * `application/x-www-form-urlencoded` and never decodes a value by a charset: the bytes are the parameter.
 * Everything else passes unchanged; a body's bytes are held back only while a boundary or a part's headers are
 * incomplete (at most MAX_PART_HEAD bytes of headers, then they pass as they are: busboy refuses such a part).
 */
const MAX_PART_HEAD = 16 * 1024
const CRLF2 = Buffer.from('\r\n\r\n')

export class HideCharsets extends Transform {
  private carry: Buffer = Buffer.alloc(0)
  private inHead = false
  private delimiter: Buffer
  /** Before the first part's headers: the delimiter has no CRLF in front of it (a preamble is skipped by busboy). */
  private first = true

  constructor(boundary: string) {
    super()
    this.delimiter = Buffer.from(`--${boundary}`, 'latin1')
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    this.carry = Buffer.alloc(0)
    const out: Buffer[] = []
    for (;;) {
      if (this.inHead) {
        const end = data.indexOf(CRLF2)
        if (end < 0) {
          if (data.length > MAX_PART_HEAD) {
            out.push(data)
            this.inHead = false
            this.useDelimiter()
            data = Buffer.alloc(0)
          } else this.carry = data
          break
        }
        out.push(hideCharset(data.subarray(0, end + 4)))
        data = data.subarray(end + 4)
        this.inHead = false
        this.useDelimiter()
        continue
      }
      const at = data.indexOf(this.delimiter)
      if (at < 0) {
        // the end may hold the start of a delimiter: kept for the next chunk
        const keep = Math.min(data.length, this.delimiter.length - 1)
        out.push(data.subarray(0, data.length - keep))
        this.carry = Buffer.from(data.subarray(data.length - keep))
        break
      }
      out.push(data.subarray(0, at + this.delimiter.length))
      data = data.subarray(at + this.delimiter.length)
      this.inHead = true
    }
    for (const part of out) if (part.length > 0) this.push(part)
    done()
  }

  override _flush(done: TransformCallback): void {
    if (this.carry.length > 0) this.push(this.carry)
    this.carry = Buffer.alloc(0)
    done()
  }

  /** After the first part's headers, a delimiter is CRLF and the boundary line. */
  private useDelimiter(): void {
    if (!this.first) return
    this.first = false
    this.delimiter = Buffer.concat([Buffer.from('\r\n'), this.delimiter])
  }
}

/** A part's headers with each `charset=` (any case) made `charsex=` (same length). */
function hideCharset(head: Buffer): Buffer {
  const text = head.toString('latin1')
  if (!/charset=/i.test(text)) return head
  return Buffer.from(
    text.replace(/(chars)e(t)=/gi, (_m, a: string, t: string) => `${a}e${t === 'T' ? 'X' : 'x'}=`),
    'latin1',
  )
}

/**
 * A multipart/form-data body: each field through `onField`, each file (its bytes in memory) through `onFile`. The
 * limits above apply; a body busboy cannot start on (no boundary) is drained and yields nothing.
 *
 * A field's bytes are taken as they come, as the server's HTTP reader takes them (td HttpReader::parse_multipart):
 * busboy hands them over one character per byte (latin1) and they are decoded here, a name or value that is not
 * valid UTF-8 flagged (`badUtf8`) for the method to answer td's text, never turned into U+FFFD. A charset a part's
 * headers name (aiohttp names utf-8 on every text field) changes nothing: td ignores it, and HideCharsets keeps it
 * from busboy.
 */
export function readMultipart(
  headers: IncomingHttpHeaders,
  stream: Readable,
  onField: (name: string, value: string, badUtf8: boolean) => void,
  onFile: (name: string, file: UploadedFile) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy
    try {
      bb = busboy({
        headers,
        limits: {files: MAX_FILES, parts: MAX_PARTS, fields: MAX_PARTS, fieldSize: MAX_PARAMETERS, fileSize: MAX_BODY},
        defCharset: 'latin1',
        defParamCharset: 'latin1',
      })
    } catch {
      stream.resume()
      resolve()
      return
    }
    // busboy found a boundary: it is read again here for HideCharsets (quoted or not, RFC 2046)
    const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(String(headers['content-type'] ?? ''))
    const hider = boundary ? new HideCharsets(boundary[1] ?? boundary[2]) : undefined
    let failed = false
    let size = 0
    let fieldBytes = 0
    const fail = (error: ApiError): void => {
      if (failed) return
      failed = true
      if (hider) {
        stream.unpipe(hider)
        hider.unpipe(bb)
      } else stream.unpipe(bb)
      stream.off('data', count)
      stream.resume() // the rest is read and dropped
      reject(error)
    }
    // Every byte of the (decoded) body counts, the parts' headers and what lies between them too.
    const count = (chunk: Buffer): void => {
      size += chunk.length
      if (size > MAX_BODY) fail(tooLarge(BODY_TOO_BIG))
    }
    stream.on('data', count)
    bb.on('field', (name, value, info) => {
      if (failed) return
      const [nameText, badName] = decodeUtf8(Buffer.from(name, 'latin1'))
      const [text, badValue] = decodeUtf8(Buffer.from(value, 'latin1'))
      fieldBytes += Buffer.byteLength(nameText) + Buffer.byteLength(text)
      if (info.valueTruncated || fieldBytes > MAX_PARAMETERS) fail(tooLarge('too much parameters in form data'))
      else onField(nameText, text, badName || badValue)
    })
    const arena = new FileArena()
    bb.on('file', (name, file, info) => {
      const bytes = arena.file()
      file.on('data', (c: Buffer) => {
        if (!failed) bytes.write(c)
      })
      file.on('limit', () => fail(tooLarge(BODY_TOO_BIG)))
      file.on('end', () => {
        if (failed) return
        const data = bytes.end()
        onFile(name, {filename: info.filename ?? name, mimeType: info.mimeType, size: data.length, data})
      })
    })
    bb.on('filesLimit', () => fail(tooLarge('too much files attached')))
    bb.on('partsLimit', () => fail(tooLarge('too many parts in form data')))
    bb.on('fieldsLimit', () => fail(tooLarge('too many parts in form data')))
    bb.on('close', () => {
      if (!failed) resolve()
    })
    bb.on('error', (err) => fail(new ApiError(400, `Bad Request: ${errorText(err).toLowerCase()}`)))
    stream.on('error', (err) => fail(asApiError(err)))
    stream.on('close', () => {
      if (!stream.readableEnded) fail(new ApiError(400, 'Bad Request: the request body was cut off'))
    })
    if (hider) stream.pipe(hider).pipe(bb)
    else stream.pipe(bb)
  })
}

/**
 * Where a multipart body's files are written as they come, so that a large file is held once (collecting its chunks and
 * concatenating them at the end holds it twice at the peak). A small file (up to 1 MiB) is collected and concatenated
 * as usual. One that grows past that moves to a buffer of MAX_BODY shared by the body's files, allocated then and never
 * filled beyond what came (the whole body is at most MAX_BODY, so it never grows; pages nothing was written to cost no
 * memory). A file under half of that buffer is copied out at its end and its room used again; a larger one stays a
 * view of it (at most one per body).
 */
class FileArena {
  static readonly SMALL = 1 << 20
  /** A file smaller than half the buffer is copied out (a view would keep the whole buffer alive for it). */
  static readonly COPY_BELOW = MAX_BODY / 2
  private buffer: Buffer | undefined
  private offset = 0

  /** A file starts: its writer. */
  file(): {write(chunk: Buffer): void; end(): Buffer} {
    let chunks: Buffer[] | undefined = []
    let size = 0
    let start = 0
    return {
      write: (chunk) => {
        if (chunks) {
          chunks.push(chunk)
          size += chunk.length
          if (size <= FileArena.SMALL) return
          start = this.offset
          for (const c of chunks) this.copy(c)
          chunks = undefined
          return
        }
        this.copy(chunk)
      },
      end: () => {
        if (chunks) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)
        const view = this.buffer!.subarray(start, this.offset)
        if (view.length >= FileArena.COPY_BELOW) return view
        this.offset = start
        return Buffer.from(view)
      },
    }
  }

  private copy(chunk: Buffer): void {
    this.buffer ??= Buffer.allocUnsafeSlow(MAX_BODY)
    // the body limit fails the request before a chunk could pass the end; never write past it regardless
    const room = this.buffer.length - this.offset
    this.offset += chunk.copy(this.buffer, this.offset, 0, Math.min(chunk.length, room))
  }
}
