/** The bridge's window: which offset is confirmable, which updates of an answer are new. */
import {describe, expect, it} from 'vitest'

import {MAX_WINDOW, UpdateWindow} from '../../src/dev/delivery/bridge/window.js'
import type {Update} from '../../src/telegram/types.js'

const u = (id: number, chat = 1): Update => ({
  update_id: id,
  message: {
    message_id: id,
    date: 0,
    from: {id: chat, is_bot: false, first_name: 'Test'},
    chat: {id: chat, type: 'private', first_name: 'Test'},
  },
})

describe('UpdateWindow', () => {
  it('confirms only the acknowledged prefix', () => {
    const w = new UpdateWindow()
    expect(w.offset()).toBe(0) // nothing received: no offset, the head
    const [a, b, c] = w.take([u(10), u(11), u(12)], 0)
    expect(w.offset()).toBe(10)
    b.acked = true
    c.acked = true
    expect(w.offset()).toBe(10) // 11 and 12 wait behind 10
    a.acked = true
    expect(w.offset()).toBe(13)
    expect(w.unacked()).toBe(0)
  })

  it('takes an update once, however often getUpdates returns it, and forgets what was confirmed', () => {
    const w = new UpdateWindow()
    const first = w.take([u(10), u(11)], 0)
    first[1].acked = true
    expect(w.take([u(10), u(11), u(12)], 10).map((i) => i.id)).toEqual([12])
    first[0].acked = true
    w.confirm(12) // a poll with offset 12 was answered: 10 and 11 are gone at the Bot API
    expect(w.confirmed).toBe(2)
    expect(w.take([u(11)], 12)).toEqual([]) // below the offset: confirmed already
    expect(w.offset()).toBe(12)
    w.confirm(12)
    expect(w.confirmed).toBe(2)
  })

  it('keeps its order when an older id shows up late, and is bounded', () => {
    const w = new UpdateWindow()
    w.take([u(20)], 0)
    w.take([u(15)], 0)
    expect(w.offset()).toBe(15)
    const many = Array.from({length: MAX_WINDOW + 50}, (_, i) => u(100 + i))
    expect(w.take(many, 0).length).toBe(MAX_WINDOW - 2)
  })

  it('keys each update to its delivery queue and keeps the JSON to post', () => {
    const w = new UpdateWindow()
    const [item] = w.take([u(5, -42)], 0)
    expect(item.key).toBe('chat:-42')
    expect(item.body).toBe(JSON.stringify(u(5, -42)))
  })
})
