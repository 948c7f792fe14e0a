/**
 * Acceptance of issue 13's synthetic updates: the update_id scheme of `bot trigger` (counting down
 * from 2^31-1, so it cannot be Telegram's next real update_id) is one grammY handles; triggers and
 * replays are dated now; an update the emulator drops is refused with the real reason.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {Bot, webhookCallback} from 'grammy'
import {afterEach, describe, expect, it} from 'vitest'

import {droppedError} from '../../src/control/emulator-trigger.js'
import {BotApiEmulator} from '../../src/emulator/index.js'
import {
  expiredDate,
  nextSyntheticUpdateId,
  SYNTHETIC_UPDATE_ID_TOP,
  syntheticUpdate,
  withCurrentDate,
} from '../../src/control/synthetic.js'

const servers: Server[] = []
const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()))
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0)
const OLD = 1_700_000_000

const oldMessage = () => ({
  update_id: 5,
  message: {
    message_id: 3,
    from: {id: 1111, is_bot: false, first_name: 'A'},
    chat: {id: 1111, type: 'private', first_name: 'A'},
    date: OLD,
    text: 'old',
  },
})

describe('synthetic update ids', () => {
  it('count down from 2^31-1 (a positive 32-bit int), skipping ids the session has seen', () => {
    expect(SYNTHETIC_UPDATE_ID_TOP).toBe(2 ** 31 - 1)
    const first = nextSyntheticUpdateId(undefined)
    expect(first).toBe(2_147_483_647)
    expect(nextSyntheticUpdateId(first)).toBe(2_147_483_646)
    const seen = new Set([2_147_483_646, 2_147_483_645])
    expect(nextSyntheticUpdateId(first, (id) => seen.has(id))).toBe(2_147_483_644)
  })

  it('grammY (webhookCallback over real HTTP) handles an update with such an id, and the next one', async () => {
    const bot = new Bot('123456:TEST-token-not-used', {
      botInfo: {
        id: 123456,
        is_bot: true,
        first_name: 'T',
        username: 't_bot',
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
        can_connect_to_business: false,
        has_main_web_app: false,
      } as never,
    })
    const handled: Array<{id: number; text: string | undefined}> = []
    bot.on('message', (ctx) => {
      handled.push({id: ctx.update.update_id, text: ctx.message.text})
    })
    const server = createServer(webhookCallback(bot, 'http'))
    servers.push(server)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    let id: number | undefined
    for (const text of ['/start', 'second']) {
      id = nextSyntheticUpdateId(id)
      const update = syntheticUpdate({kind: 'message', text}, {updateId: id})
      const res = await fetch(url, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify(update),
      })
      expect(res.status).toBe(200)
    }
    expect(handled).toEqual([
      {id: 2_147_483_647, text: '/start'},
      {id: 2_147_483_646, text: 'second'},
    ])
  })
})

describe('dates of triggers and replays', () => {
  it('a hand-written update is dated now (date and edit_date); nested messages keep theirs', () => {
    const update = syntheticUpdate({kind: 'update', update: oldMessage()}, {updateId: 9, now: NOW})
    expect(update).toMatchObject({update_id: 9, message: {date: NOW / 1000, text: 'old'}})
    const edited = withCurrentDate(
      {edited_message: {message_id: 1, date: OLD, edit_date: OLD + 5, reply_to_message: {message_id: 0, date: OLD}}},
      NOW,
    )
    expect(edited).toEqual({
      edited_message: {
        message_id: 1,
        date: NOW / 1000,
        edit_date: NOW / 1000,
        reply_to_message: {message_id: 0, date: OLD},
      },
    })
    // No date of its own: unchanged.
    expect(withCurrentDate({callback_query: {id: '1', data: 'x'}}, NOW)).toEqual({callback_query: {id: '1', data: 'x'}})
  })

  it('the emulator takes a trigger dated now but drops the old one, and the refusal names the age, not allowed_updates', async () => {
    const emu = await BotApiEmulator.start()
    closers.push(() => emu.stop())
    const {token} = emu.createBot()
    const {update_id: _id, ...old} = oldMessage()
    const dropped = emu.injectUpdate(token, old)
    expect(dropped.update_id).toBe(0)
    const error = droppedError(dropped as never)
    expect(error.message).toMatch(/dated 2023-11-14T22:13:20\.000Z, more than 24 hours ago/)
    expect(error.message).not.toMatch(/allowed_updates/)
    expect(expiredDate(withCurrentDate(old))).toBeUndefined()
    expect(emu.injectUpdate(token, withCurrentDate(old)).update_id).toBeGreaterThan(0)
  })

  it('a type the bot did not ask for is refused as allowed_updates', () => {
    const error = droppedError({update_id: 0, chat_member: {date: Math.floor(Date.now() / 1000)}})
    expect(error.message).toMatch(/allowed_updates exclude its type \(chat_member\)/)
  })
})
