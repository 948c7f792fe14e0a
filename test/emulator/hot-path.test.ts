/**
 * The emulator's hot path: what was made cheaper keeps its behaviour. The speed itself is measured by the
 * benches: bench/emulator-throughput.ts against telegram-test-api, bench/message-store.ts for the store past its bound.
 */
import {describe, expect, it} from 'vitest'
import {MessageStore} from '../../src/emulator/state/messages.js'

const message = (chatId: number, messageId: number) => ({message_id: messageId, date: 0, chat: {id: chatId}, text: 'x'})

describe('the message store past its bound', () => {
  it('forgets the oldest message for each new one, across clear()', () => {
    const store = new MessageStore()
    const bound = 50_000
    for (let i = 1; i <= bound + 100_000; i++) store.put(message(1, i), false)
    expect(store.get(1, 100_000)).toBeUndefined()
    expect(store.live(1, 100_001)?.message_id).toBe(100_001)
    expect(store.live(1, bound + 100_000)?.message_id).toBe(bound + 100_000)
    expect([...store].length).toBe(bound)

    store.clear()
    for (let i = 1; i <= bound + 1; i++) store.put(message(2, i), true)
    expect(store.get(2, 1)).toBeUndefined()
    expect(store.get(2, 2)?.byBot).toBe(true)
    expect([...store].length).toBe(bound)
    // an edit keeps the message's place: it is still the oldest and goes first
    store.put({...message(2, 2), text: 'edited'}, true)
    store.put(message(2, bound + 2), true)
    expect(store.get(2, 2)).toBeUndefined()
    expect(store.get(2, 3)).toBeDefined()
  })
})
