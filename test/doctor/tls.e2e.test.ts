/** The webhook TLS check against real TLS servers on loopback (a handshake only: no request is sent). */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {createServer as createTlsServer, type Server} from 'node:tls'
import {createServer as createNetServer, type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {checkTls} from '../../src/doctor/tls.js'
import {selfSignedCert} from '../support/tls.js'

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], {stdio: 'pipe'})
    return true
  } catch {
    return false
  }
}

describe.skipIf(!hasOpenssl())('checkTls', () => {
  let server: Server
  let port: number
  let requests = 0

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bot-doctor-tls-'))
    const {keyFile, certFile} = selfSignedCert(dir, {cn: 'localhost', san: 'DNS:localhost,IP:127.0.0.1', days: 30})
    server = createTlsServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, (socket) => {
      socket.on('data', () => requests++)
      socket.on('error', () => {})
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()))
  })

  it('fails on a self-signed certificate that was not uploaded, with the fix', async () => {
    const finding = await checkTls('localhost', port, {address: '127.0.0.1'})
    expect(finding.status).toBe('fail')
    expect(finding.detail).toBe(
      `TLS: handshake with localhost:${port} failed: the certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    )
    expect(finding.fix).toContain('--certificate')
  })

  it('accepts it when it was uploaded (has_custom_certificate), and warns that it expires within 14 days or not', async () => {
    const finding = await checkTls('localhost', port, {address: '127.0.0.1', customCertificate: true})
    // 30 days of validity: not yet in the warning window.
    expect(finding.status).toBe('ok')
    expect(finding.detail).toMatch(
      /^TLS: TLSv1\.[23] handshake with localhost:\d+ ok, the uploaded self-signed certificate, valid until \d{4}-\d\d-\d\d$/,
    )
    expect(requests).toBe(0) // a handshake only: nothing was sent
  })

  it('fails when nothing listens, with a reachability fix', async () => {
    const probe = createNetServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const closed = (probe.address() as AddressInfo).port
    await new Promise<void>((r) => probe.close(() => r()))
    const finding = await checkTls('127.0.0.1', closed)
    expect(finding.status).toBe('fail')
    expect(finding.detail).toContain('ECONNREFUSED')
    expect(finding.fix).toMatch(/reachable from the internet/)
  })
})
