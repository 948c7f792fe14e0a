/**
 * The checks the session's loopback servers share (lib/loopback-http.ts), over real sockets, the same
 * hostile requests sent to each: the inspector, the control port and `bot dev`'s api proxy (in front
 * of a real emulator). A rebound Host, two Host headers, an Origin of another site, `Origin: null`
 * and `Sec-Fetch-Site: cross-site` / `same-site` get 403 and reach nothing; what a bot client, curl,
 * `bot trigger` or the inspector's own page sends still works. The api proxy also refuses the
 * emulator's control API however its path is spelled (the bot has no business resetting its own
 * test server), and a page's `logOut` through it changes nothing.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startControlPort, type ControlPort} from '../../src/control/server.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {startApiProxy, type ApiProxy} from '../../src/inspector/proxy/api-proxy.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import {startInspectorServer, type InspectorServer} from '../../src/inspector/web/server.js'
import {loopbackRequest, type HttpReply} from '../support/http.js'
import {RecordingActions} from './control-helpers.js'

const KEY = 'c0ffee00c0ffee00c0ffee00c0ffee00'

let emu: BotApiEmulator
let token: string
let proxy: ApiProxy
let inspector: InspectorServer
let control: ControlPort
let actions: RecordingActions
let replays: number
let calls: string[]

beforeEach(async () => {
  emu = await BotApiEmulator.start()
  token = emu.createBot({username: 'checks_bot'}).token
  calls = []
  proxy = await startApiProxy({upstream: emu.apiRoot, onCall: (c) => calls.push(c.method)})
  const history = new UpdateHistory()
  history.begin({update_id: 7, message: {message_id: 1, date: 1, chat: {id: 1, type: 'private'}, text: 'x'}}, 'webhook')
  replays = 0
  inspector = await startInspectorServer({
    history,
    key: KEY,
    actions: {
      async replay(updateId) {
        replays++
        return history.begin(history.find(updateId)?.update, 'replay', updateId)
      },
    },
  })
  actions = new RecordingActions()
  control = await startControlPort({actions, key: KEY})
})

afterEach(async () => {
  await Promise.all([proxy.close(), inspector.close(), control.close()])
  await emu.stop()
})

/** One state-changing request to each server, as a client would send it, plus `headers`. */
function toEach(headers: Record<string, string>, host?: (port: number) => string) {
  const hostOf = (port: number) => host?.(port) ?? `127.0.0.1:${port}`
  return {
    proxy: () =>
      loopbackRequest(proxy.port, `/bot${token}/logOut`, {method: 'POST', host: hostOf(proxy.port), headers}),
    inspector: () =>
      loopbackRequest(inspector.port, '/api/updates/7/replay', {
        method: 'POST',
        host: hostOf(inspector.port),
        headers: {'x-bot-dev-key': KEY, ...headers},
      }),
    control: () =>
      loopbackRequest(control.port, '/trigger', {
        method: 'POST',
        host: hostOf(control.port),
        headers: {'x-bot-dev-key': KEY, 'content-type': 'application/json', ...headers},
        body: JSON.stringify({kind: 'message', text: 'hi'}),
      }),
  }
}

async function nothingHappened(): Promise<void> {
  expect(replays).toBe(0)
  expect(actions.triggers).toEqual([])
  expect(calls).toEqual([])
  // The emulated bot was not logged out: getMe through the proxy still answers.
  const me = await loopbackRequest(proxy.port, `/bot${token}/getMe`)
  expect(me.status).toBe(200)
}

const FOREIGN: Array<[string, Record<string, string>]> = [
  ['Origin of another site', {origin: 'http://evil.example'}],
  ['Origin of another loopback port', {origin: 'http://127.0.0.1:1'}],
  ['Origin: null', {origin: 'null'}],
  ['Sec-Fetch-Site: cross-site', {'sec-fetch-site': 'cross-site'}],
  ['Sec-Fetch-Site: same-site', {'sec-fetch-site': 'same-site'}],
]

describe('the shared checks: the same hostile request to the inspector, the control port and the api proxy', () => {
  for (const [name, headers] of FOREIGN) {
    it(`${name}: 403 from each, nothing delivered, forwarded or logged out`, async () => {
      const each = toEach(headers)
      const answers: Record<string, HttpReply> = {
        proxy: await each.proxy(),
        inspector: await each.inspector(),
        control: await each.control(),
      }
      for (const [server, answer] of Object.entries(answers))
        expect(answer.status, `${server}: ${answer.body}`).toBe(403)
      expect(JSON.parse(answers.proxy.body)).toMatchObject({ok: false, error_code: 403})
      expect(JSON.parse(answers.proxy.body).description).toMatch(/web pages/)
      await nothingHappened()
    })
  }

  it('a DNS-rebound Host (rebind.attacker.example:PORT): 403 from each, nothing delivered or forwarded', async () => {
    const each = toEach({}, (port) => `rebind.attacker.example:${port}`)
    for (const send of [each.proxy, each.inspector, each.control]) expect((await send()).status).toBe(403)
    // The rebinding attack of the issue: reading the recorded calls through the proxy by GET.
    const read = await loopbackRequest(proxy.port, `/bot${token}/getWebhookInfo`, {
      host: `rebind.attacker.example:${proxy.port}`,
    })
    expect(read.status).toBe(403)
    expect(read.body).not.toContain('"url"')
    await nothingHappened()
  })

  it('a Host without the port, or two Host headers: 403 from each', async () => {
    const each = toEach({}, () => '127.0.0.1')
    for (const send of [each.proxy, each.inspector, each.control]) expect((await send()).status).toBe(403)
    // Two Host headers, the first one right (node:http joins nothing: each is sent as given).
    for (const port of [proxy.port, inspector.port, control.port]) {
      const {rawExchange, statusOf} = await import('./hostile-helpers.js')
      const answer = await rawExchange(
        port,
        `POST /trigger HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\nx-bot-dev-key: ${KEY}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      )
      expect([400, 403]).toContain(statusOf(answer))
    }
    await nothingHappened()
  })

  it('what real clients send still works: no Origin (bot clients, curl, bot trigger), the own origin, Sec-Fetch-Site none / same-origin', async () => {
    const me = await loopbackRequest(proxy.port, `/bot${token}/getMe`, {headers: {'user-agent': 'grammY'}})
    expect(me.status).toBe(200)
    expect(JSON.parse(me.body)).toMatchObject({ok: true, result: {username: 'checks_bot'}})
    expect((await loopbackRequest(proxy.port, `/bot${token}/getMe`, {host: `localhost:${proxy.port}`})).status).toBe(
      200,
    )
    const own = toEach({origin: `http://127.0.0.1:${inspector.port}`, 'sec-fetch-site': 'same-origin'})
    expect((await own.inspector()).status).toBe(200)
    for (const site of ['none', 'same-origin']) {
      const each = toEach({'sec-fetch-site': site})
      expect((await each.control()).status).toBe(200)
      expect((await each.inspector()).status).toBe(200)
    }
    expect((await toEach({}).control()).status).toBe(200)
    expect(actions.triggers.length).toBe(3)
    expect(replays).toBe(3)
  })
})

describe("the api proxy never passes the emulator's control API through", () => {
  const spellings = (t: string) => [
    '/_emulator/reset',
    '/_emulator',
    '//_emulator/reset',
    '/_EMULATOR/reset',
    '/%5Femulator/reset',
    `/bot${t}/../_emulator/reset`,
    `/bot${t}/%2e%2e/_emulator/reset`,
    `/bot${t}/..%2F_emulator/reset`,
    '/./_emulator/reset',
    '/_emulator/bots/x/updates?x=1',
  ]

  it('each spelling of /_emulator/… gets 403 with the reason; the emulator is not reset', async () => {
    emu.sendUserMessage(token, {text: 'still here', userId: 1111})
    for (const path of spellings(token)) {
      const answer = await loopbackRequest(proxy.port, path, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: '{}',
      })
      expect(answer.status, path).toBe(403)
      expect(JSON.parse(answer.body).description, path).toMatch(/control API \(\/_emulator\/…\)/)
    }
    // Not reset: the pending message is still there, and the bot still exists.
    const updates = await loopbackRequest(proxy.port, `/bot${token}/getUpdates`)
    expect(updates.status).toBe(200)
    expect(JSON.stringify(JSON.parse(updates.body).result)).toContain('still here')
    // The emulator itself serves its control API to whoever calls it directly (a test, curl).
    const direct = await fetch(`${emu.controlApiRoot}/bots/${token}/calls`)
    expect(direct.status).toBe(200)
  })
})
