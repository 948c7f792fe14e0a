import {describe, expect, it} from 'vitest'

import {webhookQueueOf} from '../../src/emulator/state/updates.js'
import {sharedQueueOf} from '../../src/emulator/webhook-queue.js'

describe('sharedQueueOf', () => {
  it("queues every update as the emulator's webhook does (a queue of its own: undefined)", () => {
    const updates: Array<Record<string, unknown>> = [
      {update_id: 1, message: {chat: {id: -5}}},
      {update_id: 2, business_message: {chat: {id: 8}}},
      {update_id: 3, chat_boost: {chat: {id: -7}}},
      {update_id: 4, stopped_message_generation: {chat: {id: 4}}},
      {update_id: 5, callback_query: {id: 'q', from: {id: 11}}},
      {update_id: 6, poll_answer: {poll_id: 'p', user: {id: 12}}},
      {update_id: 7, shared_widget_query: {from: {id: 13}}},
      {update_id: 8, poll: {id: 'p9'}},
      {update_id: 9, business_connection: {id: 'b'}},
      {update_id: 10, message: {chat: {id: '5'}}},
      {update_id: 11, inline_query: {}},
      {update_id: 12},
    ]
    for (const update of updates) {
      const emulator = webhookQueueOf(update)
      expect(sharedQueueOf(update), JSON.stringify(update)).toBe(emulator.startsWith('unique:') ? undefined : emulator)
    }
  })
})
