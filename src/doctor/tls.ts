/**
 * A TLS handshake with a webhook host, the way Telegram connects (SNI, TLS 1.2+, a certificate
 * chain to a public CA unless one was uploaded). Handshake only: no HTTP request is sent, so
 * nothing is delivered.
 */
import {isIP} from 'node:net'
import {connect, type PeerCertificate} from 'node:tls'

export interface TlsFinding {
  status: 'ok' | 'warn' | 'fail'
  detail: string
  fix?: string
}

export interface TlsOptions {
  /** True when a self-signed certificate was uploaded with setWebhook (has_custom_certificate). */
  customCertificate?: boolean
  timeoutMs?: number
  signal?: AbortSignal
  /** Connect here instead of resolving `host` (Telegram's ip_address); SNI still uses `host`. */
  address?: string
}

const SOON_DAYS = 14

const REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the chain is incomplete (the intermediate certificate is missing)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the chain is incomplete or from an unknown CA',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
}

function fixFor(code: string | undefined): string {
  if (
    code === 'ECONNREFUSED' ||
    code === 'ETIMEDOUT' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'timeout'
  )
    return 'Make the host reachable from the internet on that port (DNS A record, firewall, the server or tunnel running).'
  return "Serve a certificate from a public CA with the full chain for this host name (e.g. Let's Encrypt), or upload a self-signed one with `bot webhook set URL --certificate cert.pem`. Check with: openssl s_client -connect HOST:PORT -servername HOST"
}

export function checkTls(host: string, port: number, options: TlsOptions = {}): Promise<TlsFinding> {
  const timeoutMs = options.timeoutMs ?? 5000
  const where = `${host}:${port}`
  return new Promise<TlsFinding>((resolve) => {
    let settled = false
    const socket = connect({
      host: options.address ?? host,
      port,
      servername: isIP(host) ? undefined : host,
      rejectUnauthorized: !options.customCertificate,
      minVersion: 'TLSv1.2',
    })
    const finish = (finding: TlsFinding) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      socket.destroy()
      resolve(finding)
    }
    const timer = setTimeout(
      () =>
        finish({
          status: 'fail',
          detail: `TLS: no handshake with ${where} within ${Math.round(timeoutMs / 1000)} s`,
          fix: fixFor('timeout'),
        }),
      timeoutMs,
    )
    const onAbort = () => finish({status: 'fail', detail: `TLS: check of ${where} interrupted`})
    options.signal?.addEventListener('abort', onAbort, {once: true})
    socket.once('secureConnect', () => {
      const cert: PeerCertificate = socket.getPeerCertificate()
      const protocol = socket.getProtocol() ?? 'TLS'
      const validTo = cert?.valid_to ? new Date(cert.valid_to) : undefined
      const days = validTo ? Math.floor((validTo.getTime() - Date.now()) / 86_400_000) : undefined
      const until = validTo ? `, valid until ${validTo.toISOString().slice(0, 10)}` : ''
      const who = options.customCertificate
        ? 'the uploaded self-signed certificate'
        : `a certificate trusted for ${host}`
      if (days !== undefined && days < SOON_DAYS)
        return finish({
          status: 'warn',
          detail: `TLS: ${protocol} handshake with ${where} ok, but the certificate expires in ${Math.max(days, 0)} days${until}`,
          fix: 'Renew the certificate before it expires (Telegram stops delivering on the day it does).',
        })
      finish({status: 'ok', detail: `TLS: ${protocol} handshake with ${where} ok, ${who}${until}`})
    })
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code
      const reason = (code && REASONS[code]) ?? error.message
      finish({
        status: 'fail',
        detail: `TLS: handshake with ${where} failed: ${reason}${code ? ` (${code})` : ''}`,
        fix: fixFor(code),
      })
    })
  })
}
