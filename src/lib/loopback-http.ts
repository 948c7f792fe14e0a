/**
 * What the loopback servers of a session (the inspector page, the control port) check before
 * anything else: the key, compared in constant time; the Host header, against DNS rebinding; and a
 * request body read with a cap.
 */
import {createHash, timingSafeEqual} from 'node:crypto'
import type {IncomingMessage} from 'node:http'

export const BODY_LIMIT = 1024 * 1024

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}

/** Compares a presented key with the session's in constant time (hashes of equal length, whatever was sent). */
export function keyMatches(presented: string | undefined, key: string): boolean {
  if (presented === undefined || key === '') return false
  return timingSafeEqual(digest(presented), digest(key)) && presented.length === key.length
}

/** Only Host headers naming this server on loopback are served (a rebound DNS name is not). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false
  const h = host.toLowerCase()
  return h === `127.0.0.1:${port}` || h === `localhost:${port}` || h === `[::1]:${port}`
}

export class BodyTooLarge extends Error {}
/** The client went away before the body ended. */
export class BodyCutOff extends Error {}

/**
 * Reads a request body up to `limit` bytes. A larger one (declared or sent) rejects with
 * BodyTooLarge and is not read further; a client that leaves mid-body rejects with BodyCutOff.
 */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge())
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    req.on('data', (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) {
        done = true
        chunks.length = 0
        reject(new BodyTooLarge())
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (done) return
      done = true
      resolve(Buffer.concat(chunks).toString('utf8'))
    })
    req.on('close', () => {
      if (done) return
      done = true
      reject(new BodyCutOff())
    })
    req.on('error', (err) => {
      if (done) return
      done = true
      reject(err)
    })
  })
}
