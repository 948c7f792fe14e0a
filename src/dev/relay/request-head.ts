/**
 * A request head as the relay reads it (RFC 9112 §2-§3, §6): the request line, and of the headers
 * only what the relay acts on (framing, Connection, Expect, Host, the secret, the content type).
 * Anything a strict server must refuse is refused: a bare CR or LF, obs-fold, whitespace before a
 * colon, control bytes, a missing or repeated Host on HTTP/1.1, Content-Length with
 * Transfer-Encoding, Content-Length more than once, a transfer coding other than chunked.
 *
 * Where RFC 9112 leaves a choice, the choice is Node's parser's (llhttp, as node:http runs it):
 * the methods it knows, runs of spaces between the request line's parts, the target's forms, a
 * Content-Length value's whitespace; test/dev/relay-differential.test.ts holds the two to the same
 * decisions.
 */
import {METHODS} from 'node:http'

import {contentLengthOf, listHas, trimOws} from './http1.js'

export interface RequestHead {
  method: string
  /** The request target as sent (visible ASCII only). */
  target: string
  /** The target up to `?`. */
  path: string
  http10: boolean
  /** -1 without a Content-Length. */
  contentLength: number
  chunked: boolean
  /** Close the connection after this request (Connection: close, or HTTP/1.0 without keep-alive). */
  close: boolean
  expectContinue: boolean
  /** The X-Telegram-Bot-Api-Secret-Token value (latin1); null when sent more than once. */
  secret: string | null | undefined
  contentType: string | undefined
}

export interface HeadError {
  error: 400 | 417 | 501 | 505
}

/** A visible-ASCII request target (no spaces, controls or bytes above 0x7e). */
const TARGET = /^[\x21-\x7e]+$/
/** The target's start in absolute form: a scheme of letters, then `://` (as llhttp reads it). */
const ABSOLUTE = /^[A-Za-z]+:\/\//
/**
 * The methods llhttp knows (node:http's METHODS), but CONNECT: the relay tunnels nothing (a
 * node:http server without a 'connect' listener closes such a connection).
 */
const KNOWN_METHODS = new Set(METHODS.filter((m) => m !== 'CONNECT'))
/** An Expect value that lists 100-continue (any case), as node:http finds it. */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i
/**
 * Every header line at once (from lastIndex to the end): a token name, its colon right after it,
 * a value of HTAB, SP, visible ASCII and obs-text, CRLF; then the blank line. This refuses a bare
 * CR or LF, obs-fold, whitespace before a colon and control bytes in one pass.
 */
const HEADER_LINES = /(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r\n)*\r\n$/y

/** Read a head: the latin1 text from the request line up to and including its blank line. */
export function parseRequestHead(text: string): RequestHead | HeadError {
  let eol = text.indexOf('\r\n')
  const line = text.slice(0, eol)
  // method SP+ target SP+ version: one or more spaces between the parts, none before or after.
  const sp1 = line.indexOf(' ')
  let t = sp1 + 1
  while (line.charCodeAt(t) === 32) t++
  const sp2 = line.indexOf(' ', t)
  let v = sp2 + 1
  while (line.charCodeAt(v) === 32) v++
  if (sp1 <= 0 || sp2 < 0 || v >= line.length || line.indexOf(' ', v) >= 0) return {error: 400}
  const method = line.slice(0, sp1)
  const target = line.slice(t, sp2)
  const version = line.slice(v)
  if (!KNOWN_METHODS.has(method) || !TARGET.test(target)) return {error: 400}
  // origin-form (/…), asterisk-form (*) or absolute-form (scheme://…); authority-form is CONNECT's.
  if (target.charCodeAt(0) !== 47 && target !== '*' && !ABSOLUTE.test(target)) return {error: 400}
  let http10 = false
  if (version !== 'HTTP/1.1') {
    if (version === 'HTTP/1.0') http10 = true
    else return {error: /^HTTP\/\d\.\d$/.test(version) ? 505 : 400}
  }
  const q = target.indexOf('?')
  const head: RequestHead = {
    method,
    target,
    path: q < 0 ? target : target.slice(0, q),
    http10,
    contentLength: -1,
    chunked: false,
    close: http10,
    expectContinue: false,
    secret: undefined,
    contentType: undefined,
  }
  let hosts = 0
  let te: string | undefined
  let expects = false
  let closeAsked = false
  let keepAliveAsked = false
  HEADER_LINES.lastIndex = eol + 2
  if (!HEADER_LINES.test(text)) return {error: 400}
  for (let start = eol + 2; ; start = eol + 2) {
    eol = text.indexOf('\r\n', start)
    if (eol === start) break // the blank line
    const colon = text.indexOf(':', start)
    // Only the names the relay acts on are looked at (by length first).
    switch (colon - start) {
      case 4:
        if (text.slice(start, colon).toLowerCase() === 'host') hosts++
        break
      case 6:
        // An expectation on HTTP/1.0 is ignored (RFC 9110 §10.1.1).
        if (!http10 && text.slice(start, colon).toLowerCase() === 'expect') {
          expects = true
          if (CONTINUE.test(text.slice(colon + 1, eol))) head.expectContinue = true
        }
        break
      case 10:
        if (text.slice(start, colon).toLowerCase() === 'connection') {
          const value = text.slice(colon + 1, eol)
          if (listHas(value, 'close')) closeAsked = true
          if (listHas(value, 'keep-alive')) keepAliveAsked = true
        }
        break
      case 12:
        if (head.contentType === undefined && text.slice(start, colon).toLowerCase() === 'content-type')
          head.contentType = trimOws(text.slice(colon + 1, eol))
        break
      case 14:
        if (text.slice(start, colon).toLowerCase() === 'content-length') {
          // Once only (a second one, even with the same value, is refused as llhttp does); spaces
          // may end the value, a tab may not.
          if (head.contentLength >= 0 || text.charCodeAt(eol - 1) === 9) return {error: 400}
          const length = contentLengthOf(trimOws(text.slice(colon + 1, eol)))
          if (length < 0) return {error: 400}
          head.contentLength = length
        }
        break
      case 17:
        if (text.slice(start, colon).toLowerCase() === 'transfer-encoding') {
          if (te !== undefined || text.charCodeAt(eol - 1) === 9) return {error: 400}
          te = trimOws(text.slice(colon + 1, eol)).toLowerCase()
        }
        break
      case 31:
        if (text.slice(start, colon).toLowerCase() === 'x-telegram-bot-api-secret-token')
          head.secret = head.secret === undefined ? trimOws(text.slice(colon + 1, eol)) : null
        break
    }
  }
  // HTTP/1.1 ends the connection when asked to; HTTP/1.0 unless asked to keep it (then a `close`
  // beside `keep-alive` does not count, as llhttp reads it).
  head.close = http10 ? !keepAliveAsked : closeAsked
  // Expectations other than 100-continue are not met (417), unless 100-continue is among them.
  if (expects && !head.expectContinue) return {error: 417}
  if (!http10 && hosts !== 1) return {error: 400}
  if (hosts > 1) return {error: 400}
  if (te !== undefined) {
    // Framing by both, or chunked on HTTP/1.0, is how requests are smuggled: refused.
    if (head.contentLength >= 0 || http10) return {error: 400}
    // Another coding after chunked is not implemented (501); chunked missing or not last is an error (400).
    if (te !== 'chunked') return {error: te.endsWith('chunked') ? 501 : 400}
    head.chunked = true
  }
  return head
}
