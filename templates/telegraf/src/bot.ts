import {Markup, session, Telegraf, type Context, type SessionStore} from 'telegraf'
import {message} from 'telegraf/filters'

import {setTimeout as sleep} from 'node:timers/promises'

import {describeRoll, roll} from './dice.js'
import {checkOrder, INVOICE, NOTHING_TO_REFUND, REFUNDED, remember, THANKS} from './shop.js'
import {guardStorage, StorageError} from './storage-error.js'
import {afterAck, track} from './tasks.js'
import {APP_BUTTON, APP_TEXT, NO_APP_URL} from './web-app.js'

/**
 * What the bot does. Nothing here knows how updates arrive (webhook or long polling):
 * main.ts decides that, so the same handlers run under `bot dev`, in tests and in production.
 */
export interface SessionData {
  /** How many /count messages this chat has sent. */
  count: number
  /** The telegram_payment_charge_id of each purchase made in this chat (src/shop.ts), newest last. */
  charges?: string[]
}

export interface BotContext extends Context {
  session: SessionData
}

export interface BotOptions {
  token: string
  /** Bot API server, e.g. a local Bot API server or the `bot` emulator. Default: Telegram's. */
  apiRoot?: string
  /** Where handler errors go. Default: console.error. */
  onError?: (err: unknown) => void
  /** Where sessions live: Redis when several processes serve the bot (see main.ts). Default: memory. */
  store?: SessionStore<SessionData>
  /** The Mini App's URL for /app (src/web-app.ts); undefined: /app says how to get one. */
  webAppUrl?: string
  /** Add hidden /fail and /slow commands (tests of the error handling and of a clean stop). */
  testCommands?: boolean
}

export const HELP = [
  'I repeat what you send me.',
  '',
  '/start – say hello',
  '/help – this message',
  '/roll 2d6 – roll dice (also d20, 3d8+2)',
  '/count – count your /count messages (kept in the session)',
  '/buy – buy a supporter pass for 1 Telegram Star',
  '/refund – get your last purchase refunded',
  '/app – open the Mini App',
].join('\n')

const resetButton = () => Markup.inlineKeyboard([Markup.button.callback('Reset', 'count:reset')])

export function createBot({
  token,
  apiRoot,
  onError = console.error,
  store,
  webAppUrl,
  testCommands = false,
}: BotOptions): Telegraf<BotContext> {
  // handlerTimeout: Telegraf stops waiting for a handler after 10 s and acknowledges the update
  // (the handler goes on, and a clean stop still waits for it), well before Telegram's 60 s.
  const bot = new Telegraf<BotContext>(token, {handlerTimeout: 10_000, ...(apiRoot ? {telegram: {apiRoot}} : {})})

  // Every update counts as in flight until handled: a clean stop waits for it.
  bot.use((_ctx, next) => track(next()))
  // One session per chat, loaded before the handlers and saved after them.
  bot.use(
    session<SessionData, BotContext>({
      store: store && guardStorage(store),
      defaultSession: () => ({count: 0}),
      getSessionKey: (ctx) => (ctx.chat ? String(ctx.chat.id) : undefined),
    }),
  )

  // A handler that throws is logged and the update counts as handled: the bot keeps running, the
  // webhook answers 200, and Telegram does not redeliver an update that would fail the same way
  // again (which would block the chat).
  bot.use(async (_ctx, next) => {
    try {
      await next()
    } catch (err) {
      onError(err)
    }
  })

  bot.start((ctx) =>
    ctx.reply(
      `Hello, ${ctx.from?.first_name ?? 'there'}! Send me a message and I will echo it. /help lists the commands.`,
    ),
  )

  bot.help((ctx) => ctx.reply(HELP))

  bot.command('roll', (ctx) => {
    const result = roll(ctx.payload)
    return ctx.reply('error' in result ? result.error : describeRoll(result))
  })

  bot.command('count', (ctx) => {
    ctx.session.count += 1
    return ctx.reply(`Count: ${ctx.session.count}`, resetButton())
  })

  bot.action('count:reset', async (ctx) => {
    ctx.session.count = 0
    await ctx.answerCbQuery('Count reset')
    await ctx.editMessageText('Count: 0 (reset)')
  })

  // The shop (src/shop.ts): /buy sends a Stars invoice; the pre-checkout query is answered at once
  // (within Telegram's 10 seconds; it has no chat, so no session either); a payment is thanked and
  // its charge id kept in the chat's session, for /refund.
  bot.command('buy', (ctx) => ctx.replyWithInvoice({...INVOICE, provider_token: ''}))
  bot.on('pre_checkout_query', (ctx) => {
    const q = ctx.preCheckoutQuery
    const refusal = checkOrder({invoicePayload: q.invoice_payload, currency: q.currency, totalAmount: q.total_amount})
    return ctx.answerPreCheckoutQuery(!refusal, refusal)
  })
  bot.on(message('successful_payment'), (ctx) => {
    ctx.session.charges = remember(ctx.session.charges, ctx.message.successful_payment.telegram_payment_charge_id)
    return ctx.reply(THANKS)
  })
  bot.command('refund', async (ctx) => {
    const charge = ctx.session.charges?.at(-1)
    if (!charge) return ctx.reply(NOTHING_TO_REFUND)
    // Telegraf 4.16 has no refundStarPayment of its own yet: callApi sends it as the Bot API names it.
    const callApi = ctx.telegram.callApi.bind(ctx.telegram) as (method: string, payload: object) => Promise<unknown>
    await callApi('refundStarPayment', {user_id: ctx.from.id, telegram_payment_charge_id: charge})
    ctx.session.charges = ctx.session.charges?.slice(0, -1)
    return ctx.reply(REFUNDED)
  })

  // The Mini App (src/web-app.ts): a button that opens it; its page checks initData with the server.
  bot.command('app', (ctx) =>
    webAppUrl
      ? ctx.reply(APP_TEXT, Markup.inlineKeyboard([Markup.button.webApp(APP_BUTTON, webAppUrl)]))
      : ctx.reply(NO_APP_URL),
  )

  if (testCommands) {
    // Hidden commands for tests (BOT_TEST_COMMANDS=1). /fail: a handler that throws.
    bot.command('fail', () => {
      throw new Error('/fail: a deliberate failure (BOT_TEST_COMMANDS=1)')
    })
    // /slow [ms]: slow work done the right way: answer at once, finish after the update was
    // acknowledged (afterAck), so the webhook request never waits for it; a clean stop waits for it.
    bot.command('slow', async (ctx) => {
      const ms = Math.min(Number(ctx.payload) || 1000, 60_000)
      const chatId = ctx.chat.id
      await ctx.reply('Working on it…')
      afterAck(async () => {
        await sleep(ms)
        await bot.telegram.sendMessage(chatId, 'Done.')
      }, onError)
    })
  }

  bot.on(message('text'), (ctx) => {
    // Any other command: say so instead of echoing it.
    if (ctx.message.entities?.some((e) => e.type === 'bot_command' && e.offset === 0))
      return ctx.reply('I do not know that command. /help lists the ones I do.')
    return ctx.reply(ctx.message.text)
  })

  bot.on('message', (ctx) => {
    // Telegram tells the bot about a refund with a service message: nothing to answer.
    if ('refunded_payment' in ctx.message) return
    return ctx.reply('I can only echo text for now.')
  })

  // Errors outside the handlers: a handler that timed out is logged (the update is acknowledged and
  // the handler goes on); a storage failure is not acknowledged: the webhook answers 500 and
  // Telegram delivers the update again later, long polling stops with the error (src/storage-error.ts).
  bot.catch((err) => {
    if (err instanceof StorageError) throw err
    onError(err)
  })

  return bot
}
