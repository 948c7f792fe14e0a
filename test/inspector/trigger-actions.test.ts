/**
 * TriggerEngine in webhook mode, in-process, with a stand-in relay playing the bot: the payment
 * flow's three outcomes (the pre-checkout query answered ok through the api proxy, answered in the
 * webhook reply, not answered within the window), and the refusal when no chat is known.
 */
import {describe, expect, it} from 'vitest'

import {TriggerEngine, type UpdateInjector} from '../../src/control/actions.js'
import {SessionFacts} from '../../src/control/session-facts.js'
import {UpdateHistory} from '../../src/inspector/history/history.js'
import {LocalAnswers} from '../../src/inspector/proxy/local-answers.js'
import type {ApiCall, UpdateEntry} from '../../src/inspector/types.js'

type Handler = (update: any, entry: UpdateEntry) => ApiCall[] | void

function session(handle: Handler, o: {windowMs?: number; party?: boolean} = {}) {
  const history = new UpdateHistory()
  const local = new LocalAnswers()
  const facts = new SessionFacts()
  if (o.party !== false)
    facts.noteUpdate(
      {
        update_id: 1,
        message: {
          message_id: 1,
          from: {id: 42, is_bot: false, first_name: 'Ada'},
          chat: {id: 42, type: 'private'},
          date: 1,
          text: 'hi',
        },
      },
      true,
    )
  const delivered: any[] = []
  const relay: UpdateInjector = {
    async inject(body, options) {
      const update = JSON.parse(body)
      delivered.push(update)
      const entry = history.begin(update, options.source)
      for (const call of handle(update, entry) ?? []) history.addCall(call, entry)
      history.finish(entry, {status: 200, body: ''}, 1)
      return {status: 200, record: entry}
    },
  }
  let next = 1000
  const actions = new TriggerEngine({
    mode: 'webhook',
    timeoutMs: 5000,
    history: () => history,
    relay: () => relay,
    nextUpdateId: () => next--,
    bot: () => ({id: 7, first_name: 'Bot', username: 'the_bot'}),
    recordDirectly: false,
    facts,
    local,
    preCheckoutWindowMs: o.windowMs ?? 2000,
  })
  return {actions, local, delivered}
}

const call = (method: string, params: Record<string, unknown>, extra: Partial<ApiCall> = {}): ApiCall => ({
  method,
  ok: true,
  ms: 1,
  params,
  time: new Date().toISOString(),
  ...extra,
})

describe('bot trigger payment in webhook mode', () => {
  it('answered ok through the api proxy: the successful_payment follows, with a refundable stx charge', async () => {
    let local!: LocalAnswers
    const s = session((update) => {
      const query = update.pre_checkout_query
      // The bot's answerPreCheckoutQuery reaches the api proxy, which answers it locally.
      if (query)
        expect(local.answer('answerPreCheckoutQuery', {pre_checkout_query_id: query.id, ok: true})).toBeTruthy()
    })
    local = s.local
    const result = await s.actions.trigger({kind: 'fixture', type: 'payment'})
    expect(result.flow).toMatchObject({status: 'paid', ok: true})
    expect(s.delivered.map((u) => Object.keys(u)[1])).toEqual(['pre_checkout_query', 'message'])
    const paid = s.delivered[1].message
    expect(paid).toMatchObject({
      from: {id: 42, first_name: 'Ada'},
      chat: {id: 42, type: 'private', first_name: 'Ada'},
      successful_payment: {currency: 'XTR', total_amount: 1, invoice_payload: 'bot-trigger-payment'},
    })
    expect(paid.message_id).toBe(2)
    expect(result.flow!.chargeId).toBe(paid.successful_payment.telegram_payment_charge_id)
    expect(local.answer('refundStarPayment', {user_id: 42, telegram_payment_charge_id: result.flow!.chargeId})).toEqual(
      {status: 200, envelope: {ok: true, result: true}},
    )
  })

  it('answered in the webhook reply (which the api proxy never sees)', async () => {
    const s = session((update) =>
      update.pre_checkout_query
        ? [
            call(
              'answerPreCheckoutQuery',
              {pre_checkout_query_id: update.pre_checkout_query.id, ok: false, error_message: 'No more'},
              {webhookReply: true},
            ),
          ]
        : undefined,
    )
    const result = await s.actions.trigger({kind: 'fixture', type: 'payment'})
    expect(result.flow).toMatchObject({status: 'refused', ok: false, errorMessage: 'No more'})
    expect(s.delivered).toHaveLength(1)
  })

  it('not answered within the window: timeout, no successful_payment', async () => {
    const s = session(() => undefined, {windowMs: 100})
    const started = Date.now()
    const result = await s.actions.trigger({kind: 'fixture', type: 'payment'})
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(result.flow).toMatchObject({status: 'timeout', ok: false})
    expect(result.flow!.text).toBe(
      '✗ payment of 1 XTR canceled: the bot did not answer the pre-checkout query within 100 ms (answerPreCheckoutQuery)',
    )
    expect(s.delivered).toHaveLength(1)
  })

  it('no chat seen and none given: refused before anything is delivered', async () => {
    const s = session(() => undefined, {party: false})
    await expect(s.actions.trigger({kind: 'fixture', type: 'payment'})).rejects.toMatchObject({status: 409})
    await expect(s.actions.trigger({kind: 'message', text: 'hi'})).rejects.toThrow(/has not seen a chat yet/)
    expect(s.delivered).toEqual([])
    await s.actions.trigger({kind: 'message', text: 'hi', chatId: 5})
    expect(s.delivered[0].message).toMatchObject({chat: {id: 5}, from: {id: 5}})
  })
})
