/**
 * Issue 31 item 14, the right words, under a real `bot dev` session (the emulator as the Bot API,
 * the loopback tunnel, real bot processes):
 * - a bot that listens on another port than PORT is named with the port it listens on, the PORT
 *   the session expected, and the fix;
 * - update lines name what a message holds (`photo`, `voice`, `location`, …, `successful_payment
 *   1 XTR` with its amount and currency), in the text output and in --json's `content`.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {freePort} from '../../src/lib/free-port.js'
import {waitFor} from '../support/wait.js'
import {devWorld, startDev, type DevWorld} from './helpers.js'

let world: DevWorld
beforeEach(async () => {
  world = await devWorld()
})
afterEach(async () => {
  await world.close()
})

describe('a bot that listens on another port than PORT', () => {
  it('is named with the port it listens on, the PORT expected, and the fix', async () => {
    const own = await freePort()
    const dir = join(world.dir, 'fixed-port')
    mkdirSync(dir)
    // A port written in the code, as in many tutorials.
    writeFileSync(
      join(dir, 'bot.mjs'),
      `import http from 'node:http'\nhttp.createServer((q, s) => s.end('ok')).listen(${own}, '127.0.0.1')\n`,
    )
    const dev = startDev(world, {cwd: dir, bot: ['node', 'bot.mjs'], timeoutMs: 90_000})
    await dev.waitForOutput(/listens on port/, {timeoutMs: 30_000})
    const port = Number(/PORT=(\d+)\)/.exec(dev.stderr())?.[1])
    expect(port).toBeGreaterThan(0)
    expect(port).not.toBe(own)
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.stderr).toContain(
      `The bot listens on port ${own}, not on PORT=${port} that bot dev gave it; updates are held until it listens on ${port}.`,
    )
    expect(r.stderr).toContain('Listen on process.env.PORT (e.g. server.listen(Number(process.env.PORT))')
    expect(r.stderr).toContain(`or run \`bot dev --port ${own}\``)
    expect(r.stderr.match(/The bot listens on port/g)).toHaveLength(1)
  })

  it('says nothing of the kind for a bot that listens on PORT and on a second port', async () => {
    const other = await freePort()
    const dir = join(world.dir, 'two-ports')
    mkdirSync(dir)
    // A metrics server first, PORT a little later (the echo fixture, started after it).
    writeFileSync(
      join(dir, 'bot.mjs'),
      `import http from 'node:http'\nhttp.createServer((q, s) => s.end('m')).listen(${other}, '127.0.0.1', () => import(${JSON.stringify(new URL('../fixtures/bots/echo-bot.mjs', import.meta.url).pathname)}))\n`,
    )
    const dev = startDev(world, {cwd: dir, bot: ['node', 'bot.mjs'], timeoutMs: 90_000})
    await dev.waitForOutput(/Ready/, {timeoutMs: 30_000})
    const update = world.emu.sendUserMessage(world.token, {text: 'hi'})
    await waitFor(() => world.recorded().includes(update.update_id), {what: 'the update', timeout: 20_000})
    dev.kill('SIGINT')
    const r = await dev.exited
    expect(r.stderr).not.toMatch(/listens on port/)
  })
})

describe('update lines name what a message holds', () => {
  it('photo, document, voice, sticker, location, venue, contact, poll, payments with amount and currency', async () => {
    const dev = startDev(world, {args: ['--no-watch', '--json'], timeoutMs: 90_000})
    await waitFor(() => dev.stdout().includes('"type":"ready"'), {what: 'ready', timeout: 30_000})
    const chat = {id: 5150, type: 'private', first_name: 'Ann'}
    const from = {id: 5150, is_bot: false, first_name: 'Ann'}
    let n = 1
    const message = (fields: Record<string, unknown>) => ({
      message: {message_id: n++, date: Math.floor(Date.now() / 1000), chat, from, ...fields},
    })
    const file = (id: string) => ({file_id: id, file_unique_id: id})
    const cases: Array<[Record<string, unknown>, string]> = [
      [{photo: [{...file('p'), width: 90, height: 90}], caption: 'a cat'}, 'photo'],
      [{document: {...file('d'), file_name: 'a.pdf'}}, 'document'],
      [{voice: {...file('v'), duration: 2}}, 'voice'],
      [{sticker: {...file('s'), type: 'regular', width: 1, height: 1, is_animated: false, is_video: false}}, 'sticker'],
      [{location: {latitude: 1, longitude: 2}}, 'location'],
      [
        {
          location: {latitude: 1, longitude: 2},
          venue: {location: {latitude: 1, longitude: 2}, title: 'T', address: 'A'},
        },
        'venue',
      ],
      [{contact: {phone_number: '+1', first_name: 'B'}}, 'contact'],
      [
        {
          poll: {
            id: 'p1',
            question: 'Q?',
            options: [],
            total_voter_count: 0,
            is_closed: false,
            is_anonymous: true,
            type: 'regular',
            allows_multiple_answers: false,
          },
        },
        'poll',
      ],
      [
        {
          successful_payment: {
            currency: 'XTR',
            total_amount: 1,
            invoice_payload: 'x',
            telegram_payment_charge_id: 'c',
            provider_payment_charge_id: '',
          },
        },
        'successful_payment 1 XTR',
      ],
      [
        {
          successful_payment: {
            currency: 'USD',
            total_amount: 999,
            invoice_payload: 'x',
            telegram_payment_charge_id: 'c',
            provider_payment_charge_id: 'p',
          },
        },
        'successful_payment 9.99 USD',
      ],
      [{text: 'plain'}, ''],
    ]
    const ids: number[] = []
    for (const [fields] of cases) ids.push(world.emu.injectUpdate(world.token, message(fields)).update_id)
    await waitFor(() => ids.every((id) => dev.stdout().includes(`"updateId":${id},`)), {
      what: () => `the update lines ${JSON.stringify(ids)}\n${dev.stdout()}`,
      timeout: 30_000,
    })
    dev.kill('SIGINT')
    const r = await dev.exited
    const events = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as {type: string; updateId?: number; content?: string; text?: string})
      .filter((e) => e.type === 'update')
    cases.forEach(([, words], i) => {
      const e = events.find((x) => x.updateId === ids[i])
      expect(e?.content, words).toBe(words === '' ? undefined : words)
      const after = words === '' ? 'message chat 5150 "plain"' : `message ${words} chat 5150`
      expect(e?.text, words).toContain(`#${ids[i]} ${after}`)
    })
    expect(events.find((e) => e.updateId === ids[0])?.text).toContain('message photo chat 5150 "a cat" → 200')
  })
})
