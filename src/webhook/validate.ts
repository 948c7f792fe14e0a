/**
 * Validation of setWebhook input BEFORE any call, with the rules of the Bot API
 * (core.telegram.org/bots/api#setwebhook; Client.cpp process_set_webhook_query). Each failure is a UsageError: one line
 * naming the value and the rule, plus a fix. Nothing here does I/O except reading the certificate's size.
 */
import {statSync} from 'node:fs'
import {isIP, isIPv4} from 'node:net'
import {resolve} from 'node:path'

import {UsageError} from '../lib/errors.js'
import {UPDATE_TYPES} from '../telegram/types.js'

/** Ports the cloud Bot API delivers webhooks to. */
export const WEBHOOK_PORTS = [443, 80, 88, 8443] as const
export const SECRET_TOKEN_RE = /^[A-Za-z0-9_-]{1,256}$/
export const MAX_CERTIFICATE_BYTES = 3 * 1024 * 1024
/** max_connections range: the cloud's, and a local Bot API server's (--local). */
export const MAX_CONNECTIONS_CLOUD = 100
export const MAX_CONNECTIONS_LOCAL = 100_000

export interface WebhookInput {
  url: string
  secretToken?: string
  maxConnections?: number | string
  /** The raw comma-separated list as typed. '' means the default set. */
  allowedUpdates?: string
  ipAddress?: string
  certificate?: string
  dropPendingUpdates?: boolean
}

export interface ValidatedWebhook {
  url: string
  secretToken?: string
  maxConnections?: number
  allowedUpdates?: string[]
  ipAddress?: string
  certificate?: {path: string; bytes: number}
  dropPendingUpdates: boolean
}

export interface ValidateOptions {
  /**
   * True when talking to api.telegram.org: https only, ports 443/80/88/8443, public IPs,
   * max_connections ≤ 100. A local Bot API server (or the emulator) allows http, any port,
   * any IP and up to 100000 connections.
   */
  cloud: boolean
  /** Directory a relative certificate path is read from. */
  cwd?: string
}

/** Whether an IPv4 address is private, loopback, link-local or otherwise not reachable from the internet. */
export function isReservedIPv4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number)
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  )
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  const distance = (x: string, y: string): number => {
    const row = Array.from({length: y.length + 1}, (_, i) => i)
    for (let i = 1; i <= x.length; i++) {
      let prev = row[0]
      row[0] = i
      for (let j = 1; j <= y.length; j++) {
        const tmp = row[j]
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (x[i - 1] === y[j - 1] ? 0 : 1))
        prev = tmp
      }
    }
    return row[y.length]
  }
  let best: string | undefined
  let bestD = Infinity
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c)
    if (d < bestD) {
      best = c
      bestD = d
    }
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

export function validateWebhookUrl(raw: string, {cloud}: ValidateOptions): string {
  const value = raw.trim()
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(
      `URL "${raw}" is not a valid absolute URL: it must look like https://example.com/webhook.`,
      'Pass the full public URL, scheme included.',
    )
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`URL "${raw}" uses ${url.protocol}; a webhook URL must be https://.`, 'Use an https:// URL.')
  if (url.hash)
    throw new UsageError(`URL "${raw}" has a #fragment, which is never sent to a server.`, 'Drop the part after #.')
  if (!cloud) return url.href
  if (url.protocol !== 'https:')
    throw new UsageError(
      `URL "${raw}" is http; Telegram delivers webhooks over HTTPS only.`,
      'Use an https:// URL (a tunnel or reverse proxy gives you one); plain http works only with a local Bot API server (--api-root).',
    )
  const port = url.port === '' ? 443 : Number(url.port)
  if (!(WEBHOOK_PORTS as readonly number[]).includes(port))
    throw new UsageError(
      `URL "${raw}" uses port ${port}; Telegram delivers webhooks only to ports 443, 80, 88 or 8443.`,
      'Serve the webhook on one of those ports (or behind a reverse proxy listening on 443).',
    )
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost') || (isIPv4(host) && isReservedIPv4(host)))
    throw new UsageError(
      `URL "${raw}" points at ${host}, a local address Telegram cannot reach (the Bot API refuses reserved IPs).`,
      "Use a public host name: a tunnel (`bot dev` opens one) or your server's domain.",
    )
  if (isIP(host) === 6)
    throw new UsageError(
      `URL "${raw}" uses an IPv6 address; Telegram does not deliver webhooks over IPv6.`,
      'Use a host name with an IPv4 (A) record.',
    )
  return url.href
}

export function validateSecretToken(secret: string): string {
  if (SECRET_TOKEN_RE.test(secret)) return secret
  const rule = 'it must be 1-256 characters of A-Z, a-z, 0-9, _ and -'
  if (secret.length === 0)
    throw new UsageError(`--secret-token is empty; ${rule}.`, 'Generate one with: openssl rand -hex 32')
  if (secret.length > 256)
    throw new UsageError(
      `--secret-token is ${secret.length} characters long; ${rule}.`,
      'Generate one with: openssl rand -hex 32',
    )
  const bad = [...new Set([...secret].filter((c) => !/[A-Za-z0-9_-]/.test(c)))]
  // The secret itself is never echoed: only the characters that break the rule.
  throw new UsageError(
    `--secret-token contains ${bad.map((c) => JSON.stringify(c)).join(', ')}; ${rule}.`,
    'Generate one with: openssl rand -hex 32',
  )
}

export function validateMaxConnections(raw: number | string, {cloud}: ValidateOptions): number {
  const max = cloud ? MAX_CONNECTIONS_CLOUD : MAX_CONNECTIONS_LOCAL
  const text = String(raw).trim()
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
  if (Number.isInteger(n) && n >= 1 && n <= max) return n
  throw new UsageError(
    `--max-connections ${JSON.stringify(String(raw))} is not allowed; it must be a whole number from 1 to ${max}${cloud ? ' (a local Bot API server allows up to 100000)' : ''}.`,
    'Telegram uses 40 when it is not given.',
  )
}

export function validateAllowedUpdates(raw: string): string[] {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const known = UPDATE_TYPES as readonly string[]
  for (const item of items) {
    if (known.includes(item)) continue
    const guess = closest(item, known)
    throw new UsageError(
      `--allowed-updates "${item}" is not an update type; known types: ${known.join(', ')}.`,
      guess
        ? `Did you mean "${guess}"?`
        : 'Pass a comma-separated list such as message,callback_query (or "" for the default set).',
    )
  }
  return [...new Set(items)]
}

export function validateIpAddress(ip: string, {cloud}: ValidateOptions): string {
  const value = ip.trim()
  if (cloud) {
    if (!isIPv4(value))
      throw new UsageError(
        `--ip-address "${ip}" is not an IPv4 address; Telegram sends webhooks to IPv4 only.`,
        "Pass the server's public IPv4 address, e.g. 203.0.113.7.",
      )
    if (isReservedIPv4(value))
      throw new UsageError(
        `--ip-address ${value} is a private or reserved address Telegram cannot reach.`,
        "Pass the server's public IPv4 address.",
      )
    return value
  }
  if (!isIP(value))
    throw new UsageError(`--ip-address "${ip}" is not an IP address.`, 'Pass an address such as 203.0.113.7.')
  return value
}

export function validateCertificate(
  path: string,
  {cwd = process.cwd()}: ValidateOptions,
): {path: string; bytes: number} {
  const full = resolve(cwd, path)
  let size: number
  try {
    const st = statSync(full)
    if (!st.isFile())
      throw new UsageError(
        `--certificate ${path} is not a file; it must be a readable PEM certificate file.`,
        'Pass the path of your public key certificate (.pem).',
      )
    size = st.size
  } catch (error) {
    if (error instanceof UsageError) throw error
    const code = (error as {code?: string}).code
    throw new UsageError(
      `--certificate ${path} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? 'error')}); it must be a readable PEM certificate file.`,
      'Pass the path of your public key certificate (.pem).',
    )
  }
  if (size > MAX_CERTIFICATE_BYTES)
    throw new UsageError(
      `--certificate ${path} is ${size} bytes; the Bot API accepts at most 3 MiB (${MAX_CERTIFICATE_BYTES} bytes).`,
      'Upload only the public certificate, not a bundle or a private key.',
    )
  if (size === 0)
    throw new UsageError(
      `--certificate ${path} is empty; it must be a PEM certificate file.`,
      'Pass the path of your public key certificate (.pem).',
    )
  return {path: full, bytes: size}
}

/** Validate every setWebhook input; throws the first UsageError found. */
export function validateWebhook(input: WebhookInput, options: ValidateOptions): ValidatedWebhook {
  const out: ValidatedWebhook = {
    url: validateWebhookUrl(input.url, options),
    dropPendingUpdates: Boolean(input.dropPendingUpdates),
  }
  if (input.secretToken !== undefined) out.secretToken = validateSecretToken(input.secretToken)
  if (input.maxConnections !== undefined) out.maxConnections = validateMaxConnections(input.maxConnections, options)
  if (input.allowedUpdates !== undefined) out.allowedUpdates = validateAllowedUpdates(input.allowedUpdates)
  if (input.ipAddress !== undefined) out.ipAddress = validateIpAddress(input.ipAddress, options)
  if (input.certificate !== undefined) out.certificate = validateCertificate(input.certificate, options)
  return out
}
