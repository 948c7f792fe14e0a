import {Bot, InlineKeyboard} from 'gramio'

import {setTimeout as sleep} from 'node:timers/promises'

import {describeRoll, roll} from './dice.js'
import {checkOrder, INVOICE, NOTHING_TO_REFUND, REFUNDED, remember, THANKS} from './shop.js'
import {memoryStorage, session, type SessionStorage} from './session.js'
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

export interface BotOptions {
  token: string
  /** Bot API server, e.g. a local Bot API server or the `bot` emulator. Default: Telegram's. */
  apiRoot?: string
  /** Where handler errors go. Default: console.error. */
  onError?: (err: unknown) => void
  /** Where sessions live: Redis when several processes serve the bot (see main.ts). Default: memory. */
  storage?: SessionStorage<SessionData>
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
  storage = memoryStorage(),
  webAppUrl,
  testCommands = false,
}: BotOptions) {
  // GramIO builds request URLs as `${baseURL}${token}/${method}`.
  const bot = new Bot(token, apiRoot ? {api: {baseURL: `${apiRoot}/bot`}} : {})
    // Every update counts as in flight until handled: a clean stop waits for it.
    .use((_ctx, next) => track(next()))
    // One session per chat, loaded before the handlers and saved after them.
    .extend(session<SessionData>(guardStorage(storage), () => ({count: 0})))

  bot.command('start', (ctx) =>
    ctx.send(
      `Hello, ${ctx.from?.firstName ?? 'there'}! Send me a message and I will echo it. /help lists the commands.`,
    ),
  )

  bot.command('help', (ctx) => ctx.send(HELP))

  bot.command('roll', (ctx) => {
    const result = roll(ctx.args ?? '')
    return ctx.send('error' in result ? result.error : describeRoll(result))
  })

  bot.command('count', (ctx) => {
    ctx.session.count += 1
    return ctx.send(`Count: ${ctx.session.count}`, {reply_markup: resetButton()})
  })

  bot.callbackQuery('count:reset', async (ctx) => {
    ctx.session.count = 0
    await ctx.answer('Count reset')
    await ctx.editText('Count: 0 (reset)')
  })

  // The shop (src/shop.ts): /buy sends a Stars invoice; the pre-checkout query is answered at once
  // (within Telegram's 10 seconds; it has no chat, so no session either); a payment is thanked and
  // its charge id kept in the chat's session, for /refund.
  bot.command('buy', (ctx) => ctx.sendInvoice(INVOICE))
  bot.on('pre_checkout_query', (ctx) => {
    const refusal = checkOrder({
      invoicePayload: ctx.invoicePayload,
      currency: ctx.currency,
      totalAmount: ctx.totalAmount,
    })
    return refusal ? ctx.answer({ok: false, error_message: refusal}) : ctx.answer({ok: true})
  })
  bot.on('successful_payment', (ctx) => {
    ctx.session.charges = remember(ctx.session.charges, ctx.eventPayment.telegramPaymentChargeId)
    return ctx.send(THANKS)
  })
  bot.command('refund', async (ctx) => {
    const charge = ctx.session.charges?.at(-1)
    if (!charge || !ctx.from) return ctx.send(NOTHING_TO_REFUND)
    await bot.api.refundStarPayment({user_id: ctx.from.id, telegram_payment_charge_id: charge})
    ctx.session.charges = ctx.session.charges?.slice(0, -1)
    return ctx.send(REFUNDED)
  })

  // The Mini App (src/web-app.ts): a button that opens it; its page checks initData with the server.
  bot.command('app', (ctx) =>
    webAppUrl
      ? ctx.send(APP_TEXT, {reply_markup: new InlineKeyboard().webApp(APP_BUTTON, webAppUrl)})
      : ctx.send(NO_APP_URL),
  )

  if (testCommands) {
    // Hidden commands for tests (BOT_TEST_COMMANDS=1). /fail: a handler that throws.
    bot.command('fail', () => {
      throw new Error('/fail: a deliberate failure (BOT_TEST_COMMANDS=1)')
    })
    // /slow [ms]: slow work done the right way: answer at once, finish after the update was
    // acknowledged (afterAck), so the webhook request never waits for it; a clean stop waits for it.
    bot.command('slow', async (ctx) => {
      const ms = Math.min(Number(ctx.args ?? '') || 1000, 60_000)
      const chatId = ctx.chatId
      await ctx.send('Working on it…')
      afterAck(async () => {
        await sleep(ms)
        await bot.api.sendMessage({chat_id: chatId, text: 'Done.'})
      }, onError)
    })
  }

  bot.on('message', (ctx) => {
    // Telegram tells the bot about a refund with a service message: nothing to answer.
    if ('refunded_payment' in ctx.payload) return
    const text = ctx.text
    // Any other command: say so instead of echoing it.
    if (ctx.hasEntities('bot_command') && text?.startsWith('/'))
      return ctx.send('I do not know that command. /help lists the ones I do.')
    return ctx.send(text ?? 'I can only echo text for now.')
  })

  // A handler that throws is logged and the update counts as handled: the bot keeps running, the
  // webhook answers 200, and Telegram does not redeliver an update that would fail the same way
  // again (which would block the chat). A storage failure is not acknowledged: the webhook answers
  // 500 and Telegram delivers the update again later (src/storage-error.ts).
  bot.onError(({error}) => {
    if (error instanceof StorageError) throw error
    onError(error)
  })

  return bot
}
