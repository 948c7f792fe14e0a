/**
 * The bot's behaviour, with no I/O of its own: main.ts decides how updates arrive (webhook or polling),
 * and tests (examples/bot-tests) run it in-process against the emulator.
 */
import {Bot, BotError, GrammyError, InlineKeyboard} from 'grammy'

export interface EchoBotOptions {
  /** Bot API server (BOT_API_ROOT); default https://api.telegram.org. */
  apiRoot?: string
}

export const HELP = [
  '/start – greeting',
  '/help – this list',
  '/ask – a question with buttons',
  'anything else – echoed back',
].join('\n')

export function createEchoBot(token: string, options: EchoBotOptions = {}): Bot {
  const bot = new Bot(token, options.apiRoot ? {client: {apiRoot: options.apiRoot}} : {})

  bot.command('start', (ctx) =>
    ctx.reply(`Hi ${ctx.from?.first_name ?? 'there'}! I echo what you send. /help lists what I can do.`),
  )
  bot.command('help', (ctx) => ctx.reply(HELP))
  bot.command('ask', (ctx) =>
    ctx.reply('Do you like this bot?', {
      reply_markup: new InlineKeyboard().text('Yes', 'like:yes').text('No', 'like:no'),
    }),
  )
  bot.callbackQuery(/^like:(yes|no)$/, async (ctx) => {
    const yes = ctx.match[1] === 'yes'
    await ctx.answerCallbackQuery({text: yes ? 'Thanks!' : 'Noted.'})
    await ctx.editMessageText(yes ? 'You like it. 🎉' : 'You do not like it (yet).')
  })
  bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
  bot.on('message', (ctx) => ctx.reply('I can only echo text.'))

  bot.catch((err) => {
    console.error(`error while handling update ${err.ctx.update.update_id}: ${describeError(err.error)}`)
  })
  return bot
}

/**
 * An error of a handler, short: a failed Bot API call is one line (its method and Telegram's
 * description); any other error keeps its stack, which points into the bot's own code.
 */
export function describeError(error: unknown): string {
  const e = error instanceof BotError ? error.error : error
  if (e instanceof GrammyError) return `${e.method}: ${e.description}`
  return e instanceof Error ? (e.stack ?? e.message) : String(e)
}
