/**
 * What the relay takes in before anything is forwarded: the secret check (bytes compared in
 * constant time, never a throw whatever the header holds) and the budget bodies are read within
 * (a per-request cap and a cap on the bytes all requests hold at once; server.ts applies it).
 */
import {timingSafeEqual} from 'node:crypto'

/** The secret as bytes, for sameSecret. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret, 'latin1')
}

/**
 * Whether the header carries the secret (null: it was sent more than once). Header values are read
 * as latin1 strings (one character per byte on the wire), so the latin1 bytes are exactly what was
 * sent; lengths are compared as bytes, so timingSafeEqual cannot throw (a `\xe9` is one byte here).
 */
export function sameSecret(given: string | null | undefined, expected: Buffer): boolean {
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
