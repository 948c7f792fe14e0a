import {Markup, session, Telegraf, type Context, type SessionStore} from 'telegraf'
import {message} from 'telegraf/filters'

import {setTimeout as sleep} from 'node:timers/promises'

import {describeRoll, roll} from './dice.js'
import {guardStorage, StorageError} from './storage-error.js'
import {afterAck, track} from './tasks.js'

/**
 * What the bot does. Nothing here knows how updates arrive (webhook or long polling):
 * main.ts decides that, so the same handlers run under `bot dev`, in tests and in production.
 */
export interface SessionData {
  /** How many /count messages this chat has sent. */
  count: number
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
].join('\n')

const resetButton = () => Markup.inlineKeyboard([Markup.button.callback('Reset', 'count:reset')])

export function createBot({
  token,
  apiRoot,
  onError = console.error,
  store,
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

  bot.on('message', (ctx) => ctx.reply('I can only echo text for now.'))

  // Errors outside the handlers: a handler that timed out is logged (the update is acknowledged and
  // the handler goes on); a storage failure is not acknowledged: the webhook answers 500 and
  // Telegram delivers the update again later, long polling stops with the error (src/storage-error.ts).
  bot.catch((err) => {
    if (err instanceof StorageError) throw err
    onError(err)
  })

  return bot
}
