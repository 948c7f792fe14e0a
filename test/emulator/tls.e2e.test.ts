/** https webhooks on loopback: a self-signed certificate is refused unless uploaded with setWebhook. */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import https from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {selfSignedCert} from '../support/tls.js'
import {waitFor} from '../support/wait.js'

let dir: string
let cert: Buffer
let server: https.Server
let port: number
const received: unknown[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'emu-tls-'))
  const {keyFile, certFile} = selfSignedCert(dir, {cn: 'localhost', san: 'DNS:localhost'})
  cert = readFileSync(certFile)
  server = https.createServer({key: readFileSync(keyFile), cert}, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  rmSync(dir, {recursive: true, force: true})
})

describe('https webhooks', () => {
  it('records an SSL error for a self-signed certificate that was not uploaded', async () => {
    const {api, emu, token} = await setup({timeScale: 1})
    await api('setWebhook', {url: `https://localhost:${port}/hook`, ip_address: '127.0.0.1'})
    emu.sendUserMessage(token, {text: 'x'})
    const message = await waitFor(() => emu.getWebhookInfo(token).last_error_message as string | undefined, {
      what: 'an SSL error',
    })
    expect(message).toBe('SSL error {error:0A000086:SSL routines::certificate verify failed}')
    expect(emu.pendingUpdates(token)).toHaveLength(1)
  })

  it('delivers over TLS when the certificate is uploaded with setWebhook', async () => {
    const {base, emu, token} = await setup()
    const form = new FormData()
    form.set('url', `https://localhost:${port}/hook`)
    form.set('ip_address', '127.0.0.1')
    form.set('certificate', new Blob([new Uint8Array(cert)]), 'cert.pem')
    expect((await (await fetch(`${base}/setWebhook`, {method: 'POST', body: form})).json()).description).toBe(
      'Webhook was set',
    )
    const u = emu.sendUserMessage(token, {text: 'over tls'})
    await waitFor(() => emu.pendingUpdates(token).length === 0, {what: 'the TLS delivery'})
    expect(received).toContainEqual(u)
    expect(emu.getWebhookInfo(token)).toMatchObject({has_custom_certificate: true, ip_address: '127.0.0.1'})
  })
})
