/**
 * Every webhook delivery failure is recorded with Telegram's text (WebhookActor.cpp on_connection_error), never Node's:
 * read back with grammY's getWebhookInfo, as a bot would.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Bot} from 'grammy'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {setup} from './helpers.js'
import {selfSignedCert} from '../support/tls.js'
import {waitFor} from '../support/wait.js'

let dir: string
const servers: Array<{close(): unknown}> = []
let tlsPort = 0
let plainPort = 0
let garbagePort = 0
let resetPort = 0
let closedPort = 0

const listen = async (server: net.Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return (server.address() as net.AddressInfo).port
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'emu-hook-'))
  const {keyFile, certFile} = selfSignedCert(dir, {cn: 'localhost'})
  tlsPort = await listen(
    https.createServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, (_q, r) => r.end()),
  )
  plainPort = await listen(http.createServer((_q, r) => r.end()))
  garbagePort = await listen(net.createServer((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n')))
  resetPort = await listen(net.createServer((s) => s.once('data', () => s.resetAndDestroy())))
  const closed = net.createServer()
  closedPort = await listen(closed)
  await new Promise((r) => closed.close(r))
})

afterAll(() => {
  for (const s of servers) s.close()
  rmSync(dir, {recursive: true, force: true})
})

async function lastError(url: string): Promise<{message?: string; pending: number}> {
  const {emu, token} = await setup({timeScale: 0.01})
  const bot = new Bot(token, {client: {apiRoot: emu.apiRoot}})
  await bot.api.setWebhook(url, {ip_address: '127.0.0.1'})
  const failed = new Promise<void>((resolve) =>
    emu.on('delivery', (e) => {
      if (e.token === token && !e.ok) resolve()
    }),
  )
  emu.sendUserMessage(token, {text: 'x'})
  await failed
  const info = await bot.api.getWebhookInfo()
  return {message: info.last_error_message, pending: info.pending_update_count}
}

describe('webhook delivery errors in Telegram words', () => {
  it('https to a plain HTTP server: the SSL error Telegram records (not "write EPROTO … wrong version number")', async () => {
    expect(await lastError(`https://localhost:${plainPort}/hook`)).toEqual({
      message: 'SSL error {error:140840FF:SSL routines:ssl3_connect:unknown state}',
      pending: 1,
    })
  })

  it('an untrusted certificate: certificate verify failed', async () => {
    expect((await lastError(`https://localhost:${tlsPort}/hook`)).message).toBe(
      'SSL error {error:0A000086:SSL routines::certificate verify failed}',
    )
  })

  it('plain HTTP to a TLS server: the connection closes unanswered, which Telegram retries without recording', async () => {
    expect(await lastError(`http://localhost:${tlsPort}/hook`)).toEqual({message: undefined, pending: 1})
  })

  it('refused, reset, and answers that are not HTTP', async () => {
    expect((await lastError(`http://localhost:${closedPort}/hook`)).message).toBe('Connection refused')
    expect((await lastError(`http://localhost:${resetPort}/hook`)).message).toBe('Connection reset by peer')
    expect((await lastError(`http://localhost:${garbagePort}/hook`)).message).toBe(
      'Wrong response from the webhook: the answer is not an HTTP response',
    )
  })

  it('keeps the HTTP status text of a non-2xx answer', async () => {
    const server = http.createServer((_q, r) => r.writeHead(502, 'Bad Gateway').end())
    const port = await listen(server)
    await waitFor(() => port > 0, {what: 'the server'})
    expect((await lastError(`http://localhost:${port}/hook`)).message).toBe(
      'Wrong response from the webhook: 502 Bad Gateway',
    )
  })
})
