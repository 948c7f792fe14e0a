/** Shared helpers for the emulator tests: a started emulator, a raw API caller, loopback webhook receivers. */
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach} from 'vitest'
import {BotApiEmulator, type EmulatorOptions} from '../../src/emulator/index.js'

const running: Array<{stop(): Promise<void>}> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
})

export interface Raw {
  status: number
  headers: Headers
  text: string
  json: any
}

/**
 * Telegram's 60 s webhook read timeout in real time, whatever the timeScale: scaled (600 ms at 0.01) a loaded
 * machine's webhook handler can outlast it, and the update given up on is delivered again. Undefined at timeScale 0
 * (the emulator leaves the read timeout unscaled then).
 */
export function realReadTimeout(timeScale: number): number | undefined {
  return timeScale > 0 ? 60_000 / timeScale : undefined
}

/**
 * A started emulator (stopped after the test) with one bot, and `api()` to call it over real HTTP. Delays run at
 * timeScale 0.01 unless `options` says otherwise; the webhook read timeout stays 60 s of real time unless `options`
 * names one (a test of the read timeout itself).
 */
export async function setup(options: EmulatorOptions = {}) {
  const timeScale = options.timeScale ?? 0.01
  const emu = await BotApiEmulator.start({timeScale, webhookReadTimeoutMs: realReadTimeout(timeScale), ...options})
  running.push(emu)
  const bot = emu.createBot({username: 'test_bot', firstName: 'Test Bot'})
  const base = `${emu.apiRoot}/bot${bot.token}`
  /** Call a method with a JSON body (or GET without params). */
  const api = async (method: string, params?: Record<string, unknown>, init: RequestInit = {}): Promise<Raw> => {
    const res = await fetch(
      `${base}/${method}`,
      params
        ? {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(params), ...init}
        : init,
    )
    const text = await res.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return {status: res.status, headers: res.headers, text, json}
  }
  return {emu, bot, token: bot.token, base, api}
}

export interface Received {
  headers: http.IncomingHttpHeaders
  raw: string
  body: any
  at: number
}

export type Reply = {status: number; body?: string; headers?: Record<string, string>; delayMs?: number}

/**
 * A webhook receiver on loopback. `respond` decides each answer (default 200 with an empty body).
 * Everything received is kept in `received`.
 */
export async function receiver(
  respond: (req: Received, index: number) => Reply | Promise<Reply> = () => ({status: 200}),
) {
  const received: Received[] = []
  const sockets = new Set<import('node:net').Socket>()
  let active = 0
  let maxActive = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      active += 1
      maxActive = Math.max(maxActive, active)
      const raw = Buffer.concat(chunks).toString('utf8')
      const item: Received = {headers: req.headers, raw, body: JSON.parse(raw), at: Date.now()}
      received.push(item)
      const reply = await respond(item, received.length - 1)
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
      active -= 1
      if (res.destroyed) return
      res.writeHead(reply.status, reply.headers ?? {})
      res.end(reply.body ?? '')
    })
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const handle = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    get maxActive() {
      return maxActive
    },
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
  running.push(handle)
  return handle
}

/** A private text message body for injectUpdate. */
export const textMessage = (chatId: number, text: string, messageId = 1) => ({
  message: {
    message_id: messageId,
    from: {id: chatId, is_bot: false, first_name: 'U'},
    chat: {id: chatId, first_name: 'U', type: 'private'},
    date: Math.floor(Date.now() / 1000),
    text,
  },
})
