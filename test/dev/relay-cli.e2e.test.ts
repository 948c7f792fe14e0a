/**
 * The relay inside a real `bot dev` process (emulator, real localtunnel client, loopback
 * localtunnel server): an anonymous request that used to kill the session, and update lines that
 * used to leak part of a token or pass terminal controls through (update lines go to stdout). Needs `npm run build`.
 */
import net from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {assertNoToken, devWorld, startDev, type DevWorld} from './helpers.js'
import {waitFor} from '../support/wait.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

/** Send raw bytes to a URL's host and port; resolves with what came back once the connection ends. */
async function sendRaw(url: string, bytes: Buffer): Promise<string> {
  const {hostname, port} = new URL(url)
  const socket = net.connect(Number(port), hostname)
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.write(bytes)
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer from ${url} within 10 s`))
    }, 10_000)
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve()
    })
  })
  return Buffer.concat(chunks).toString('latin1')
}

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

describe('bot dev: the relay under attack', () => {
  it('a secret header of the right length with a non-ASCII byte gets 401; the session lives on', async () => {
    const {emu, token} = world
    const dev = startDev(world)
    await dev.waitForOutput(/Ready/)
    const hook = emu.webhook(token)!
    const secret = hook.secretToken!
    const url = new URL(hook.url)
    const body = JSON.stringify({
      update_id: 1,
      message: {message_id: 1, date: 0, chat: {id: 1, type: 'private'}, text: 'forged'},
    })
    const forged = '\xe9' + '4'.repeat(secret.length - 1)
    const head = [
      `POST ${url.pathname} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      `X-Telegram-Bot-Api-Secret-Token: ${forged}`,
      'Connection: close',
    ]
    const answer = await sendRaw(hook.url, Buffer.from(head.join('\r\n') + '\r\n\r\n' + body, 'latin1'))
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    // Still alive and delivering.
    const update = emu.sendUserMessage(token, {text: 'real', chatId: 3})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the real update to reach the bot'})
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    expect(result.stderr).not.toMatch(/ERR_CRYPTO|RangeError/)
    expect(emu.webhook(token)).toBeUndefined()
    assertNoToken(result, token)
  })

  it('items 7 and 18: the update line shows neither part of a token nor raw terminal controls', async () => {
    const {emu, token} = world
    const dev = startDev(world)
    await dev.waitForOutput(/Ready/)
    const leaked = '7012345678:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'
    const first = emu.sendUserMessage(token, {text: `my token is ${leaked}`, chatId: 11})
    const second = emu.sendUserMessage(token, {
      text: '\u202eevil\u202c \u009b2J\u001b]0;x\u0007 \u2067x\u2069',
      chatId: 12,
    })
    await dev.waitForOutput(new RegExp(`#${second.update_id} message chat 12`))
    await dev.waitForOutput(new RegExp(`#${first.update_id} message chat 11`))
    dev.kill('SIGINT')
    const result = await dev.exited
    expect(result.code).toBe(0)
    // Update lines are printed on stdout, the session log on stderr: neither may carry them.
    const printed = result.stdout + result.stderr
    const line = (id: number) => printed.split('\n').find((l) => l.includes(`#${id} message`)) ?? ''
    expect(line(first.update_id)).toContain('"my token is <token>"')
    expect(printed).not.toContain('AAHdq')
    expect(line(second.update_id)).toContain('\\\\u009b2J')
    expect(line(second.update_id)).toContain('\\\\u202eevil')
    expect(printed).not.toMatch(UNSAFE)
    assertNoToken(result, token)
  })
})
