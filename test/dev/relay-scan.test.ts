/**
 * The update line's bounded scan (src/dev/relay/scan.ts) against describeUpdate (JSON.parse): the
 * same fields for every shape of update, escapes, duplicates and odd values, and for thousands of
 * generated ones; bodies that are not JSON show nothing; past the bound the scan stops.
 */
import {describe, expect, it} from 'vitest'

import {describeUpdate} from '../../src/telegram/describe.js'
import {SCAN_MAX, scanUpdate} from '../../src/dev/relay/scan.js'
import {updateText} from '../../src/dev/render.js'
import {pollingUpdateText} from '../../src/inspector/render.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1'
const SECRETS = [TOKEN, 'webhook_secret_value']

const same = (body: string) => {
  const bytes = Buffer.from(body, 'utf8')
  expect(scanUpdate(bytes, SECRETS), body.slice(0, 200)).toEqual(describeUpdate(bytes, SECRETS))
}

describe('scanUpdate reads what describeUpdate reads', () => {
  it('for the updates Telegram sends', () => {
    const chat = {id: -1001234567890, type: 'supergroup', title: 'G'}
    const from = {id: 42, is_bot: false, first_name: 'Ann', username: 'ann'}
    for (const update of [
      {update_id: 1, message: {message_id: 1, date: 1, chat, from, text: 'hello'}},
      {update_id: 2, edited_message: {message_id: 1, date: 1, edit_date: 2, chat, from, text: 'edited'}},
      {
        update_id: 3,
        channel_post: {message_id: 1, date: 1, chat, caption: 'a photo', photo: [{file_id: 'x', width: 1}]},
      },
      {update_id: 4, callback_query: {id: '99', from, message: {message_id: 1, chat, date: 1}, data: 'btn:1'}},
      {update_id: 5, inline_query: {id: '7', from, query: 'cats', offset: ''}},
      {update_id: 6, poll: {id: 'p', question: 'Why?', options: [{text: 'a', voter_count: 0}], is_closed: false}},
      {update_id: 7, poll_answer: {poll_id: 'p', user: from, option_ids: [0]}},
      {update_id: 8, my_chat_member: {chat, from, date: 1, old_chat_member: {status: 'left', user: from}}},
      {
        update_id: 9,
        message: {
          message_id: 1,
          date: 1,
          chat,
          from,
          reply_to_message: {message_id: 0, date: 0, chat, text: 'not this'},
          text: 'this',
        },
      },
      {update_id: 10, message: {message_id: 1, date: 1, chat, from, text: `a token ${TOKEN} inside`}},
      {
        update_id: 11,
        message: {
          message_id: 1,
          date: 1,
          chat,
          from,
          text: 'escapes "quoted" \\ back\nnew line \u0007 bell \u202e bidi 😀',
        },
      },
      {update_id: 12, message: {message_id: 1, date: 1, chat, from, text: 'x'.repeat(5000)}},
      {update_id: 13, business_message: {message_id: 1, date: 1, chat: {id: 5, type: 'private'}, text: 'b'}},
      {update_id: 14, chat_boost: {chat, boost: {boost_id: 'b', add_date: 1}}},
      {update_id: 15, message_reaction: {chat, message_id: 1, user: from, date: 1, old_reaction: [], new_reaction: []}},
      {update_id: 16, pre_checkout_query: {id: 'q', from, currency: 'XTR', total_amount: 1, invoice_payload: 'p'}},
    ])
      same(JSON.stringify(update))
    // Telegram's own layout: update_id first, then a newline.
    same('{"update_id":17,\n"message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"hi"}}')
  })

  it('for odd values: nulls, wrong types, duplicates, escaped keys, numbers of every form', () => {
    for (const body of [
      '{"update_id":1,"message":{"chat":null,"from":{"id":3},"text":null,"caption":"cap"}}',
      '{"update_id":1,"message":{"chat":{"id":"abc"},"from":{"id":3},"text":5}}',
      '{"update_id":1,"message":{"chat":{"id":null},"message":{"chat":{"id":8}},"text":{"a":1},"caption":"c"}}',
      '{"update_id":1,"message":{"chat":5,"user":{"id":9},"data":true,"query":"q"}}',
      '{"update_id":1,"message":{"text":"first","text":"second","chat":{"id":1,"id":2}}}',
      '{"update_id":1,"message":{"text":"one"},"message":{"text":"two"}}',
      '{"update_id":1,"message":[1,2,3]}',
      '{"update_id":1,"message":"just a string"}',
      '{"message":{"text":"no id"},"update_id":"7"}',
      '{"update_id":1.5,"x":{}}',
      '{"update_id":-3,"x":{"chat":{"id":-0.5e2}}}',
      '{"update_id":12345678901234567890,"x":{"chat":{"id":1E3}}}',
      '{"upd\\u0061te_id":4,"t\\u0065xt_type":{"t\\u0065xt":"esc\\u00e9"}}',
      '{"update_id":1,"callback_query":{"from":{"id":2},"data":"\\ud83d\\ude00 smile"}}',
      '{}',
      '{"update_id":5}',
      '  \n{ "update_id" : 6 , "message" : { "chat" : { "id" : 7 } , "text" : "spaced" } }  \n',
      `{"update_id":1,"${'k'.repeat(100)}":{"text":"long type"}}`,
      '{"update_id":1,"__proto__":{"text":"proto"}}',
      '{"update_id":1,"message":{"entities":[{"type":"bold","offset":0,"length":1}],"a":[[[{"b":"}]"}]]],"text":"nested"}}',
    ])
      same(body)
  })

  it('shows nothing for a body that is not JSON, as describeUpdate', () => {
    for (const body of [
      'not json',
      '',
      '[1,2]',
      'null',
      '5',
      '{"update_id":1,"message":{"text":"unterminated}',
      '{"update_id":1,"message":{"text":"x"}} trailing',
      '{"update_id":01,"message":{}}',
      '{"update_id":1,"message":{"text":"raw\ncontrol"}}',
      '{"update_id":1 "message":{}}',
      '{"update_id":1,"message":{"text":"\\q"}}',
      '\ufeff{"update_id":1,"message":{}}',
    ]) {
      expect(scanUpdate(Buffer.from(body), SECRETS), body).toEqual({})
      expect(describeUpdate(Buffer.from(body), SECRETS), body).toEqual({})
    }
  })

  it('for thousands of generated updates', () => {
    let seed = 24
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]
    const keys = ['chat', 'message', 'from', 'user', 'text', 'caption', 'data', 'query', 'question', 'id', 'other']
    // What a message holds: fields that rank against each other, a payment's amount and currency.
    keys.push('photo', 'document', 'animation', 'location', 'venue', 'successful_payment', 'refunded_payment')
    keys.push('total_amount', 'currency')
    const value = (depth: number): unknown => {
      const r = random()
      if (depth > 3 || r < 0.3) return pick([null, true, false, 0, -7, 3.25, 1e21, 'str', 'é😀\n"', TOKEN, ''])
      if (r < 0.4) return Array.from({length: Math.floor(random() * 3)}, () => value(depth + 1))
      const o: Record<string, unknown> = {}
      for (let i = Math.floor(random() * 5); i > 0; i--) o[pick(keys)] = value(depth + 1)
      return o
    }
    for (let i = 0; i < 3000; i++) {
      const update: Record<string, unknown> = {}
      if (random() < 0.9) update.update_id = pick([i, -i, i + 0.5, 'x', null])
      update[pick(['message', 'channel_post', 'callback_query', 'poll', 'x'])] = value(0)
      if (random() < 0.2) update[pick(['message', 'zz'])] = value(0)
      same(JSON.stringify(update, null, random() < 0.2 ? 1 : undefined))
    }
  })
})

describe('what a message holds, in the update line', () => {
  const chat = {id: 5, type: 'private'}
  const msg = (fields: Record<string, unknown>, type = 'message') => ({
    update_id: 1,
    [type]: {message_id: 1, date: 1, chat, ...fields},
  })
  const pay = (total_amount: unknown, currency: unknown) => ({total_amount, currency, invoice_payload: 'x'})
  const cases: Array<[Record<string, unknown>, string | undefined]> = [
    [msg({photo: [{file_id: 'a'}], caption: 'c'}), 'photo'],
    [msg({animation: {file_id: 'a'}, document: {file_id: 'a'}}), 'animation'],
    [msg({document: {file_id: 'a'}, animation: {file_id: 'a'}}), 'animation'],
    [msg({location: {latitude: 1, longitude: 2}, venue: {title: 'v'}}), 'venue'],
    [msg({voice: {file_id: 'a'}}), 'voice'],
    [msg({sticker: {file_id: 'a'}}), 'sticker'],
    [msg({contact: {phone_number: '1'}}), 'contact'],
    [msg({poll: {id: 'p', question: 'q'}}), 'poll'],
    [msg({new_chat_members: [{id: 1}]}), 'new_chat_members'],
    [msg({successful_payment: pay(1, 'XTR')}), 'successful_payment 1 XTR'],
    [msg({successful_payment: pay(999, 'USD')}), 'successful_payment 9.99 USD'],
    [msg({successful_payment: pay(500, 'JPY')}), 'successful_payment 500 JPY'],
    [msg({successful_payment: pay(1500, 'KWD')}), 'successful_payment 1.500 KWD'],
    [msg({refunded_payment: pay(3, 'XTR')}), 'refunded_payment 3 XTR'],
    [msg({successful_payment: pay('1', 'XTR')}), 'successful_payment'],
    [msg({successful_payment: pay(1, 'XTR'), successful_payment2: 1}), 'successful_payment 1 XTR'],
    [msg({successful_payment: 'odd'}), 'successful_payment'],
    [msg({photo: [{file_id: 'a'}]}, 'edited_message'), 'photo'],
    [msg({photo: [{file_id: 'a'}]}, 'channel_post'), 'photo'],
    [msg({photo: [{file_id: 'a'}]}, 'business_message'), 'photo'],
    [msg({text: 'hi'}), undefined],
    [msg({photo: null}), undefined],
    [msg({reply_to_message: {photo: [{file_id: 'a'}]}, text: 'hi'}), undefined],
    [{update_id: 1, callback_query: {id: '1', photo: [], from: {id: 1}}}, undefined],
    [{update_id: 1, pre_checkout_query: {id: 'q', currency: 'XTR', total_amount: 1}}, undefined],
  ]
  it('scanUpdate and describeUpdate name it alike', () => {
    for (const [update, content] of cases) {
      const body = JSON.stringify(update)
      same(body)
      expect(scanUpdate(Buffer.from(body)).content, body).toBe(content)
    }
    // Duplicates: the last value wins, as in JSON.parse.
    for (const body of [
      '{"update_id":1,"message":{"photo":[1],"photo":null}}',
      '{"update_id":1,"message":{"photo":null,"photo":[1]}}',
      '{"update_id":1,"message":{"successful_payment":{"total_amount":1,"currency":"XTR"},"successful_payment":{"total_amount":7,"currency":"XTR"}}}',
      '{"update_id":1,"message":{"refunded_payment":{"total_amount":2,"currency":"XTR"},"successful_payment":{"total_amount":1,"currency":"XTR"}}}',
      '{"update_id":1,"message":{"photo":[1]},"message":{"text":"x"}}',
      '{"update_id":1,"message":{"ph\u006fto":[1]}}',
    ])
      same(body)
  })

  it('the update lines say it after the type', () => {
    const base = {
      time: '2026-11-27T13:42:01.000Z',
      updateId: 7,
      updateType: 'message',
      chatId: 5,
      status: 200,
      ms: 3,
      heldMs: 0,
    }
    expect(updateText({...base, content: 'successful_payment 1 XTR'})).toBe(
      '13:42:01 ← #7 message successful_payment 1 XTR chat 5 → 200 3 ms',
    )
    expect(updateText({...base, content: 'photo', preview: 'a cat'})).toBe(
      '13:42:01 ← #7 message photo chat 5 "a cat" → 200 3 ms',
    )
    expect(updateText({...base, preview: 'hi'})).toBe('13:42:01 ← #7 message chat 5 "hi" → 200 3 ms')
    expect(
      pollingUpdateText({
        time: base.time,
        updateId: 7,
        type: 'message',
        chatId: 5,
        content: 'voice',
        source: 'polling',
      }),
    ).toBe('13:42:01 ← #7 message voice chat 5 (long polling)')
  })
})

describe('scanUpdate is bounded', () => {
  it(`reads no further than ${SCAN_MAX / 1024} KiB: what comes after is neither read nor checked`, () => {
    const big = `{"update_id":9,"message":{"chat":{"id":3},"text":"early","photo":"${'x'.repeat(SCAN_MAX)}","caption":"late"}}`
    expect(scanUpdate(Buffer.from(big), SECRETS)).toEqual({
      updateId: 9,
      updateType: 'message',
      chatId: 3,
      preview: 'early',
    })
    // Broken past the bound: still described (JSON.parse would refuse it).
    const broken = Buffer.concat([Buffer.from(big.slice(0, -2)), Buffer.from('}}} not json')])
    expect(scanUpdate(broken, SECRETS)).toMatchObject({updateId: 9, chatId: 3, preview: 'early'})
  })

  it('skips deep nesting without recursion', () => {
    const deep = `{"update_id":1,"message":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)},"text":"deep"}}`
    expect(scanUpdate(Buffer.from(deep), SECRETS)).toMatchObject({updateId: 1, preview: 'deep'})
    const tooDeep = `{"update_id":1,"message":{"a":${'['.repeat(200_000)}`
    expect(() => scanUpdate(Buffer.from(tooDeep), SECRETS)).not.toThrow()
  })
})
