/**
 * Who may call the emulator: on both surfaces (`/bot<token>/…`, `/_emulator/…`) a request from a web
 * page of another site (Origin, Sec-Fetch-Site) is refused, and on loopback so is a Host that is not this server (DNS
 * rebinding); listening beyond loopback any host name is served but the Origin check stays. The control API takes JSON
 * only (415), and neither /calls nor /state shows a secret_token. Bot clients send none of these headers: grammY and
 * Telegraf work as before.
 */
import http from 'node:http'
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {receiver, setup} from './helpers.js'

interface Answer {
  status: number
  text: string
  json: any
}

/** A raw request to 127.0.0.1:port with exactly these headers (Host included, unless `host` is null). */
function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  host: string | null = `127.0.0.1:${port}`,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        setHost: false,
        headers: {...(host === null ? {} : {Host: host}), ...headers},
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => {
          let json: any
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({status: res.statusCode ?? 0, text, json})
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const CROSS_SITE = /^a request from a web page of another site is refused/

describe('on loopback: the Host must be this server', () => {
  it('127.0.0.1, localhost and [::1] with the port are served; a rebound name or another port get 403', async () => {
    const {emu, token} = await setup()
    const p = emu.port
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`, `LOCALHOST:${p}`]) {
      expect((await request(p, 'GET', `/bot${token}/getMe`, {}, undefined, host)).status, host).toBe(200)
      expect((await request(p, 'GET', `/_emulator/bots/${token}/state`, {}, undefined, host)).status, host).toBe(200)
    }
    for (const host of [`rebind.attacker.example:${p}`, `127.0.0.1:${p + 1}`, '127.0.0.1', `127.0.0.1.nip.io:${p}`]) {
      const api = await request(p, 'GET', `/bot${token}/getMe`, {}, undefined, host)
      expect(api.status, String(host)).toBe(403)
      expect(api.json).toEqual({
        ok: false,
        error_code: 403,
        description: `Forbidden: the Host header must name this server: 127.0.0.1:${p}, localhost:${p} or [::1]:${p} (a DNS name rebound to loopback is refused)`,
      })
      const calls = await request(p, 'GET', `/_emulator/bots/${token}/calls`, {}, undefined, host)
      expect(calls.status, String(host)).toBe(403)
      expect(Object.keys(calls.json)).toEqual(['error'])
      expect((await request(p, 'GET', `/file/bot${token}/photos/file_0.jpg`, {}, undefined, host)).status).toBe(403)
    }
  })

  it('allowedHosts: a name a proxy maps to it is served with any port; other names are still refused', async () => {
    const {emu, token} = await setup({allowedHosts: ['api.telegram.test']})
    const p = emu.port
    for (const host of ['api.telegram.test', 'API.telegram.test:80', `api.telegram.test:${p}`])
      expect((await request(p, 'GET', `/bot${token}/getMe`, {}, undefined, host)).status, host).toBe(200)
    for (const host of ['telegram.test', `rebind.attacker.example:${p}`, 'api.telegram.test.attacker.example'])
      expect((await request(p, 'GET', `/bot${token}/getMe`, {}, undefined, host)).status, host).toBe(403)
  })

  it('no Host at all is refused by Node before the emulator (400)', async () => {
    const {emu, token} = await setup()
    expect((await request(emu.port, 'GET', `/bot${token}/getMe`, {}, undefined, null)).status).toBe(400)
  })

  it("the session's webhook secret and path cannot be read through a rebound name", async () => {
    const {emu, token, api} = await setup()
    const hook = await receiver()
    await api('setWebhook', {url: `${hook.url}/SECRET-PATH`, secret_token: 'S3CRET_value'})
    const host = `rebind.attacker.example:${emu.port}`
    for (const path of [
      `/_emulator/bots/${token}/calls`,
      `/_emulator/bots/${token}/state`,
      `/bot${token}/getWebhookInfo`,
    ]) {
      const answer = await request(emu.port, 'GET', path, {}, undefined, host)
      expect(answer.status).toBe(403)
      expect(answer.text).not.toContain('S3CRET_value')
      expect(answer.text).not.toContain('SECRET-PATH')
    }
  })
})

describe('a request from a web page of another site is refused on both surfaces', () => {
  const crossSite: Array<[string, Record<string, string>]> = [
    ['Origin of another port', {Origin: 'http://127.0.0.1:1'}],
    ['Origin of another site', {Origin: 'https://attacker.example'}],
    ['Origin: null', {Origin: 'null'}],
    ['Sec-Fetch-Site: cross-site', {'Sec-Fetch-Site': 'cross-site'}],
    ['Sec-Fetch-Site: same-site', {'Sec-Fetch-Site': 'same-site'}],
  ]
  for (const [what, headers] of crossSite) {
    it(`${what}: reset, user messages, setWebhook by GET and logOut do nothing`, async () => {
      const {emu, token} = await setup()
      const p = emu.port
      emu.sendUserMessage(token, {text: 'queued'})
      const reset = await request(p, 'POST', '/_emulator/reset', {'Content-Type': 'text/plain', ...headers}, 'x=y')
      expect(reset.status).toBe(403)
      expect(reset.json.error).toMatch(CROSS_SITE)
      const injected = await request(
        p,
        'POST',
        `/_emulator/bots/${token}/messages`,
        {'Content-Type': 'application/json', ...headers},
        '{"text":"injected"}',
      )
      expect(injected.status).toBe(403)
      const hook = await request(p, 'GET', `/bot${token}/setWebhook?url=http://127.0.0.1:9/steal`, headers)
      expect(hook.status).toBe(403)
      expect(hook.json.description).toMatch(/^Forbidden: a request from a web page of another site is refused/)
      expect((await request(p, 'POST', `/bot${token}/logOut`, headers)).status).toBe(403)
      expect((await request(p, 'GET', `/_emulator/bots/${token}/calls`, headers)).status).toBe(403)
      // nothing happened
      expect(emu.pendingUpdates(token).map((u) => (u.message as {text?: string} | undefined)?.text)).toEqual(['queued'])
      expect(emu.webhook(token)).toBeUndefined()
      expect(emu.calls(token)).toEqual([])
      expect((await request(p, 'GET', `/bot${token}/getMe`, {})).status).toBe(200)
    })
  }

  it("the emulator's own origin and Sec-Fetch-Site same-origin / none are served", async () => {
    const {emu, token} = await setup()
    const p = emu.port
    for (const headers of [
      {Origin: `http://127.0.0.1:${p}`} as Record<string, string>,
      {'Sec-Fetch-Site': 'same-origin'},
      {'Sec-Fetch-Site': 'none'},
    ]) {
      expect((await request(p, 'GET', `/bot${token}/getMe`, headers)).status).toBe(200)
      expect((await request(p, 'GET', `/_emulator/bots/${token}/state`, headers)).status).toBe(200)
    }
  })
})

describe('listening beyond loopback (--host 0.0.0.0)', () => {
  it('serves any host name (docker-compose: emulator:8081), still refuses other sites', async () => {
    const emu = await BotApiEmulator.start({host: '0.0.0.0', timeScale: 0.01})
    try {
      const {token} = emu.createBot()
      const p = emu.port
      const host = `emulator:${p}`
      expect((await request(p, 'GET', `/bot${token}/getMe`, {}, undefined, host)).status).toBe(200)
      expect((await request(p, 'GET', `/_emulator/bots/${token}/state`, {}, undefined, host)).status).toBe(200)
      expect(
        (await request(p, 'GET', `/bot${token}/getMe`, {Origin: `http://emulator:${p}`}, undefined, host)).status,
      ).toBe(200)
      for (const headers of [{Origin: 'http://attacker.example'}, {'Sec-Fetch-Site': 'cross-site'}] as Array<
        Record<string, string>
      >) {
        expect((await request(p, 'GET', `/bot${token}/getMe`, headers, undefined, host)).status).toBe(403)
        expect((await request(p, 'POST', '/_emulator/reset', headers, undefined, host)).status).toBe(403)
      }
    } finally {
      await emu.stop()
    }
  })
})

describe('the control API takes JSON', () => {
  it('415 for text/plain, a form, multipart where no file goes, or a body without a Content-Type', async () => {
    const {emu, token} = await setup()
    const p = emu.port
    const path = `/_emulator/bots/${token}/messages`
    for (const [type, body] of [
      ['text/plain', '{"text":"hi"}'],
      ['application/x-www-form-urlencoded', 'text=hi'],
      [undefined, '{"text":"hi"}'],
    ] as const) {
      const answer = await request(p, 'POST', path, type ? {'Content-Type': type} : {}, body)
      expect(answer.status, type).toBe(415)
      expect(answer.json.error).toMatch(/^send the body as JSON with Content-Type: application\/json/)
    }
    const form = await request(
      p,
      'POST',
      `/_emulator/bots/${token}/faults`,
      {'Content-Type': 'multipart/form-data; boundary=x'},
      '--x\r\nContent-Disposition: form-data; name="method"\r\n\r\nsendMessage\r\n--x--\r\n',
    )
    expect(form.status).toBe(415)
    expect((await request(p, 'POST', '/_emulator/reset', {'Content-Type': 'text/plain'}, 'x')).status).toBe(415)
    expect(emu.pendingUpdates(token)).toEqual([])
    // JSON (with a charset), and no body at all, are served
    const ok = await request(p, 'POST', path, {'Content-Type': 'application/json; charset=utf-8'}, '{"text":"hi"}')
    expect(ok.status).toBe(200)
    expect((await request(p, 'POST', '/_emulator/reset', {})).status).toBe(200)
    expect((await request(p, 'POST', `/_emulator/bots/${token}/chats/1111/block`, {})).status).toBe(200)
  })
})

describe('the control API never shows a secret_token', () => {
  it('/calls shows it as [hidden], /state not at all; emu.calls() in JavaScript keeps it', async () => {
    const {emu, token, api} = await setup()
    const hook = await receiver()
    expect((await api('setWebhook', {url: hook.url, secret_token: 'S3CRET_value'})).json.ok).toBe(true)
    await api('getWebhookInfo')
    const calls = await request(emu.port, 'GET', `/_emulator/bots/${token}/calls`, {})
    expect(calls.status).toBe(200)
    expect(calls.text).not.toContain('S3CRET_value')
    expect(calls.json.calls[0]).toMatchObject({method: 'setWebhook', params: {url: hook.url, secret_token: '[hidden]'}})
    const state = await request(emu.port, 'GET', `/_emulator/bots/${token}/state`, {})
    expect(state.status).toBe(200)
    expect(state.json.webhook).toMatchObject({url: hook.url})
    expect(state.text).not.toContain('S3CRET_value')
    expect(emu.calls(token)[0].params.secret_token).toBe('S3CRET_value')
  })
})

describe('bot clients send neither Origin nor Sec-Fetch-Site', () => {
  it('grammY and Telegraf call the emulator as before', async () => {
    const {emu, token} = await setup()
    emu.sendUserMessage(token, {text: 'hi', userId: 7})
    const grammy = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    expect((await grammy.api.getMe()).is_bot).toBe(true)
    expect((await grammy.api.sendMessage(7, 'from grammY')).text).toBe('from grammY')
    const telegraf = new Telegraf(token, {telegram: {apiRoot: emu.apiRoot}})
    expect((await telegraf.telegram.getMe()).is_bot).toBe(true)
    expect((await telegraf.telegram.sendMessage(7, 'from Telegraf')).text).toBe('from Telegraf')
    expect(
      (await grammy.api.getUpdates({timeout: 0})).map((u) => (u.message as {text?: string} | undefined)?.text),
    ).toEqual(['hi'])
  })
})
