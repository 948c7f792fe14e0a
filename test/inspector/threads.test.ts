/**
 * The inspector's kinds (history/tags.ts) and payment threads (history/threads.ts), in-process on a
 * real UpdateHistory: every kind bot trigger sends is tagged; a purchase through an invoice link,
 * its refund and the refunded_payment message form one thread; a second purchase is another.
 */
import {describe, expect, it} from 'vitest'

import {UpdateHistory} from '../../src/inspector/history/history.js'
import {updateTags} from '../../src/inspector/history/tags.js'
import type {ApiCall} from '../../src/inspector/types.js'

const ada = {id: 5, is_bot: false, first_name: 'Ada'}
const chat = {id: 5, type: 'private'}
const call = (method: string, params: Record<string, unknown>): ApiCall => ({
  method,
  ok: true,
  ms: 1,
  params,
  time: new Date().toISOString(),
})

describe('kinds', () => {
  it.each([
    [{message: {text: '/start', chat}}, ['command']],
    [{message: {text: 'hi', chat}}, ['text']],
    [{message: {photo: [], caption: 'x', chat}}, ['media']],
    [{edited_message: {text: 'x', chat}}, ['text', 'edit']],
    [{callback_query: {id: '1'}}, ['button']],
    [{inline_query: {id: '1'}}, ['inline']],
    [{pre_checkout_query: {id: '1'}}, ['payment']],
    [{message: {successful_payment: {}, chat}}, ['payment']],
    [{message_reaction: {chat}}, ['reaction']],
    [{chat_join_request: {chat}}, ['membership']],
    [{chat_member: {chat}}, ['membership']],
    [{my_chat_member: {chat}}, ['membership']],
    [{message: {new_chat_members: [ada], chat}}, ['membership']],
    [{business_message: {text: 'hey', chat}}, ['text', 'business']],
    [{message: {web_app_data: {data: 'x'}, chat}}, ['web-app']],
    [{poll_answer: {poll_id: '1'}}, ['poll']],
    [{chat_boost: {chat}}, ['boost']],
    [{subscription: {user: ada, invoice_payload: 'p', state: 'canceled'}}, ['payment']],
    [{widget_query: {id: '1', chat}}, ['widget']],
    [{shared_widget_query: {id: '1'}}, ['widget']],
    [{message: {widget: {html: '<b>x</b>'}, chat}}, ['widget']],
    [{stopped_message_generation: {chat, draft_id: 1}}, ['draft']],
    [{__proto__: {}, update_id: 1}, []],
  ])('%j → %j', (update, tags) => {
    expect(updateTags(JSON.parse(JSON.stringify(update)))).toEqual(tags)
  })

  it('a __proto__ field is no update type', () => {
    expect(updateTags(JSON.parse('{"update_id":1,"__proto__":{"x":1}}'))).toEqual([])
  })
})

describe('payment threads', () => {
  it('an invoice link, the query, the payment, the refund and refunded_payment; then another purchase', () => {
    const h = new UpdateHistory()
    const step = (update: Record<string, unknown>, calls: ApiCall[] = []) => {
      const entry = h.begin(update, 'webhook')
      for (const c of calls) h.addCall(c, entry)
      h.finish(entry, {status: 200, body: ''}, 1)
      return entry
    }
    const link = step({update_id: 1, message: {message_id: 1, from: ada, chat, date: 1, text: '/link'}}, [
      call('createInvoiceLink', {payload: 'gift', currency: 'XTR'}),
    ])
    expect(link.tags).toEqual(['command', 'payment'])
    const pay = (n: number) => [
      step({
        update_id: n,
        pre_checkout_query: {id: `q${n}`, from: ada, currency: 'XTR', total_amount: 3, invoice_payload: 'gift'},
      }),
      step({
        update_id: n + 1,
        message: {
          message_id: n,
          from: ada,
          chat,
          date: 1,
          successful_payment: {invoice_payload: 'gift', telegram_payment_charge_id: `stx${n}`},
        },
      }),
    ]
    const [query, paid] = pay(2)
    const refund = step({update_id: 4, message: {message_id: 9, from: ada, chat, date: 1, text: '/refund'}}, [
      call('refundStarPayment', {user_id: 5, telegram_payment_charge_id: 'stx2'}),
    ])
    const refunded = step({
      update_id: 5,
      message: {message_id: 10, from: ada, chat, date: 1, refunded_payment: {telegram_payment_charge_id: 'stx2'}},
    })
    const id = link.thread!.id
    expect([link, query, paid, refund, refunded].map((e) => e.thread)).toEqual([
      {id, kind: 'payment', step: 'invoice'},
      {id, kind: 'payment', step: 'pre_checkout'},
      {id, kind: 'payment', step: 'payment'},
      {id, kind: 'payment', step: 'refund'},
      {id, kind: 'payment', step: 'refunded'},
    ])
    expect(h.thread(id).map((e) => e.updateId)).toEqual([1, 2, 3, 4, 5])
    // A link may be paid many times: each payment of it is shown in the link's thread.
    const [again] = pay(6)
    expect(again.thread!.id).toBe(id)
    const other = step({
      update_id: 20,
      pre_checkout_query: {id: 'q20', from: {...ada, id: 6}, currency: 'XTR', total_amount: 3, invoice_payload: 'x'},
    })
    expect(other.thread!.id).toBe(`pay-${other.seq}`)
  })
})
