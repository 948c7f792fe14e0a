/**
 * Payments end to end with real grammY and Telegraf bots, in long polling and webhook mode: a Stars invoice paid
 * (pre_checkout_query → answerPreCheckoutQuery → successful_payment), refunded (refunded_payment), in
 * getStarTransactions; the failure paths (no answer within the 10-second window, scaled; refused; late answers;
 * refunds of unknown or refunded charges); provider invoices with shipping; links, subscriptions and paid media;
 * sendInvoice's validation with Telegram's texts.
 */
import {Bot as GrammyBot} from 'grammy'
import {Telegraf} from 'telegraf'
import {describe, expect, it} from 'vitest'
import type {BotApiEmulator} from '../../src/emulator/index.js'
import {MODES, control, runGrammy, runTelegraf} from './bots.js'
import {setup} from './helpers.js'
import {waitFor} from '../support/wait.js'

const QUERY_INVALID = 'Bad Request: query is too old and response timeout expired or query ID is invalid'

/**
 * The emulator at timeScale 0.2 for the tests where the bot answers: delays 5 times faster, but Telegram's 10 s to
 * answer a shipping or pre-checkout query kept in real time (scaled to 2 s, a loaded machine's bot can miss it:
 * 'timeout' instead of 'paid'). The tests of the window itself pass a timeScale alone.
 */
const ANSWERED = {timeScale: 0.2, preCheckoutWindowMs: 10_000}

/** A shop bot in grammY: /buy sends a Stars invoice, /refund refunds the last payment, /balance says the balance. */
function grammyShop(token: string, apiRoot: string, answer: 'ok' | 'refuse' | 'ignore' = 'ok') {
  const bot = new GrammyBot(token, {client: {apiRoot}})
  const charges: string[] = []
  bot.command('buy', (ctx) =>
    ctx.replyWithInvoice('Coffee', 'A cup of coffee', 'coffee-1', 'XTR', [{label: 'Coffee', amount: 50}]),
  )
  bot.on('pre_checkout_query', async (ctx) => {
    if (answer === 'ok') await ctx.answerPreCheckoutQuery(true)
    if (answer === 'refuse') await ctx.answerPreCheckoutQuery(false, 'Sold out, sorry!')
  })
  bot.on('message:successful_payment', async (ctx) => {
    charges.push(ctx.message.successful_payment.telegram_payment_charge_id)
    await ctx.reply(`Thanks for ${ctx.message.successful_payment.total_amount} Stars!`)
  })
  bot.on('message:refunded_payment', (ctx) => ctx.reply(`Refunded ${ctx.message.refunded_payment.total_amount} Stars.`))
  bot.command('refund', (ctx) =>
    ctx.api
      .refundStarPayment(ctx.from!.id, charges.at(-1)!)
      .then(() => ctx.reply('Done.'))
      .catch((e: Error & {description?: string}) => ctx.reply(`Refund failed: ${e.description}`)),
  )
  bot.command('balance', async (ctx) => {
    const balance = await ctx.api.getMyStarBalance()
    const {transactions} = await ctx.api.getStarTransactions()
    await ctx.reply(`Balance ${balance.amount}, ${transactions.length} transactions`)
  })
  return {bot, charges}
}

/** The same shop in Telegraf (refundStarPayment through callApi: Telegraf 4.16 has no helper for it). */
function telegrafShop(token: string, apiRoot: string) {
  const bot = new Telegraf(token, {telegram: {apiRoot}})
  const charges: string[] = []
  bot.command('buy', (ctx) =>
    ctx.replyWithInvoice({
      title: 'Coffee',
      description: 'A cup of coffee',
      payload: 'coffee-1',
      provider_token: '',
      currency: 'XTR',
      prices: [{label: 'Coffee', amount: 50}],
    }),
  )
  bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
  bot.on('successful_payment', async (ctx) => {
    charges.push(ctx.message.successful_payment.telegram_payment_charge_id)
    await ctx.reply(`Thanks for ${ctx.message.successful_payment.total_amount} Stars!`)
  })
  bot.command('refund', async (ctx) => {
    await ctx.telegram.callApi(
      'refundStarPayment' as never,
      {user_id: ctx.from.id, telegram_payment_charge_id: charges.at(-1)} as never,
    )
    await ctx.reply('Done.')
  })
  return {bot, charges}
}

async function buyAndRefund(emu: BotApiEmulator, token: string, charges: string[]) {
  const ada = emu.user(token, {firstName: 'Ada'})
  const [invoice] = await ada.send('/buy')
  expect(invoice.invoice).toEqual({
    title: 'Coffee',
    description: 'A cup of coffee',
    start_parameter: '',
    currency: 'XTR',
    total_amount: 50,
  })
  const {payment, replies} = await ada.pay()
  expect(payment).toMatchObject({status: 'paid', userId: ada.id, currency: 'XTR', totalAmount: 50})
  expect(replies.map((m) => m.text)).toEqual(['Thanks for 50 Stars!'])
  expect(charges).toEqual([payment.chargeId])
  expect(payment.chargeId).toMatch(/^stx/)
  expect(payment.successfulPayment).toEqual({
    currency: 'XTR',
    total_amount: 50,
    invoice_payload: 'coffee-1',
    telegram_payment_charge_id: payment.chargeId,
    provider_payment_charge_id: '',
  })
  // the successful_payment message is the user's, in the private chat, after the pre-checkout answer
  expect(
    ada.chat.map((m) => Object.keys(m).find((k) => ['text', 'invoice', 'successful_payment'].includes(k))),
  ).toEqual(['text', 'invoice', 'successful_payment', 'text'])
  const answered = emu.calls(token).find((c) => c.method === 'answerPreCheckoutQuery')!
  expect(answered.params.pre_checkout_query_id).toBe(payment.preCheckoutQueryId)
  expect(answered.result).toBe(true)
  // a paid invoice shows its receipt: it cannot be paid again
  await expect(ada.pay(invoice.message_id)).rejects.toThrow(`user ${ada.id} already paid invoice message`)
  return ada
}

describe('a Stars payment, end to end', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: paid, refunded, in getStarTransactions and getMyStarBalance`, async () => {
      const {emu, token} = await setup(ANSWERED)
      const {bot, charges} = grammyShop(token, emu.apiRoot)
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        const ada = await buyAndRefund(emu, token, charges)
        expect((await ada.send('/balance')).map((m) => m.text)).toEqual(['Balance 50, 1 transactions'])
        const refunded = await ada.send('/refund')
        expect(refunded.map((m) => m.text)).toContain('Done.')
        await waitFor(() => ada.chat.some((m) => m.text === 'Refunded 50 Stars.'), {
          what: 'the refunded_payment to be handled',
        })
        const refund = ada.chat.find((m) => m.refunded_payment)!
        expect(refund.refunded_payment).toEqual({
          currency: 'XTR',
          total_amount: 50,
          invoice_payload: 'coffee-1',
          telegram_payment_charge_id: charges[0],
        })
        expect((await ada.send('/balance')).map((m) => m.text)).toEqual(['Balance 0, 2 transactions'])
        const {json} = await control(emu, token, '/payments')
        expect(json.balance).toBe(0)
        expect(json.transactions).toEqual([
          {
            id: charges[0],
            date: expect.any(Number),
            source: {
              transaction_type: 'invoice_payment',
              type: 'user',
              user: {id: ada.id, is_bot: false, first_name: 'Ada', username: 'tester'},
              invoice_payload: 'coffee-1',
            },
            amount: 50,
          },
          {
            id: charges[0],
            date: expect.any(Number),
            receiver: {
              transaction_type: 'invoice_payment',
              type: 'user',
              user: expect.objectContaining({id: ada.id}),
              invoice_payload: 'coffee-1',
            },
            amount: 50,
          },
        ])
        // a second refund of the same charge
        expect((await ada.send('/refund')).map((m) => m.text)).toEqual([
          'Refund failed: Bad Request: CHARGE_ALREADY_REFUNDED',
        ])
      } finally {
        await stop()
      }
    })

    it(`Telegraf, ${mode}: paid through the control API, refunded`, async () => {
      const {emu, token} = await setup(ANSWERED)
      const {bot, charges} = telegrafShop(token, emu.apiRoot)
      const stop = await runTelegraf(emu, token, bot, mode)
      try {
        const ada = emu.user(token, {firstName: 'Ada'})
        const [invoice] = await ada.send('/buy')
        const paid = await control(emu, token, `/invoices/${invoice.message_id}/pay`, {user_id: ada.id})
        expect(paid.status).toBe(200)
        expect(paid.json).toMatchObject({
          status: 'paid',
          user_id: ada.id,
          invoice: {chat_id: ada.id, message_id: invoice.message_id},
          currency: 'XTR',
          total_amount: 50,
          successful_payment: {currency: 'XTR', total_amount: 50, invoice_payload: 'coffee-1'},
        })
        await waitFor(() => ada.chat.some((m) => m.text === 'Thanks for 50 Stars!'), {what: 'the thanks'})
        expect(charges).toEqual([paid.json.telegram_payment_charge_id])
        expect((await ada.send('/refund')).map((m) => m.text)).toEqual(['Done.'])
        expect(emu.calls(token).find((c) => c.method === 'refundStarPayment')?.result).toBe(true)
        // paying the same invoice again: the control API says why not
        const again = await control(emu, token, `/invoices/${invoice.message_id}/pay`, {user_id: ada.id})
        expect(again).toEqual({status: 400, json: {error: expect.stringContaining('already paid invoice message')}})
      } finally {
        await stop()
      }
    })
  }
})

describe('the pre-checkout query: 10 seconds (times timeScale), once', () => {
  it('no answer within the window: the payment times out and a late answer is refused', async () => {
    // timeScale 0.01: the window is 100 ms
    const {emu, token} = await setup({timeScale: 0.01})
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.command('buy', (ctx) => ctx.replyWithInvoice('Tea', 'Green tea', 'tea', 'XTR', [{label: 'Tea', amount: 5}]))
    const late: string[] = []
    bot.on('pre_checkout_query', async (ctx) => {
      // a slow bot: it answers only after the payment was given up
      await waitFor(() => emu.payments(token).at(-1)?.status === 'timeout', {what: 'the window to close'})
      await ctx.answerPreCheckoutQuery(true).catch((e: Error & {description?: string}) => late.push(e.description!))
    })
    bot.on('message:successful_payment', (ctx) => ctx.reply('never'))
    const stop = await runGrammy(emu, token, bot, 'polling')
    try {
      const ada = emu.user(token, {firstName: 'Ada'})
      await ada.send('/buy')
      const {payment, replies} = await ada.pay()
      expect(payment.status).toBe('timeout')
      expect(payment.errorMessage).toBe(
        'The bot did not answer the pre-checkout query within 10 seconds: the payment was canceled and no money was taken.',
      )
      expect(replies).toEqual([])
      await waitFor(() => late.length > 0, {what: 'the late answer'})
      expect(late).toEqual([QUERY_INVALID])
      expect(ada.chat.some((m) => m.successful_payment)).toBe(false)
      expect((await control(emu, token, '/payments')).json).toMatchObject({transactions: [], balance: 0})
    } finally {
      await stop()
    }
  })

  it("refused: the user sees the bot's error_message; no money moves; error_message is required", async () => {
    const {emu, token, api} = await setup(ANSWERED)
    const {bot} = grammyShop(token, emu.apiRoot, 'refuse')
    const stop = await runGrammy(emu, token, bot, 'webhook')
    try {
      const ada = emu.user(token, {firstName: 'Ada'})
      await ada.send('/buy')
      const {payment, replies} = await ada.pay()
      expect(payment).toMatchObject({status: 'refused', errorMessage: 'Sold out, sorry!'})
      expect(payment.chargeId).toBeUndefined()
      expect(replies).toEqual([])
      // ok=false without error_message: the server's parameter check comes first, for any query id
      const missing = await api('answerPreCheckoutQuery', {pre_checkout_query_id: '123', ok: false})
      expect(missing.json).toEqual({
        ok: false,
        error_code: 400,
        description: 'Bad Request: parameter "error_message" is required',
      })
      // answering the settled query again, or an unknown one
      for (const id of [payment.preCheckoutQueryId, '42']) {
        expect((await api('answerPreCheckoutQuery', {pre_checkout_query_id: id, ok: true})).json).toEqual({
          ok: false,
          error_code: 400,
          description: QUERY_INVALID,
        })
      }
    } finally {
      await stop()
    }
  })

  it('a payment waiting for its answer settles as stopped when the emulator stops; none starts after', async () => {
    const {emu, token, api} = await setup({timeScale: 1}) // a 10-second window: only the stop ends it
    emu.addChat(token, {id: 1111, type: 'private', first_name: 'Ada'})
    const prices = [{label: 'Tea', amount: 5}]
    const invoice = (
      await api('sendInvoice', {chat_id: 1111, title: 'T', description: 'D', payload: 'p', currency: 'XTR', prices})
    ).json.result
    const paying = emu.payInvoice(token, {messageId: invoice.message_id})
    expect(emu.payments(token).map((p) => p.status)).toEqual(['pending'])
    await emu.stop()
    expect(await paying).toMatchObject({
      status: 'stopped',
      errorMessage: 'the emulator was stopped or reset during the payment',
    })
    expect(() => emu.payInvoice(token, {messageId: invoice.message_id})).toThrow('the emulator was stopped')
  })

  it('allowed_updates without pre_checkout_query: the bot never hears of it, so the payment times out', async () => {
    const {emu, token} = await setup({timeScale: 0.01})
    const {bot} = grammyShop(token, emu.apiRoot)
    const stop = await runGrammy(emu, token, bot, 'polling', ['message'])
    try {
      const ada = emu.user(token)
      await ada.send('/buy')
      const {payment} = await ada.pay()
      expect(payment.status).toBe('timeout')
      expect(emu.calls(token).some((c) => c.method === 'answerPreCheckoutQuery')).toBe(false)
    } finally {
      await stop()
    }
  })
})

describe('refundStarPayment errors', () => {
  it("an unknown charge, another user's charge, a bad user_id, no charge id", async () => {
    const {api} = await setup()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{user_id: 1111, telegram_payment_charge_id: 'stxNOPE'}, 'Bad Request: CHARGE_NOT_FOUND'],
      [{user_id: 0, telegram_payment_charge_id: 'stxNOPE'}, 'Bad Request: invalid user_id specified'],
      [{telegram_payment_charge_id: 'stxNOPE'}, 'Bad Request: invalid user_id specified'],
      [{user_id: 1111}, 'Bad Request: parameter "telegram_payment_charge_id" is required'],
    ]
    for (const [params, description] of cases) {
      expect((await api('refundStarPayment', params)).json).toEqual({ok: false, error_code: 400, description})
    }
  })

  it("refunding another user's charge is CHARGE_NOT_FOUND", async () => {
    const {emu, token, api} = await setup(ANSWERED)
    const {bot, charges} = grammyShop(token, emu.apiRoot)
    const stop = await runGrammy(emu, token, bot, 'polling')
    try {
      const ada = emu.user(token, {firstName: 'Ada'})
      await ada.send('/buy')
      expect((await ada.pay()).payment.status).toBe('paid')
      const other = await api('refundStarPayment', {user_id: ada.id + 1, telegram_payment_charge_id: charges[0]})
      expect(other.json.description).toBe('Bad Request: CHARGE_NOT_FOUND')
    } finally {
      await stop()
    }
  })
})

describe("sendInvoice and createInvoiceLink validation (Telegram's texts)", () => {
  const base = {
    chat_id: 1111,
    title: 'T',
    description: 'D',
    payload: 'p',
    currency: 'XTR',
    prices: [{label: 'x', amount: 5}],
  }
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no title', {title: ''}, 'parameter "title" is required'],
    ['no payload', {payload: undefined}, 'parameter "payload" is required'],
    ['no prices', {prices: undefined}, 'parameter "prices" is required'],
    ['prices not JSON', {prices: '[{'}, "can't parse prices JSON object"],
    ['prices not an array', {prices: {label: 'x', amount: 1}}, 'expected an Array of labeled prices'],
    ['no price', {prices: []}, 'there must be at least one price'],
    ['a price without label', {prices: [{amount: 1}]}, 'can\'t parse labeled price: Can\'t find field "label"'],
    [
      'an empty label',
      {prices: [{label: '', amount: 1}]},
      "can't parse labeled price: LabeledPrice label must be non-empty",
    ],
    [
      'an amount that is no number',
      {prices: [{label: 'x', amount: 'many'}]},
      // tdutils JsonBuilder.cpp get_integer_field: its own text, not to_integer_safe's
      'can\'t parse labeled price: Field "amount" must be a valid Number',
    ],
    ['a zero total', {prices: [{label: 'x', amount: 0}]}, 'total price must be positive'],
    ['a huge amount', {prices: [{label: 'x', amount: 1_000_000_000_000}]}, 'too big amount of the currency specified'],
    [
      'Stars with two prices',
      {
        prices: [
          {label: 'a', amount: 1},
          {label: 'b', amount: 1},
        ],
      },
      'STARS_INVOICE_INVALID',
    ],
    ['Stars with a provider token', {provider_token: '123:TEST'}, 'STARS_INVOICE_INVALID'],
    ['Stars with tips', {max_tip_amount: 10}, 'STARS_INVOICE_INVALID'],
    ['a provider currency without a provider token', {currency: 'USD'}, 'PAYMENT_PROVIDER_INVALID'],
    ['a payload over 128 bytes', {payload: 'é'.repeat(65)}, 'INVOICE_PAYLOAD_INVALID'],
    [
      'five suggested tips',
      {currency: 'USD', provider_token: 't', max_tip_amount: 100, suggested_tip_amounts: [1, 2, 3, 4, 5]},
      'there can be at most 4 suggested tip amounts',
    ],
    [
      'a tip over the maximum',
      {currency: 'USD', provider_token: 't', max_tip_amount: 10, suggested_tip_amounts: [20]},
      "suggested tip amount can't be bigger than max_tip_amount",
    ],
  ]
  for (const [what, change, description] of cases) {
    it(`sendInvoice: ${what}`, async () => {
      const {emu, token, api} = await setup()
      emu.addChat(token, {id: 1111, type: 'private', first_name: 'Ada'})
      const res = await api('sendInvoice', {...base, ...change})
      expect(res.json).toEqual({ok: false, error_code: 400, description: `Bad Request: ${description}`})
    })
  }

  it('createInvoiceLink: a link; subscriptions are Stars-only, 30 days, up to 10000 Stars; unknown business connection', async () => {
    const {api} = await setup()
    const link = {
      title: 'Club',
      description: 'Monthly',
      payload: 'club',
      currency: 'XTR',
      prices: [{label: 'Month', amount: 100}],
    }
    const ok = await api('createInvoiceLink', {...link, subscription_period: 2592000})
    expect(ok.json.result).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]+$/)
    for (const [change, description] of [
      [{subscription_period: 3600}, 'SUBSCRIPTION_PERIOD_INVALID'],
      [{subscription_period: 2592000, currency: 'USD', provider_token: 't'}, 'SUBSCRIPTION_PERIOD_INVALID'],
      [{subscription_period: 2592000, prices: [{label: 'Month', amount: 10001}]}, 'STARS_INVOICE_INVALID'],
      [{business_connection_id: 'nope'}, 'business connection not found'],
    ] as const) {
      expect((await api('createInvoiceLink', {...link, ...change})).json.description).toBe(
        `Bad Request: ${description}`,
      )
    }
  })
})

describe('provider payments with shipping', () => {
  for (const mode of MODES) {
    it(`grammY, ${mode}: a flexible invoice asks for shipping, the chosen option is in the total and the payment`, async () => {
      const {emu, token} = await setup(ANSWERED)
      const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
      bot.command('order', (ctx) =>
        ctx.replyWithInvoice('Mug', 'A mug', 'mug-7', 'EUR', [{label: 'Mug', amount: 1500}], {
          provider_token: '284685063:TEST:abc',
          need_name: true,
          need_email: true,
          is_flexible: true,
          max_tip_amount: 500,
        }),
      )
      bot.on('shipping_query', (ctx) =>
        ctx.answerShippingQuery(true, {
          shipping_options: [
            {id: 'post', title: 'Post', prices: [{label: 'Post', amount: 300}]},
            {id: 'express', title: 'Express', prices: [{label: 'Express', amount: 900}]},
          ],
        }),
      )
      bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
      bot.on('message:successful_payment', (ctx) => ctx.reply(`Paid ${ctx.message.successful_payment.total_amount}`))
      const stop = await runGrammy(emu, token, bot, mode)
      try {
        const ada = emu.user(token, {firstName: 'Ada'})
        await ada.send('/order')
        const {payment, replies} = await ada.pay(undefined, {
          shippingOptionId: 'express',
          tipAmount: 100,
          orderInfo: {name: 'Ada Lovelace', email: 'ada@example.com'},
        })
        expect(payment.status).toBe('paid')
        expect(replies.map((m) => m.text)).toEqual(['Paid 2500'])
        expect(payment.successfulPayment).toMatchObject({
          currency: 'EUR',
          total_amount: 2500,
          invoice_payload: 'mug-7',
          shipping_option_id: 'express',
          order_info: {
            name: 'Ada Lovelace',
            email: 'ada@example.com',
            shipping_address: {country_code: 'US', city: 'New York', post_code: '10001'},
          },
          provider_payment_charge_id: expect.stringMatching(/\S/),
        })
        const shipping = emu.calls(token).find((c) => c.method === 'answerShippingQuery')!
        expect(shipping.params.shipping_query_id).toBe(payment.shippingQueryId)
        // a provider payment makes no Star transaction
        expect((await control(emu, token, '/payments')).json.transactions).toEqual([])
        // a tip above max_tip_amount is refused before anything is sent
        await ada.send('/order')
        await expect(ada.pay(undefined, {tipAmount: 501})).rejects.toThrow("is over the invoice's max_tip_amount (500)")
      } finally {
        await stop()
      }
    })
  }

  it('the bot refuses shipping: the payment stops there, with its error_message', async () => {
    const {emu, token, api} = await setup(ANSWERED)
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.command('order', (ctx) =>
      ctx.replyWithInvoice('Mug', 'A mug', 'mug', 'EUR', [{label: 'Mug', amount: 1500}], {
        provider_token: '284685063:TEST:shop',
        is_flexible: true,
      }),
    )
    bot.on('shipping_query', (ctx) => ctx.answerShippingQuery(false, {error_message: 'We do not ship there'}))
    const stop = await runGrammy(emu, token, bot, 'polling')
    try {
      const ada = emu.user(token)
      await ada.send('/order')
      const {payment} = await ada.pay()
      expect(payment).toMatchObject({status: 'shipping_refused', errorMessage: 'We do not ship there'})
      expect(payment.preCheckoutQueryId).toBeUndefined()
      // the answer's own checks
      const bad = await api('answerShippingQuery', {
        shipping_query_id: '1',
        ok: true,
        shipping_options: [{id: 'a', title: 'A'}],
      })
      expect(bad.json.description).toBe('Bad Request: can\'t parse shipping option: Can\'t find field "prices"')
      const none = await api('answerShippingQuery', {shipping_query_id: '1', ok: true})
      expect(none.json.description).toBe('Bad Request: parameter "shipping_options" is required')
    } finally {
      await stop()
    }
  })
})

describe('invoice links, subscriptions and paid media', () => {
  it('a subscription link paid by slug, renewed, then canceled by the bot', async () => {
    const {emu, token, api} = await setup(ANSWERED)
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.on('pre_checkout_query', (ctx) => ctx.answerPreCheckoutQuery(true))
    const payments: unknown[] = []
    bot.on('message:successful_payment', (ctx) => {
      payments.push(ctx.message.successful_payment)
    })
    const stop = await runGrammy(emu, token, bot, 'polling')
    try {
      const link = (
        await api('createInvoiceLink', {
          title: 'Club',
          description: 'Monthly',
          payload: 'club',
          currency: 'XTR',
          prices: [{label: 'Month', amount: 100}],
          subscription_period: 2592000,
        })
      ).json.result as string
      const slug = link.slice('https://t.me/$'.length)
      const first = await control(emu, token, `/invoices/${slug}/pay`, {user_id: 4242})
      expect(first.json).toMatchObject({status: 'paid', invoice: {slug}, total_amount: 100})
      const sp = first.json.successful_payment
      expect(sp).toMatchObject({is_recurring: true, is_first_recurring: true})
      expect(sp.subscription_expiration_date - Math.floor(Date.now() / 1000)).toBeGreaterThan(2592000 - 60)
      await waitFor(() => payments.length === 1, {what: 'the first payment'})
      const renewed = await control(emu, token, `/subscriptions/${sp.telegram_payment_charge_id}/renew`, {})
      expect(renewed.status).toBe(200)
      expect(renewed.json.message.successful_payment).toMatchObject({
        is_recurring: true,
        subscription_expiration_date: sp.subscription_expiration_date + 2592000,
      })
      expect(renewed.json.message.successful_payment.is_first_recurring).toBeUndefined()
      await waitFor(() => payments.length === 2, {what: 'the renewal'})
      const cancel = await api('editUserStarSubscription', {
        user_id: 4242,
        telegram_payment_charge_id: sp.telegram_payment_charge_id,
        is_canceled: true,
      })
      expect(cancel.json).toEqual({ok: true, result: true})
      const refused = await control(emu, token, `/subscriptions/${sp.telegram_payment_charge_id}/renew`, {})
      expect(refused).toEqual({
        status: 400,
        json: {error: expect.stringContaining('the bot canceled this subscription')},
      })
      const {json} = await control(emu, token, '/payments')
      expect(json.balance).toBe(200)
      expect(json.transactions.map((t: any) => t.source.subscription_period)).toEqual([2592000, 2592000])
      expect((await control(emu, token, '/invoices/Enope/pay', {})).json.error).toContain(
        'no invoice link with slug "Enope"',
      )
    } finally {
      await stop()
    }
  })

  it('paid media: bought by a user, a purchased_paid_media update with the payload and a Star transaction', async () => {
    const {emu, token} = await setup(ANSWERED)
    const bot = new GrammyBot(token, {client: {apiRoot: emu.apiRoot}})
    bot.command('secret', (ctx) =>
      ctx.api.sendPaidMedia(ctx.chat.id, 20, [{type: 'photo', media: 'https://example.com/cat.jpg'}], {
        payload: 'cat-1',
        caption: 'A cat',
      }),
    )
    const bought: unknown[] = []
    bot.on('purchased_paid_media', (ctx) => {
      bought.push(ctx.update.purchased_paid_media)
    })
    const stop = await runGrammy(emu, token, bot, 'polling')
    try {
      const ada = emu.user(token, {firstName: 'Ada'})
      const [message] = await ada.send('/secret')
      expect(message.paid_media).toMatchObject({star_count: 20, paid_media: [{type: 'photo'}]})
      expect(message.caption).toBe('A cat')
      const res = await control(emu, token, `/chats/${ada.id}/messages/${message.message_id}/purchase`, {})
      expect(res.json).toMatchObject({update_id: expect.any(Number), transaction: {amount: 20}})
      await waitFor(() => bought.length === 1, {what: 'the purchase update'})
      expect(bought[0]).toEqual({from: expect.objectContaining({id: ada.id}), paid_media_payload: 'cat-1'})
      expect((await control(emu, token, '/payments')).json.transactions[0].source).toMatchObject({
        transaction_type: 'paid_media_payment',
        paid_media_payload: 'cat-1',
      })
    } finally {
      await stop()
    }
  })
})
