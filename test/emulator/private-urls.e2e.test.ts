/**
 * `bot emulator --host` beyond loopback and URLs the caller names (issue 31, item 4), as a real
 * process: a caller on the network used to make the emulator fetch any loopback URL (sendVoice,
 * sendAnimation, sendSticker, sendVideoNote with `http://127.0.0.1:…`) and read the bytes back
 * through getFile, or point a webhook at a loopback path. Beyond loopback such URLs (and private
 * addresses) are refused with Telegram's texts and nothing is fetched; `--allow-private-urls` lets
 * them through (and the warning line says which applies). On loopback (the default) nothing changes.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {startCli, type RunningCli} from '../support/cli.js'

const SECRET_BYTES = 'loopback-only service: SECRET 42'

let running: RunningCli[] = []
let server: Server | undefined
afterEach(async () => {
  for (const p of running) p.kill('SIGKILL')
  running = []
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** A service that listens on loopback only, counting the requests it gets. */
async function loopbackService(): Promise<{url: string; requests: () => number}> {
  let requests = 0
  server = createServer((req, res) => {
    requests++
    req.resume()
    res.writeHead(200, {'content-type': 'application/octet-stream'})
    res.end(SECRET_BYTES)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests: () => requests}
}

async function emulator(args: string[]): Promise<{p: RunningCli; apiRoot: string; token: string}> {
  const p = startCli(['emulator', '--port', '0', '--host', '0.0.0.0', '--json', ...args], {timeoutMs: 90_000})
  running.push(p)
  await p.waitForOutput(/\n/, {stream: 'stdout', timeoutMs: 20_000})
  const info = JSON.parse(p.stdout().split('\n')[0]) as {apiRoot: string; token: string}
  // Reached through loopback here, as a machine of the network reaches 0.0.0.0.
  const apiRoot = info.apiRoot.replace('0.0.0.0', '127.0.0.1')
  // The user writes first: the chat exists.
  const hello = await fetch(`${apiRoot}/_emulator/bots/${info.token}/messages`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({text: 'hi'}),
  })
  expect(hello.status).toBe(200)
  return {p, apiRoot, token: info.token}
}

async function call(apiRoot: string, token: string, method: string, params: object) {
  const res = await fetch(`${apiRoot}/bot${token}/${method}`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify(params),
  })
  return (await res.json()) as {ok: boolean; error_code?: number; description?: string; result?: any}
}

const SENDS: Array<[string, string]> = [
  ['sendVoice', 'voice'],
  ['sendAnimation', 'animation'],
  ['sendSticker', 'sticker'],
  ['sendVideoNote', 'video_note'],
]

describe('bot emulator --host 0.0.0.0 and URLs to loopback and private addresses', () => {
  it("refuses them with Telegram's texts and fetches nothing; the warning says so", async () => {
    const service = await loopbackService()
    const {p, apiRoot, token} = await emulator([])
    await p.waitForOutput(/\n/, {stream: 'stderr', timeoutMs: 15_000})
    expect(p.stderr()).toContain(
      'URLs to loopback and private addresses (a file sent by URL, setWebhook) are refused; --allow-private-urls allows them',
    )
    for (const [method, field] of SENDS) {
      for (const url of [`${service.url}/file.bin`, 'http://10.1.2.3/x.bin']) {
        const r = await call(apiRoot, token, method, {chat_id: 1111, [field]: url})
        expect(r, `${method} ${url}`).toEqual({
          ok: false,
          error_code: 400,
          description: 'Bad Request: failed to get HTTP URL content',
        })
      }
    }
    // (one setWebhook: the emulator keeps Telegram's one-per-second limit)
    expect(await call(apiRoot, token, 'setWebhook', {url: `${service.url}/hook`})).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: bad webhook: IP address 127.0.0.1 is reserved',
    })
    expect(service.requests()).toBe(0)
    expect((await call(apiRoot, token, 'getWebhookInfo', {})).result.url).toBe('')
  })

  it('--allow-private-urls: fetched and served back through getFile, as on loopback', async () => {
    const service = await loopbackService()
    const {p, apiRoot, token} = await emulator(['--allow-private-urls'])
    await p.waitForOutput(/\n/, {stream: 'stderr', timeoutMs: 15_000})
    expect(p.stderr()).toContain('(--allow-private-urls): anyone on the network can read the loopback services')
    const sent = await call(apiRoot, token, 'sendVoice', {chat_id: 1111, voice: `${service.url}/v.ogg`})
    expect(sent.ok, JSON.stringify(sent)).toBe(true)
    const file = await call(apiRoot, token, 'getFile', {file_id: sent.result.voice.file_id})
    const bytes = await (await fetch(`${apiRoot}/file/bot${token}/${file.result.file_path}`)).text()
    expect(bytes).toBe(SECRET_BYTES)
    expect((await call(apiRoot, token, 'setWebhook', {url: `${service.url}/hook`})).ok).toBe(true)
  })
})
