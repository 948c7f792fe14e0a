import {Bot, InlineKeyboard, session, type Context, type SessionFlavor, type StorageAdapter} from 'grammy'

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

export type BotContext = Context & SessionFlavor<SessionData>

export interface BotOptions {
  token: string
  /** Bot API server, e.g. a local Bot API server or the `bot` emulator. Default: Telegram's. */
  apiRoot?: string
  /** Where handler errors go. Default: console.error. */
  onError?: (err: unknown) => void
  /** Where sessions live: Redis when several processes serve the bot (see main.ts). Default: memory. */
  storage?: StorageAdapter<SessionData>
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

const resetButton = () => new InlineKeyboard().text('Reset', 'count:reset')

export function createBot({
  token,
  apiRoot,
  onError = console.error,
  storage,
  webAppUrl,
  testCommands = false,
}: BotOptions): Bot<BotContext> {
  const bot = new Bot<BotContext>(token, apiRoot ? {client: {apiRoot}} : {})

  // Every update counts as in flight until handled: a clean stop waits for it.
  bot.use((_ctx, next) => track(next()))
  // One session per chat, loaded before the handlers and saved after them.
  bot.use(session({initial: (): SessionData => ({count: 0}), storage: storage && guardStorage(storage)}))

  // A handler that throws is logged and the update counts as handled: the bot keeps running, the
  // webhook answers 200, and Telegram does not redeliver an update that would fail the same way
  // again (which would block the chat). Errors before this point (the session storage is down)
  // are not caught here: the webhook answers 500 and Telegram delivers the update again later
  // (src/storage-error.ts).
  const handlers = bot.errorBoundary((err) => onError(err.error))

  handlers.command('start', (ctx) =>
    ctx.reply(
      `Hello, ${ctx.from?.first_name ?? 'there'}! Send me a message and I will echo it. /help lists the commands.`,
    ),
  )

  handlers.command('help', (ctx) => ctx.reply(HELP))

  handlers.command('roll', (ctx) => {
    const result = roll(ctx.match)
    return ctx.reply('error' in result ? result.error : describeRoll(result))
  })

  handlers.command('count', (ctx) => {
    ctx.session.count += 1
    return ctx.reply(`Count: ${ctx.session.count}`, {reply_markup: resetButton()})
  })

  handlers.callbackQuery('count:reset', async (ctx) => {
    ctx.session.count = 0
    await ctx.answerCallbackQuery('Count reset')
    await ctx.editMessageText('Count: 0 (reset)')
  })

  // The shop (src/shop.ts): /buy sends a Stars invoice; the pre-checkout query is answered at once
  // (within Telegram's 10 seconds; it has no chat, so no session either); a payment is thanked and
  // its charge id kept in the chat's session, for /refund.
  handlers.command('buy', (ctx) =>
    ctx.replyWithInvoice(INVOICE.title, INVOICE.description, INVOICE.payload, INVOICE.currency, INVOICE.prices),
  )
  handlers.on('pre_checkout_query', (ctx) => {
    const q = ctx.preCheckoutQuery
    const refusal = checkOrder({invoicePayload: q.invoice_payload, currency: q.currency, totalAmount: q.total_amount})
    return refusal ? ctx.answerPreCheckoutQuery(false, refusal) : ctx.answerPreCheckoutQuery(true)
  })
  handlers.on('message:successful_payment', (ctx) => {
    ctx.session.charges = remember(ctx.session.charges, ctx.message.successful_payment.telegram_payment_charge_id)
    return ctx.reply(THANKS)
  })
  // Telegram tells the bot about a refund with a service message: nothing to answer.
  handlers.on('message:refunded_payment', () => {})
  handlers.command('refund', async (ctx) => {
    const charge = ctx.session.charges?.at(-1)
    if (!charge || !ctx.from) return ctx.reply(NOTHING_TO_REFUND)
    await ctx.api.refundStarPayment(ctx.from.id, charge)
    ctx.session.charges = ctx.session.charges?.slice(0, -1)
    return ctx.reply(REFUNDED)
  })

  // The Mini App (src/web-app.ts): a button that opens it; its page checks initData with the server.
  handlers.command('app', (ctx) =>
    webAppUrl
      ? ctx.reply(APP_TEXT, {reply_markup: new InlineKeyboard().webApp(APP_BUTTON, webAppUrl)})
      : ctx.reply(NO_APP_URL),
  )

  if (testCommands) {
    // Hidden commands for tests (BOT_TEST_COMMANDS=1). /fail: a handler that throws.
    handlers.command('fail', () => {
      throw new Error('/fail: a deliberate failure (BOT_TEST_COMMANDS=1)')
    })
    // /slow [ms]: slow work done the right way: answer at once, finish after the update was
    // acknowledged (afterAck), so the webhook request never waits for it; a clean stop waits for it.
    handlers.command('slow', async (ctx) => {
      const ms = Math.min(Number(ctx.match) || 1000, 60_000)
      const chatId = ctx.chat.id
      await ctx.reply('Working on it…')
      afterAck(async () => {
        await sleep(ms)
        await bot.api.sendMessage(chatId, 'Done.')
      }, onError)
    })
  }

  // Any other command: say so instead of echoing it.
  handlers.on('message:entities:bot_command', (ctx) =>
    ctx.reply('I do not know that command. /help lists the ones I do.'),
  )

  handlers.on('message:text', (ctx) => ctx.reply(ctx.message.text))

  handlers.on('message', (ctx) => ctx.reply('I can only echo text for now.'))

  // Long polling: anything else that escaped the boundary is logged, and polling goes on; a storage
  // failure stops polling without confirming the update (main.ts reports it and exits).
  bot.catch((err) => {
    if (err.error instanceof StorageError) throw err.error
    onError(err.error)
  })

  return bot
}
