import {Telegraf} from 'telegraf'
import {message} from 'telegraf/filters'

import {describeRoll, roll} from './dice.js'

/**
 * What the bot does. Nothing here knows how updates arrive (webhook or long polling):
 * main.ts decides that, so the same handlers run under `bot dev`, in tests and in production.
 */
export interface BotOptions {
  token: string
  /** Bot API server, e.g. a local Bot API server or the `bot` emulator. Default: Telegram's. */
  apiRoot?: string
  /** Where handler errors go. Default: console.error. */
  onError?: (err: unknown) => void
}

export const HELP = [
  'I repeat what you send me.',
  '',
  '/start – say hello',
  '/help – this message',
  '/roll 2d6 – roll dice (also d20, 3d8+2)',
].join('\n')

export function createBot({token, apiRoot, onError = console.error}: BotOptions): Telegraf {
  const bot = new Telegraf(token, apiRoot ? {telegram: {apiRoot}} : {})

  bot.start((ctx) => ctx.reply(`Hello, ${ctx.from?.first_name ?? 'there'}! Send me a message and I will echo it. /help lists the commands.`))

  bot.help((ctx) => ctx.reply(HELP))

  bot.command('roll', (ctx) => {
    const result = roll(ctx.payload)
    return ctx.reply('error' in result ? result.error : describeRoll(result))
  })

  bot.on(message('text'), (ctx) => {
    // Any other command: say so instead of echoing it.
    if (ctx.message.entities?.some((e) => e.type === 'bot_command' && e.offset === 0))
      return ctx.reply('I do not know that command. /help lists the ones I do.')
    return ctx.reply(ctx.message.text)
  })

  bot.on('message', (ctx) => ctx.reply('I can only echo text for now.'))

  // A handler that throws is logged and the update counts as handled: the bot keeps running,
  // and Telegram does not redeliver an update that would fail the same way again.
  bot.catch((err) => onError(err))

  return bot
}
