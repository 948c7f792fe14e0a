/**
 * Small HTTP helpers of the inspector server: the headers every answer carries, the key a request
 * presents, JSON answers run through the token redaction (the key and Host checks and the body cap:
 * lib/loopback-http.ts).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import {redactSecrets} from '../../telegram/redact.js'

/** What every answer carries: nothing cached, nothing framed, nothing loaded from elsewhere. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

/** The key of a request: the `x-bot-dev-key` header, else `?key=`. */
export function presentedKey(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers['x-bot-dev-key']
  if (typeof header === 'string') return header
  return url.searchParams.get('key') ?? undefined
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
