/**
 * What the relay takes in before anything is forwarded: the secret check (bytes compared in
 * constant time, never a throw whatever the header holds) and the body, read within a
 * per-request cap and a cap on the bytes all requests hold at once.
 */
import {timingSafeEqual} from 'node:crypto'
import type http from 'node:http'

/** The secret as bytes, for sameSecret. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret, 'latin1')
}

/**
 * Whether the header carries the secret. Node hands header values over as latin1 strings (one
 * character per byte on the wire), so the latin1 bytes are exactly what was sent; lengths are
 * compared as bytes, so timingSafeEqual cannot throw (a `\xe9` is one byte here, not two).
 */
export function sameSecret(given: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false
  const bytes = Buffer.from(given, 'latin1')
  return bytes.length === expected.length && timingSafeEqual(bytes, expected)
}

/** Bytes of request bodies held at once (read, or waiting to be answered), across all requests. */
export class BodyBudget {
  inUse = 0
  peak = 0

  constructor(
    /** Largest body one request may have (413 beyond). */
    readonly perRequest: number,
    /** Most bytes all bodies may hold at once (503 beyond: Telegram retries later). */
    readonly total: number,
  ) {}

  take(bytes: number): boolean {
    if (this.inUse + bytes > this.total) return false
    this.inUse += bytes
    if (this.inUse > this.peak) this.peak = this.inUse
    return true
  }

  give(bytes: number): void {
    this.inUse -= bytes
  }
}

export type BodyResult = {ok: true; body: Buffer; reserved: number} | {ok: false; status: 413 | 503 | 0}

/**
 * Read the request body within the budget. A declared Content-Length is checked (and reserved)
 * before a byte is read; a body without one is counted as it arrives. On 413/503 nothing more is
 * read (the caller answers and closes the connection); status 0 means the client went away.
 * On success, `reserved` bytes stay taken until the caller gives them back.
 */
export function readBody(req: http.IncomingMessage, budget: BodyBudget, done: (result: BodyResult) => void): void {
  const declared = req.headers['content-length']
  let reserved = 0
  if (declared !== undefined) {
    const length = Number(declared)
    if (!(length >= 0 && length <= budget.perRequest)) return done({ok: false, status: 413})
    if (!budget.take(length)) return done({ok: false, status: 503})
    reserved = length
  }
  const fixed = declared !== undefined
  const chunks: Buffer[] = []
  let size = 0
  let finished = false
  const finish = (result: BodyResult) => {
    if (finished) return
    finished = true
    req.off('data', onData)
    if (!result.ok) {
      budget.give(reserved)
      reserved = 0
    }
    done(result)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (!fixed) {
      if (size > budget.perRequest) return finish({ok: false, status: 413})
      if (!budget.take(chunk.length)) return finish({ok: false, status: 503})
      reserved += chunk.length
    }
    chunks.push(chunk)
  }
  req.on('data', onData)
  req.once('end', () =>
    finish({ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), reserved}),
  )
  req.once('close', () => finish({ok: false, status: 0}))
  req.once('error', () => finish({ok: false, status: 0}))
}
