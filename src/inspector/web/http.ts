/**
 * Small HTTP helpers of the inspector server: the headers every answer carries, the key and Host
 * checks, JSON answers run through the token redaction, and a request body read with a cap.
 */
import {createHash, timingSafeEqual} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {redactSecrets} from '../../cli/secrets.js'

/** What every answer carries: nothing cached, nothing framed, nothing loaded from elsewhere. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

export const BODY_LIMIT = 1024 * 1024

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}

/** Compares a presented key with the session's in constant time (hashes of equal length, whatever was sent). */
export function keyMatches(presented: string | undefined, key: string): boolean {
  if (presented === undefined || key === '') return false
  return timingSafeEqual(digest(presented), digest(key)) && presented.length === key.length
}

/** The key of a request: the `x-bot-dev-key` header, else `?key=`. */
export function presentedKey(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers['x-bot-dev-key']
  if (typeof header === 'string') return header
  return url.searchParams.get('key') ?? undefined
}

/** Only Host headers naming this server on loopback are served (a rebound DNS name is not). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false
  const h = host.toLowerCase()
  return h === `127.0.0.1:${port}` || h === `localhost:${port}` || h === `[::1]:${port}`
}

export function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(status, {...SECURITY_HEADERS, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body)})
  res.end(body)
}

/** JSON with every secret and anything token-shaped blanked (the history redacts entries already; this is the last line). */
export function sendJson(res: ServerResponse, status: number, value: unknown, secrets: string[]): void {
  send(res, status, 'application/json; charset=utf-8', redactSecrets(JSON.stringify(value), secrets))
}

export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  fix: string | undefined,
  secrets: string[],
): void {
  sendJson(res, status, fix ? {error, fix} : {error}, secrets)
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
