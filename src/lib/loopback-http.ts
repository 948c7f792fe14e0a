/**
 * What the loopback servers of a session (the inspector page, the control port, the api proxy)
 * check before anything else: the Host header, against DNS rebinding; where a request comes from
 * (Origin, Sec-Fetch-Site), against a web page the user has open; the key, compared in constant
 * time; and a request body read with a cap. One implementation for all of them (the emulator keeps
 * its own copy: it imports nothing outside itself).
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

/** Whether a listen address is loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackBind(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

/**
 * The Host check of a request: exactly one Host header, naming this port on 127.0.0.1, localhost
 * or [::1] (a site that points its DNS name at 127.0.0.1 sends its own name: DNS rebinding).
 * `anyHost` (a server bound to another interface on purpose) accepts any single Host.
 */
export function requestHostAllowed(req: IncomingMessage, port: number, o: {anyHost?: boolean} = {}): boolean {
  if ((req.headersDistinct.host?.length ?? 0) !== 1) return false
  return o.anyHost === true || hostAllowed(req.headers.host, port)
}

/**
 * Why a request looks sent by a web page of another site, or undefined when it does not: an
 * `Origin` other than this server's own (`http://` + 127.0.0.1, localhost or [::1] with its port;
 * with `anyHost`, also the Host it was asked for), `Origin: null` (a sandboxed page, a redirect), or
 * `Sec-Fetch-Site` other than same-origin / none. Bot clients, curl and scripts send neither header.
 */
export function fromAnotherSite(req: IncomingMessage, port: number, o: {anyHost?: boolean} = {}): string | undefined {
  const site = req.headersDistinct['sec-fetch-site']
  if (site !== undefined && (site.length !== 1 || (site[0] !== 'same-origin' && site[0] !== 'none')))
    return `Sec-Fetch-Site: ${site.join(', ').slice(0, 40)}`
  const origins = req.headersDistinct.origin
  if (origins === undefined) return undefined
  if (origins.length !== 1) return 'more than one Origin header'
  const origin = origins[0].toLowerCase()
  const own =
    origin === `http://127.0.0.1:${port}` ||
    origin === `http://localhost:${port}` ||
    origin === `http://[::1]:${port}` ||
    (o.anyHost === true && req.headers.host !== undefined && origin === `http://${req.headers.host.toLowerCase()}`)
  return own ? undefined : `Origin: ${origins[0].slice(0, 80)}`
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
