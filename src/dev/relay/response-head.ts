/**
 * The head of the bot's answer (RFC 9112 §4, §6.3): its status, content type and framing, whether
 * the connection may carry the next update, and the bot's keep-alive timeout when it names one.
 * A bot is any HTTP server, so what is valid is read leniently where that is safe (a missing reason
 * phrase, HTTP/1.0); framing that cannot be trusted is an error.
 */
import {contentLengthOf, listHas, trimOws} from './http1.js'

export interface ResponseHead {
  status: number
  contentType: string | undefined
  /** -1 without a Content-Length. */
  contentLength: number
  chunked: boolean
  /** The body runs until the bot closes the connection (no length, not chunked). */
  untilClose: boolean
  /** The connection cannot carry another request after this answer. */
  close: boolean
  /** `Keep-Alive: timeout=N` in ms, when given. */
  keepAliveMs: number | undefined
  /** The Retry-After value, when given. */
  retryAfter?: string
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/
/** Every header line at once, from lastIndex (see request-head.ts): token, colon, a value without controls, CRLF. */
const HEADER_LINES = /(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r\n)*\r\n$/y

/** Read a response head (latin1, status line to blank line); a string says why it cannot be used. */
export function parseResponseHead(text: string): ResponseHead | string {
  let eol = text.indexOf('\r\n')
  const m = STATUS_LINE.exec(text.slice(0, eol))
  if (!m) return 'the bot answered something that is not HTTP/1.1'
  const http10 = m[1] === '0'
  const head: ResponseHead = {
    status: Number(m[2]),
    contentType: undefined,
    contentLength: -1,
    chunked: false,
    untilClose: false,
    close: http10,
    keepAliveMs: undefined,
  }
  let te: string | undefined
  HEADER_LINES.lastIndex = eol + 2
  if (!HEADER_LINES.test(text)) return 'the bot answered a malformed header'
  for (let start = eol + 2; ; start = eol + 2) {
    eol = text.indexOf('\r\n', start)
    if (eol === start) break
    const colon = text.indexOf(':', start)
    switch (colon - start) {
      case 10: {
        const lower = text.slice(start, colon).toLowerCase()
        if (lower === 'connection') {
          const value = text.slice(colon + 1, eol)
          if (listHas(value, 'close')) head.close = true
          else if (http10 && listHas(value, 'keep-alive')) head.close = false
        } else if (lower === 'keep-alive') {
          const t = /(?:^|[\s,])timeout\s*=\s*(\d{1,6})/i.exec(text.slice(colon + 1, eol))
          if (t) head.keepAliveMs = Number(t[1]) * 1000
        }
        break
      }
      case 11:
        if (text.slice(start, colon).toLowerCase() === 'retry-after')
          head.retryAfter ??= trimOws(text.slice(colon + 1, eol))
        break
      case 12:
        if (head.contentType === undefined && text.slice(start, colon).toLowerCase() === 'content-type')
          head.contentType = trimOws(text.slice(colon + 1, eol))
        break
      case 14:
        if (text.slice(start, colon).toLowerCase() === 'content-length') {
          const length = contentLengthOf(trimOws(text.slice(colon + 1, eol)))
          if (length < 0 || (head.contentLength >= 0 && head.contentLength !== length))
            return 'the bot answered an invalid Content-Length'
          head.contentLength = length
        }
        break
      case 17:
        if (text.slice(start, colon).toLowerCase() === 'transfer-encoding') {
          const value = trimOws(text.slice(colon + 1, eol)).toLowerCase()
          te = te === undefined ? value : `${te}, ${value}`
        }
        break
    }
  }
  const status = head.status
  if (status < 200 || status === 204 || status === 304) {
    head.contentLength = 0
    return head
  }
  if (te !== undefined) {
    // Chunked alone: the length is the chunks' (a Content-Length beside it is ignored, and the
    // connection not reused: RFC 9112 §6.3). Another coding would hand Telegram bytes it cannot read.
    if (te !== 'chunked') return 'the bot answered with a Transfer-Encoding other than chunked'
    head.chunked = true
    if (head.contentLength >= 0) head.close = true
    head.contentLength = -1
  } else if (head.contentLength < 0) head.untilClose = true
  if (head.untilClose) head.close = true
  return head
}

let lastText = ''
let lastHead: ResponseHead | undefined

/**
 * parseResponseHead, remembering the last head read: a bot answers every update with the same head
 * but for its Date (once a second), so most heads are read by one string comparison. What it
 * returns is shared between answers and never changed.
 */
export function responseHeadOf(text: string): ResponseHead | string {
  if (lastHead !== undefined && text === lastText) return lastHead
  const head = parseResponseHead(text)
  if (typeof head !== 'string') {
    lastText = text
    lastHead = head
  }
  return head
}
